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
  if (v.window > 0) request.window = v.window;
  if (v.window > 0 && v.global) request.globalTokens = [0];
  if (v.dropout > 0) Object.assign(request, { dropout: v.dropout, dropoutSeed: v.seed });
  if (v.cross) request.context = CONTEXT;
  return request;
}

/** Row (query) and column (key) labels of the example's matrices. */
export const exampleLabels = (v) => ({ queries: TOKENS, keys: v.cross ? CONTEXT_TOKENS : TOKENS });
