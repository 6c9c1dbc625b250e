// Random attention inputs for the views that time kernels (cost, long-sequence), drawn by
// the core so a seed means the same numbers in the page, the scripts and the tests.

/**
 * Q, K and V of n rows and width d: rows 1…n, n+1…2n and 2n+1…3n of
 * lab.normalMatrix({ rows: 3n, cols: d, seed }), as flat { rows, cols, data } views.
 */
export function randomQKV(lab, { n, d, seed }) {
  const { data } = lab.normalMatrix({ rows: 3 * n, cols: d, seed });
  const block = (i) => ({ rows: n, cols: d, data: data.subarray(i * n * d, (i + 1) * n * d) });
  return { Q: block(0), K: block(1), V: block(2) };
}
