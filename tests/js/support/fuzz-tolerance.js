// How far a float32 result may be from the float64 reference, for the fuzz test. With the
// unit roundoff u = 2⁻²⁴: a dot product of d terms is within 2(d + 2)·u·Σ|terms| (any order,
// every partial sum bounded by the same Σ); if every logit of a row is within E, each softmax
// weight is within a factor e^(±2E); an output row is a convex combination of value rows.
import assert from 'node:assert/strict';

import { FLOAT32_MAX, matmul } from '../../support/float64-steps.js';

export const U = 2 ** -24;
/** Below float32's normal range (1.2e-38): what underflow may lose anywhere. */
export const TINY = 1e-37;
/** What one float32 operation may lose to underflow: within half of 2⁻¹⁴⁹, the least subnormal. */
export const SUBNORMAL = 2 ** -149;
/**
 * A valid request whose intermediates stay below this (the float64 bound on every partial
 * sum, see overflowBound) must not be refused as 'non-finite'.
 */
export const OVERFLOW_LIMIT = FLOAT32_MAX / 16;

export const maxAbs = (m) => Math.max(0, ...m.flat(2).map(Math.abs));

/**
 * Asserts |got − want| ≤ tol elementwise over equally shaped nested lists; tol is a number
 * or a list of the same shape. Equal values (infinities included) pass; NaN never does.
 */
export function near(what, got, want, tol) {
  if (Array.isArray(want)) {
    assert.ok(got && got.length === want.length, `${what}: ${got?.length} entries, reference ${want.length}`);
    want.forEach((w, i) => near(`${what}[${i}]`, got[i], w, Array.isArray(tol) ? tol[i] : tol));
  } else if (got !== want) {
    assert.ok(Math.abs(got - want) <= tol, `${what}: ${got}, reference ${want} (tolerance ${tol})`);
  }
}

/** A product's tolerance: each entry within 2(k + 2)·u of its Σ|terms|, and k underflows; k the inner size. */
export function productTolerance(magnitude, k) {
  return magnitude.map((row) => row.map((m) => 2 * (k + 2) * U * m + (k + 1) * SUBNORMAL + TINY));
}

/** Asserts got ≈ a · b within the tolerance of a float32 product. */
export function nearProduct(what, got, a, b) {
  const { value, magnitude } = matmul(a, b);
  near(what, got, value, productTolerance(magnitude, a[0].length));
}

/**
 * Each float32 logit's tolerance (reference attention `a`, head width d): its score's
 * (rounding and underflow) times the factor, and the factor's own (within u, or within
 * 2⁻¹⁵⁰ once subnormal).
 */
export function logitTolerance(a, d) {
  const factor = Math.abs(a.factor);
  return a.scoresMagnitude.map((row) => row.map((m) => m * (2 * (d + 5) * U * factor + SUBNORMAL) + (d + 2) * SUBNORMAL * factor + TINY));
}

/** The largest tolerance E of each row's unmasked logits. */
export function logitErrors(a, d) {
  return logitTolerance(a, d).map((row, i) => Math.max(TINY, ...row.filter((_, j) => !a.blocked[i][j])));
}

/**
 * Tolerances of a float32 softmax row (exponentials `e` and weights `w`) against float64's
 * when each logit is within E, worked in logs so that e^(−1e30) · e^(1e30) stays defined.
 */
export function softmaxTolerances(logits, max, sum, E) {
  const n = logits.length;
  const logSum = Math.log(sum);
  const widen = (logValue, extra) => Math.min(1, Math.exp(logValue + extra) - Math.exp(logValue)) + TINY;
  return logits.map((s) => {
    if (s === -Infinity) return { e: 0, w: 0 }; // masked: exactly 0
    const gap = max - s;
    const extra = 2 * E + U * gap + 2 * (n + 10) * U;
    return { e: widen(-gap, extra), w: widen(-gap - logSum, extra) };
  });
}

/** Each output entry's tolerance from its weights' tolerances (wTol) and float32's sum. */
export function outputTolerance(weights, wTol, V) {
  const n = V.length;
  return weights.map((w, i) =>
    V[0].map((_, c) => {
      let t = TINY;
      for (let j = 0; j < n; j++) t += Math.abs(V[j][c]) * (wTol[i][j] + 2 * (n + 2) * U * (w[j] + wTol[i][j]));
      return t;
    }),
  );
}

/** The tolerances of one head's reference attention `a` (head width d, values V). */
export function headTolerances(a, d, V) {
  const E = logitErrors(a, d);
  const scores = productTolerance(a.scoresMagnitude, d);
  const logit = logitTolerance(a, d);
  const soft = a.logits.map((row, i) => softmaxTolerances(row, a.rowMax[i], a.rowSum[i], E[i]));
  const e = soft.map((row) => row.map((t) => t.e));
  const w = soft.map((row) => row.map((t) => t.w));
  return {
    E,
    scores,
    logit,
    e,
    w,
    rowSum: a.rowSum.map((sum, i) => e[i].reduce((s, t) => s + t, 0) + 2 * (e[i].length + 2) * U * sum),
    output: outputTolerance(a.weights, w, V),
  };
}

/**
 * Each row of `output` lies within its values' range: weights are ≥ 0 and sum to 1, so an
 * output is a convex combination of the rows of V that its query may see (allowed(i, j)).
 */
export function assertConvex(what, output, V, allowed) {
  const slack = 2 * (V.length + 2) * U * maxAbs(V) + TINY;
  output.forEach((row, i) =>
    row.forEach((o, c) => {
      const seen = V.filter((_, j) => allowed(i, j)).map((v) => v[c]);
      assert.ok(
        o >= Math.min(...seen) - slack && o <= Math.max(...seen) + slack,
        `${what}[${i}][${c}] = ${o} is outside its values' range [${Math.min(...seen)}, ${Math.max(...seen)}]`,
      );
    }),
  );
}
