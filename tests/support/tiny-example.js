// The tiny example (the README's): 2 queries over 3 keys, worked by hand in the docs. A fresh
// copy each call, so a test may change its own. Plain JavaScript with no imports.

/** Q (2 × 2), K (3 × 2) and V (3 × 2) of the tiny example. */
export const tinyQKV = () => ({
  Q: [
    [1, 0],
    [0, 1],
  ],
  K: [
    [1, 0],
    [1, 1],
    [0, 1],
  ],
  V: [
    [1, 0],
    [0, 2],
    [1, 1],
  ],
});

/** The n × n identity, as nested arrays. */
export const identity = (n) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));

/** X (3 tokens × 2) with its projections Wq, Wk, Wv (2 × 2): the X-mode example of the request tests. */
export const tinyX = () => ({
  X: [
    [1, 0],
    [0, 1],
    [1, 1],
  ],
  Wq: [
    [1, 0],
    [0, 1],
  ],
  Wk: [
    [1, 1],
    [0, 1],
  ],
  Wv: [
    [2, 0],
    [0, 1],
  ],
});
