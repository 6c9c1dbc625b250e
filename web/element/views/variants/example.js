// The variants view's one tiny example: six English tokens (and, for cross-attention, four
// French ones to attend to), d_model = 8 split into four heads of width 2. The numbers are
// fixed (a seeded generator), so every switch changes only what its variant changes.
import { randomMatrix, seededRandom } from '../../shared/random.js';

export const HEADS = 4;
export const HEAD_WIDTH = 2; // even, so RoPE has a pair to rotate in every head
const D_MODEL = HEADS * HEAD_WIDTH;

export const TOKENS = ['The', 'cat', 'sat', 'on', 'the', 'mat'];
export const CONTEXT_TOKENS = ['le', 'chat', 'est', 'assis'];

const random = seededRandom(2024);
const X = randomMatrix(TOKENS.length, D_MODEL, random);
const CONTEXT = randomMatrix(CONTEXT_TOKENS.length, D_MODEL, random);
const [WQ, WK, WV] = [0, 1, 2].map(() => randomMatrix(D_MODEL, D_MODEL, random));

// The learner's bias, one character per cell of the 6×6 scores, row by row (short in a link).
export const BIAS_CODES = { 0: 0, '+': 1, '-': -1, x: -Infinity };
export const BIAS_CYCLE = ['0', '+', '-', 'x'];
// The bias a learner starts from: +1 on the diagonal (each token favours itself), −1 to the
// next key, and one −∞ cell (“the” may not see “The”) that blocks as a mask would.
export const DEFAULT_BIAS = TOKENS.map((_, i) => TOKENS.map((_, j) => (i === 4 && j === 0 ? 'x' : i === j ? '+' : j === i + 1 ? '-' : '0')).join('')).join('');
export const isBiasCode = (v) => typeof v === 'string' && new RegExp(`^([0+\\-x]{${TOKENS.length ** 2}})?$`).test(v);
/** The bias code as the (n × n) matrix the core takes. */
export const biasMatrix = (code) => TOKENS.map((_, i) => TOKENS.map((_, j) => BIAS_CODES[code[i * TOKENS.length + j]]));

// The first `width` columns of w: with fewer K/V heads, W_K and W_V project to fewer columns.
const columns = (w, width) => w.map((row) => row.slice(0, width));

/** The learner's switches as a lab.trace() request (the same fields decode() takes). */
export function variantRequest(v) {
  const request = {
    X,
    Wq: WQ,
    Wk: columns(WK, v.kvHeads * HEAD_WIDTH),
    Wv: columns(WV, v.kvHeads * HEAD_WIDTH),
    heads: HEADS,
    kvHeads: v.kvHeads,
    causal: v.causal || v.kvCache,
    rope: v.rope,
    alibi: v.alibi,
  };
  if (v.window > 0) request.window = v.asymmetric ? { left: v.left, right: v.right } : v.window;
  if (v.window > 0 && v.global) request.globalTokens = [0];
  if (v.softcap > 0) request.softcap = v.softcap;
  if (v.bias && !v.cross) request.bias = biasMatrix(v.bias);
  if (v.dropout > 0) Object.assign(request, { dropout: v.dropout, dropoutSeed: v.seed });
  if (v.cross) request.context = CONTEXT;
  return request;
}

// The projected Q, K and V of the trace (the core's projections, all heads side by side).
const projections = (trace) => Object.fromEntries(['Q', 'K', 'V'].map((m) => [m, trace.steps.find((s) => s.id === `project-${m.toLowerCase()}`).values]));

// The alignments part: the last queries of the sequence against all its keys, causal only.
export const ALIGNMENT_QUERIES = 2;
export const ALIGNMENTS = ['top-left', 'bottom-right'];

/** The request of the alignments part under `causalAlignment`: the trace's own last Q rows, its K and V. */
export function alignmentRequest(v, trace, causalAlignment) {
  const { Q, K, V } = projections(trace);
  return { Q: Q.slice(-ALIGNMENT_QUERIES), K, V, heads: HEADS, kvHeads: v.kvHeads, causal: true, causalAlignment };
}

// The core takes no past cache with RoPE yet (the new tokens' angles would start at 0): with
// RoPE on, decoding starts from the first token whatever `past` says.
export const pastOf = (v) => (v.rope ? 0 : v.past);

/** decode()'s request: from the first token, or from a cache of the trace's first `past` keys and values. */
export function decodeRequest(v, trace) {
  const request = variantRequest(v);
  if (!(pastOf(v) > 0)) return request;
  const { K, V } = projections(trace);
  const fresh = { X: X.slice(v.past), pastKey: K.slice(0, v.past), pastValue: V.slice(0, v.past) };
  return { ...request, ...fresh, ...(request.bias ? { bias: request.bias.slice(v.past) } : {}) };
}

/** Row (query) and column (key) labels of the example's matrices. */
export const exampleLabels = (v) => ({ queries: TOKENS, keys: v.cross ? CONTEXT_TOKENS : TOKENS });
