// Exports of the step on view: its matrices as CSV and JSON, its formula as LaTeX, code that
// reproduces it in NumPy and in PyTorch (export-code.js), and its result heatmap as SVG. All
// of them format what the trace holds; none computes attention.
import { finiteRange, scaleColors } from '../shared/colors.js';

export { exportProblem, numpyCode, pytorchCode } from './export-code.js';

// A label (text from the learner or a shared link) as a CSV field. A spreadsheet runs a cell
// that starts with = + - @, a tab or a CR as a formula, so such text gets a leading ' (OWASP's
// advice for CSV injection); every label is quoted, its quotes doubled. Number cells stay
// bare: -0.25 is a number, not a formula.
const textCell = (text) => `"${(/^[=+\-@\t\r]/.test(text) ? `'${text}` : text).replaceAll('"', '""')}"`;
const number = (v) => (v === -Infinity ? '-inf' : String(v));

/** A matrix as CSV with a header row of column labels and a first column of row labels. */
export function toCsv(values, rowLabels, colLabels) {
  const header = ['', ...colLabels].map(textCell).join(',');
  return [header, ...values.map((row, r) => [textCell(rowLabels[r]), ...row.map(number)].join(','))].join('\n') + '\n';
}

// JSON has no infinities: a masked cell's −∞ is written as the string "-Infinity" (the
// element's URL state writes it so too, state-link.js), and fromJson reads it back as
// -Infinity in the values only, so a title or formula that says "-Infinity" stays text.
const NEGATIVE_INFINITY = '-Infinity';

/** The trace steps with this id (one per head) as JSON; −∞ (masked) is the string "-Infinity". */
export function toJson(steps) {
  const spelled = (values) => values.map((row) => row.map((v) => (v === -Infinity ? NEGATIVE_INFINITY : v)));
  const plain = steps.map(({ id, head, title, formula, shape, values }) => ({ id, head, title, formula, shape, values: spelled(values) }));
  return `${JSON.stringify(plain, null, 2)}\n`;
}

/** Reads toJson's text back: "-Infinity" in the values is -Infinity again. */
export function fromJson(text) {
  const revived = (values) => values.map((row) => row.map((v) => (v === NEGATIVE_INFINITY ? -Infinity : v)));
  return JSON.parse(text).map((step) => ({ ...step, values: revived(step.values) }));
}

/**
 * The colours of each cell of a result, on `scale` (registry.js stepScales: the screen's
 * scale for the step, shared by its heads), or on the matrix's own range for a step the
 * screen does not colour; and what the picture should say the colours are.
 */
export function exportColors(values, scale) {
  const used = scale ?? { range: finiteRange(values), label: `colour from the lowest to the highest value of this matrix` };
  return { cells: values.map((row, r) => row.map((v, c) => scaleColors(used, v, r, c))), label: used.label };
}

/** The result matrix as a standalone SVG heatmap (the screen's colours, values written in the cells). */
export function toSvg(values, rowLabels, colLabels, scale) {
  const { cells: colors, label } = exportColors(values, scale);
  const size = 44;
  const left = 60;
  const top = 24;
  const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  const cells = values.flatMap((row, r) =>
    row.map((v, c) => {
      const { background, text } = colors[r][c];
      const x = left + c * size;
      const y = top + r * size;
      return `<rect x="${x}" y="${y}" width="${size}" height="${size}" fill="${background}"/><text x="${x + size / 2}" y="${y + size / 2 + 4}" fill="${text}" text-anchor="middle">${v === -Infinity ? '−∞' : Number(v.toFixed(3))}</text>`;
    }),
  );
  const labels = [
    ...colLabels.map((l, c) => `<text x="${left + c * size + size / 2}" y="${top - 8}" text-anchor="middle">${escape(l)}</text>`),
    ...rowLabels.map((l, r) => `<text x="${left - 6}" y="${top + r * size + size / 2 + 4}" text-anchor="end">${escape(l)}</text>`),
    `<text x="${left}" y="${top + rowLabels.length * size + 16}" data-role="scale">Colour: ${escape(label)}</text>`,
  ];
  const width = Math.max(left + colLabels.length * size + 8, left + 7 * label.length);
  const height = top + rowLabels.length * size + 26;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">\n<rect width="100%" height="100%" fill="#fff"/>\n${[...labels, ...cells].join('\n')}\n</svg>\n`;
}
