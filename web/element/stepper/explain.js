// The hover/focus explanation of one result cell: the computation written out with the
// actual numbers. Every number shown comes from the trace or the inputs; the page only
// lays them side by side (the sums and quotients are the core's results).
import { fmt, sub } from '../shared/format.js';

const term = (v) => (v < 0 ? `(${fmt(v)})` : fmt(v));
const products = (a, b) => a.map((x, l) => `${term(x)}×${term(b[l])}`).join(' + ');
const column = (m, c) => m.map((row) => row[c]);

// Result symbol of each product step, and how the second operand is read.
const PRODUCTS = {
  'project-q': { symbol: 'Q', byRow: false },
  'project-k': { symbol: 'K', byRow: false },
  'project-v': { symbol: 'V', byRow: false },
  scores: { symbol: 's', byRow: true }, // q_i · k_j: K is read row by row (no Kᵀ needed)
  aggregate: { symbol: 'O', byRow: false },
  'output-projection': { symbol: 'Y', byRow: false },
};

function product(id, panel, r, c, value) {
  const [a, b] = panel.operands;
  const { symbol, byRow } = PRODUCTS[id];
  const left = a.values[r];
  const right = byRow ? b.values[c] : column(b.values, c);
  const name = id === 'scores' ? `q${sub(r)}·k${sub(c)}` : `${symbol}${sub(r)}${sub(c)}`;
  return {
    text: `${name} = ${products(left, right)} = ${fmt(value)}`,
    highlight: [{ rows: [r] }, byRow ? { rows: [c] } : { cols: [c] }],
  };
}

// How the scale step divides: "/ (√2)", "/ (√2 · 0.5)", "× 0.25", "× 1 (scaling off)".
function scaleFactor(state) {
  const width = state.mode === 'x' ? state.Wq[0].length : state.Q[0].length;
  const dk = width / state.heads;
  const byTemperature = state.temperature !== 1 ? ` / ${fmt(state.temperature)}` : '';
  if (state.scale === false) return byTemperature || '× 1 (scaling off)';
  if (typeof state.scale === 'number') return `× ${fmt(state.scale)}${byTemperature}`;
  return state.temperature !== 1 ? `/ (√${dk} · ${fmt(state.temperature)})` : `/ √${dk}`;
}

function maskReason(state, r, c, keys) {
  if (state.causal && c > r) return `key ${keys[c]} comes after this query (causal mask)`;
  if (state.keyPadding[c]) return `key ${keys[c]} is padding`;
  if (state.mask && !state.mask[r]?.[c]) return 'the mask forbids this pair';
  return null;
}

/**
 * @returns {{ text: string, highlight: object[] }} highlight[i] marks rows/cols/cell of operand i
 */
export function explain(id, panel, state, labels, r, c) {
  const value = panel.step.values[r][c];
  if (PRODUCTS[id]) return product(id, panel, r, c, value);
  const at = `${sub(r)}${sub(c)}`;
  const input = panel.operands[0]?.values[r]?.[c];
  const same = [{ cell: [r, c] }];
  switch (id) {
    case 'scale': {
      const factor = scaleFactor(state);
      return { text: `s̃${at} = s${at} ${factor} = ${fmt(input)} ${factor} = ${fmt(value)}`, highlight: same };
    }
    case 'mask': {
      const reason = maskReason(state, r, c, labels.keys);
      return {
        text: reason ? `${reason}: s̃${at} becomes −∞, so its weight will be 0` : `kept: s̃${at} = ${fmt(value)}`,
        highlight: same,
      };
    }
    case 'softmax': {
      const { rowMax, rowSum, exponentials } = panel.step;
      if (rowSum[r] === 0) {
        return { text: `every key is masked for query ${labels.queries[r]}: its weights are all 0 (defined, not NaN)`, highlight: [{ rows: [r] }] };
      }
      return {
        text: `a${at} = exp(s̃${at} − m${sub(r)}) / Σ = exp(${fmt(input)} − ${fmt(rowMax[r])}) / ${fmt(rowSum[r])} = ${fmt(exponentials[r][c])} / ${fmt(rowSum[r])} = ${fmt(value)}`,
        highlight: [{ rows: [r], cell: [r, c] }],
      };
    }
    case 'concat': {
      const width = panel.operands[0].values[0].length;
      const head = Math.floor(c / width);
      return {
        text: `column ${c + 1} of C is column ${(c % width) + 1} of head ${head + 1}'s output: ${fmt(value)}`,
        highlight: panel.operands.map((_, h) => (h === head ? { cell: [r, c % width] } : {})),
      };
    }
    case 'positional':
      return { text: `x${at} = ${fmt(input)} plus the encoding of position ${r + 1}, dimension ${c + 1}: ${fmt(value)}`, highlight: same };
    default:
      return { text: fmt(value), highlight: [] };
  }
}
