// A small valid request for every entry of the package that takes one, so a test can add one
// bad thing to it and know that the bad thing, not the rest, is what gets refused.
import { tinyQKV } from '../../support/tiny-example.js';
const { Q, K, V } = tinyQKV();
const X = [
  [1, 0],
  [0, 1],
  [1, 1],
];
const W = [
  [1, 0],
  [0, 1],
];

/** entry → () => a fresh valid request (nested arrays, so a test may change them). */
export const VALID_REQUESTS = {
  attention: () => ({ Q: structuredClone(Q), K: structuredClone(K), V: structuredClone(V), keyPadding: [false, false, false] }),
  attentionBackward: () => ({
    Q,
    K,
    V,
    dO: [
      [1, -1],
      [0.5, 2],
    ],
    causal: true,
  }),
  trace: () => ({ X: structuredClone(X), Wq: W, Wk: W, Wv: W, tokens: ['a', 'b', 'c'] }),
  permutationCheck: () => ({ X: structuredClone(X), Wq: W, Wk: W, Wv: W, order: [2, 0, 1] }),
  decode: () => ({ X: structuredClone(X), Wq: W, Wk: W, Wv: W, rope: true }),
  kvCacheBytes: () => ({ layers: 80, kvHeads: 8, headDim: 128, bytesPerValue: 2 }),
  flashAttention: () => ({ Q, K, V, causal: true }),
  naiveAttention: () => ({ Q, K, V }),
  checkFlashAttention: () => ({ Q, K, V }),
  sampledWeights: () => ({ Q, K, rows: [0, 1], cols: [0, 2] }),
  sinusoidalEncoding: () => ({ tokens: 4, width: 6 }),
  softmaxBreakdown: () => ({ scores: [1, 2, 3] }),
  tilePlan: () => ({ headWidth: 64 }),
  scalingStudy: () => ({ dims: [2, 4], samples: 4 }),
  normalMatrix: () => ({ rows: 2, cols: 3 }),
  linearAttention: () => ({ Q: structuredClone(Q), K: structuredClone(K), V: structuredClone(V), featureMap: 'relu' }),
  retention: () => ({ Q: structuredClone(K), K: structuredClone(K), V: structuredClone(V), decay: 0.9 }),
  sparsePattern: () => ({ queries: 4, window: 2, globalTokens: [0, 3] }),
  lowRankAttention: () => ({ Q: structuredClone(Q), K: structuredClone(K), V: structuredClone(V), rank: 2 }),
  longLinearAttention: () => ({ Q: structuredClone(K), K: structuredClone(K), V: structuredClone(V), causal: true }),
  longRetention: () => ({ Q: structuredClone(K), K: structuredClone(K), V: structuredClone(V), decay: 0.9 }),
};
