// A float64 reference for the attention math, written from the formulas for the tests (the
// fuzz test's oracle). It shares no code with the core and takes the inputs as the core sees
// them: the caller rounds them to float32 first. Matrices are number[][].
// Plain JavaScript with no imports, like the other oracles here.

export const FLOAT32_MAX = 3.4028234663852886e38;

/** (rows, cols) filled by at(i, j). */
export const build = (rows, cols, at) => Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => at(i, j)));

/** Columns [first, first + count) of m: one head's slice. */
export const columns = (m, first, count) => m.map((row) => row.slice(first, first + count));

/**
 * a: (m, k) · b: (k, n) in float64, and the sum of |a_il · b_lj| per entry: what bounds both
 * the rounding of a float32 sum and every partial sum on the way (any order).
 */
export function matmul(a, b) {
  const n = b[0]?.length ?? 0;
  const value = build(a.length, n, () => 0);
  const magnitude = build(a.length, n, () => 0);
  a.forEach((row, i) =>
    row.forEach((x, l) =>
      b[l].forEach((y, j) => {
        value[i][j] += x * y;
        magnitude[i][j] += Math.abs(x * y);
      }),
    ),
  );
  return { value, magnitude };
}

export const transpose = (m) => build(m[0]?.length ?? 0, m.length, (i, j) => m[j][i]);

/** Why key j is hidden from query i: bit 1 causal (j > i), 2 key padding, 4 the mask says no. */
export function blockedBy({ causal, keyPadding, mask }, i, j) {
  return (causal && j > i ? 1 : 0) | (keyPadding?.[j] ? 2 : 0) | (mask && !mask[i][j] ? 4 : 0);
}

/** Softmax of one row of logits (-Infinity = masked); a row with nothing finite is all zeros. */
export function softmax(logits) {
  const max = Math.max(...logits);
  if (max === -Infinity) return { max, exponentials: logits.map(() => 0), sum: 0, weights: logits.map(() => 0) };
  const exponentials = logits.map((x) => Math.exp(x - max));
  const sum = exponentials.reduce((s, e) => s + e, 0);
  return { max, exponentials, sum, weights: exponentials.map((e) => e / sum) };
}

/**
 * One head: softmax(Q·Kᵀ · scale / temperature, masked) · V, every intermediate, with
 * scale defaulting to 1/√d_k. scoresMagnitude is Σ|q·k| per score (see matmul).
 */
export function attention({ Q, K, V, causal = false, keyPadding, mask, scale, temperature = 1 }) {
  const { value: scores, magnitude: scoresMagnitude } = matmul(Q, transpose(K));
  const base = scale ?? 1 / Math.sqrt(Q[0].length);
  const factor = base / temperature;
  const scaled = scores.map((row) => row.map((s) => s * factor));
  const blocked = build(Q.length, K.length, (i, j) => blockedBy({ causal, keyPadding, mask }, i, j));
  const logits = scaled.map((row, i) => row.map((s, j) => (blocked[i][j] ? -Infinity : s)));
  const rows = logits.map(softmax);
  const weights = rows.map((r) => r.weights);
  return {
    scores,
    scoresMagnitude,
    scale: base,
    factor,
    scaled,
    blocked,
    logits,
    rowMax: rows.map((r) => r.max),
    exponentials: rows.map((r) => r.exponentials),
    rowSum: rows.map((r) => r.sum),
    weights,
    output: matmul(weights, V).value,
    fullyMaskedRows: rows.flatMap((r, i) => (r.sum === 0 ? [i] : [])),
  };
}

/** Heads side by side: attention() on each head's columns of Q, K and V, and their concatenation. */
export function multiHead({ Q, K, V, heads = 1, ...options }) {
  const dk = Q[0].length / heads;
  const dv = V[0].length / heads;
  const each = Array.from({ length: heads }, (_, h) =>
    attention({
      ...options,
      Q: columns(Q, h * dk, dk),
      K: columns(K, h * dk, dk),
      V: columns(V, h * dv, dv),
    }),
  );
  return { heads: each, concat: Q.map((_, i) => each.flatMap((r) => r.output[i])) };
}

/** PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(the same angle): (tokens, width). */
export function sinusoidal(tokens, width) {
  return build(tokens, width, (p, c) => {
    const angle = p / 10000 ** ((c - (c % 2)) / width);
    return c % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
  });
}

/**
 * The WebGPU tile plan for head width d (README, "Long sequences"): 64 query rows, the
 * largest power-of-two key tile Bc ≤ 64 with K and V tiles in 16,384 bytes, 256 keys per CPU
 * step; null outside 1 … 512.
 */
export function tilePlan(d) {
  if (!(d >= 1 && d <= 512)) return null;
  let keyRows = 64;
  while (keyRows > 1 && 2 * keyRows * d * 4 > 16384) keyRows /= 2;
  return { queryRows: 64, keyRows, headWidth: d, cpuKeyRows: 64, workgroupStorageBytes: 2 * keyRows * d * 4 };
}
