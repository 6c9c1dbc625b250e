// The element's export buttons: each turns the step on view into a file and downloads it.
import { exportColors, exportProblem, numpyCode, pytorchCode, toCsv, toJson, toSvg } from '../steps/export.js';
import { stepScales } from '../steps/registry.js';

export const EXPORT_KINDS = [
  ['csv', 'CSV'],
  ['json', 'JSON'],
  ['latex', 'LaTeX'],
  ['numpy', 'NumPy'],
  ['pytorch', 'PyTorch'],
  ['svg', 'SVG'],
  ['png', 'PNG'],
];

function save(filename, blob) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

const text = (content, type) => new Blob([content], { type });

// The result heatmap drawn on a canvas, the same cells and colours as the SVG.
function pngOf(values, rowLabels, colLabels, scale) {
  const { cells: colors, label } = exportColors(values, scale);
  const size = 44;
  const [left, top] = [60, 24];
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(left + colLabels.length * size + 8, left + 7 * label.length);
  canvas.height = top + rowLabels.length * size + 26;
  const g = canvas.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.font = '11px sans-serif';
  g.textAlign = 'center';
  values.forEach((row, r) =>
    row.forEach((v, c) => {
      const { background, text: ink } = colors[r][c];
      g.fillStyle = background;
      g.fillRect(left + c * size, top + r * size, size, size);
      g.fillStyle = ink;
      g.fillText(v === -Infinity ? '−∞' : String(Number(v.toFixed(3))), left + c * size + size / 2, top + r * size + size / 2 + 4);
    }),
  );
  g.fillStyle = '#000';
  g.textAlign = 'left';
  g.fillText(`Colour: ${label}`, left, top + rowLabels.length * size + 16);
  g.textAlign = 'center';
  colLabels.forEach((l, c) => g.fillText(l, left + c * size + size / 2, top - 8));
  g.textAlign = 'right';
  rowLabels.forEach((l, r) => g.fillText(l, left - 6, top + r * size + size / 2 + 4));
  return new Promise((done) => canvas.toBlob(done, 'image/png'));
}

/**
 * Why export `kind` of step `id` is off, or null: the code exports are written from the
 * trace's operands, and a step they cannot express is refused with its reason, never
 * exported as something else.
 */
export const exportDisabled = (kind, trace, id) => (kind === 'numpy' || kind === 'pytorch' ? exportProblem(trace, id) : null);

/** Downloads the step on view as `kind` (one of EXPORT_KINDS). */
export async function downloadStep(kind, { trace, id, panels }) {
  // Matrices and pictures: a file per head. Formulas, JSON and code: one file for the step.
  // Pictures use the screen's colour scale, shared by the heads.
  const scale = stepScales(id, trace, { heads: panels.length })(id); // the screen's scale
  for (const { step, head, rowLabels, colLabels } of panels) {
    const name = (suffix) => `attnlab-${id}${head === undefined ? '' : `-head${head + 1}`}.${suffix}`;
    if (kind === 'csv') save(name('csv'), text(toCsv(step.values, rowLabels, colLabels), 'text/csv'));
    if (kind === 'svg') save(name('svg'), text(toSvg(step.values, rowLabels, colLabels, scale), 'image/svg+xml'));
    if (kind === 'png') save(name('png'), await pngOf(step.values, rowLabels, colLabels, scale));
  }
  const formulas = panels.map((p) => p.step.formula).join('\n');
  if (kind === 'json') save(`attnlab-${id}.json`, text(toJson(panels.map((p) => p.step)), 'application/json'));
  if (kind === 'latex') save(`attnlab-${id}.tex`, text(`${formulas}\n`, 'application/x-tex'));
  if (kind === 'numpy') save(`attnlab-${id}.py`, text(numpyCode(trace, id), 'text/x-python'));
  if (kind === 'pytorch') save(`attnlab-${id}-pytorch.py`, text(pytorchCode(trace, id), 'text/x-python'));
}
