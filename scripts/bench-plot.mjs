// A small SVG of benchmark rows: milliseconds (left) and GFLOP/s (right) against n, on log
// axes, one line per kernel (solid: full attention, dashed: causal).
const COLORS = { naive: '#d55e00', flash: '#0072b2', blas: '#009e73', 'tfjs-wasm': '#cc79a7' };
const W = 460;
const H = 300;
const M = { left: 58, right: 12, top: 28, bottom: 42 };

const log = Math.log10;
const text = (x, y, s, extra = '') => `<text x="${x}" y="${y}" ${extra}>${s}</text>`;

function panel(rows, field, title, offsetX, colors) {
  const ns = rows.map((r) => r.n);
  const ys = rows.map((r) => r[field]).filter((v) => v > 0);
  const [x0, x1] = [log(Math.min(...ns)), log(Math.max(...ns))];
  const [y0, y1] = [Math.floor(log(Math.min(...ys))), Math.ceil(log(Math.max(...ys)))];
  const px = (n) => offsetX + M.left + ((log(n) - x0) / (x1 - x0 || 1)) * (W - M.left - M.right);
  const py = (v) => H - M.bottom - ((log(v) - y0) / (y1 - y0 || 1)) * (H - M.top - M.bottom);
  const parts = [text(offsetX + W / 2, 16, title, 'text-anchor="middle" font-weight="bold"')];
  for (let e = y0; e <= y1; e++) {
    parts.push(`<line x1="${px(Math.min(...ns))}" x2="${px(Math.max(...ns))}" y1="${py(10 ** e)}" y2="${py(10 ** e)}" stroke="#ddd"/>`);
    parts.push(text(offsetX + M.left - 6, py(10 ** e) + 4, String(10 ** e), 'text-anchor="end"'));
  }
  for (const n of [...new Set(ns)]) parts.push(text(px(n), H - M.bottom + 16, String(n), 'text-anchor="middle"'));
  parts.push(text(offsetX + W / 2, H - 8, 'n (tokens)', 'text-anchor="middle"'));
  for (const kernel of Object.keys(colors)) {
    for (const causal of [false, true]) {
      const line = rows.filter((r) => r.kernel === kernel && r.causal === causal && r[field] > 0).sort((a, b) => a.n - b.n);
      if (line.length === 0) continue;
      const points = line.map((r) => `${px(r.n).toFixed(1)},${py(r[field]).toFixed(1)}`).join(' ');
      parts.push(`<polyline points="${points}" fill="none" stroke="${colors[kernel]}" stroke-width="2"${causal ? ' stroke-dasharray="5 4"' : ''}/>`);
    }
  }
  return parts.join('\n');
}

/** The SVG document for benchmark rows; `colors` maps each kernel drawn to its colour. */
export function plot(rows, colors = COLORS) {
  const kernels = Object.keys(colors).filter((k) => rows.some((r) => r.kernel === k));
  const legend = kernels.map(
    (k, i) =>
      `<g transform="translate(${M.left + i * 110},${H + 8})"><line x2="24" y1="6" y2="6" stroke="${colors[k]}" stroke-width="3"/>${text(30, 10, k)}</g>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W}" height="${H + 30}" font-family="sans-serif" font-size="11">
<rect width="100%" height="100%" fill="#fff"/>
${panel(rows, 'ms_median', 'time (ms, median)', 0, colors)}
${panel(rows, 'gflops', 'GFLOP/s', W, colors)}
${legend.join('\n')}
${text(M.left + kernels.length * 110 + 10, H + 18, 'solid: full, dashed: causal')}
</svg>
`;
}
