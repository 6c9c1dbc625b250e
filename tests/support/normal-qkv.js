// Seeded random Q, K and V for the tests and the benchmarks, drawn by the core
// (lab.normalMatrix), so Node, the browser and every script see the same numbers for a seed.
// Plain JavaScript with no imports: the browser tests load it by URL as well.

/**
 * Q, K and V of n rows and width d: rows 1…n, n+1…2n and 2n+1…3n of
 * lab.normalMatrix({ rows: 3n, cols: d, seed }), as flat { rows, cols, data }.
 */
export function normalQKV(lab, { n, d, seed }) {
  const { data } = lab.normalMatrix({ rows: 3 * n, cols: d, seed });
  const block = (i) => ({ rows: n, cols: d, data: data.slice(i * n * d, (i + 1) * n * d) });
  return [block(0), block(1), block(2)];
}
