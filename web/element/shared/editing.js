// Edits to the learner's input matrices. Growing or shrinking a matrix changes the same
// dimension everywhere it appears (adding a column to X adds a row to every W), so an
// edit keeps the inputs compatible and the learner sees its effect at once.

export const MAX_EDIT_SIZE = 8;

// The dimension each side (rows, cols) of each input stands for, per mode.
const DIMENSIONS = {
  x: { X: ['tokens', 'model'], Wq: ['model', 'qk'], Wk: ['model', 'qk'], Wv: ['model', 'v'], Wo: ['v', 'out'] },
  qkv: { Q: ['queries', 'qk'], K: ['keys', 'qk'], V: ['keys', 'v'] },
};
// The dimension whose entries are tokens with labels and key-padding flags.
const TOKEN_DIMENSION = { x: 'tokens', qkv: 'keys' };

/** The input matrices of a mode, in display order (W_O only when it is on). */
export function inputNames(state) {
  return Object.keys(DIMENSIONS[state.mode]).filter((name) => state[name] != null);
}

const resizeRows = (m, count) => (count > m.length ? [...m, ...Array.from({ length: count - m.length }, () => Array(m[0].length).fill(0))] : m.slice(0, count));
const resizeCols = (m, count) => m.map((row) => (count > row.length ? [...row, ...Array(count - row.length).fill(0)] : row.slice(0, count)));

/**
 * A copy of `state` with `target`'s rows or cols grown or shrunk by `delta`, and every
 * matrix sharing that dimension with it; null when the size would leave 1…MAX_EDIT_SIZE.
 */
export function resize(state, target, axis, delta) {
  const dims = DIMENSIONS[state.mode];
  const dimension = dims[target][axis === 'row' ? 0 : 1];
  const current = axis === 'row' ? state[target].length : state[target][0].length;
  const size = current + delta;
  if (size < 1 || size > MAX_EDIT_SIZE) return null;

  const next = structuredClone(state);
  for (const name of inputNames(state)) {
    const [rows, cols] = dims[name];
    if (rows === dimension) next[name] = resizeRows(next[name], size);
    if (cols === dimension) next[name] = resizeCols(next[name], size);
  }
  if (dimension === TOKEN_DIMENSION[state.mode]) {
    next.tokens = Array.from({ length: size }, (_, i) => next.tokens[i] ?? `t${i + 1}`);
    next.keyPadding = Array.from({ length: size }, (_, i) => next.keyPadding[i] ?? false);
  }
  if (dimension === 'tokens' || dimension === 'queries' || dimension === 'keys') next.mask = null;
  return next;
}

/** A copy of `state` with one cell set. */
export function setCell(state, target, row, col, value) {
  const next = structuredClone(state);
  next[target][row][col] = value;
  return next;
}

/** Text a learner typed into a cell, as a number; null when it is not one. */
export function parseCell(text) {
  const cleaned = text.trim().replace('−', '-');
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(cleaned)) return null;
  const value = Number(cleaned);
  return Number.isFinite(value) ? value : null;
}
