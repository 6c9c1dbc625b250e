// Seeded inputs as number[][] from the core's generator (lab.normalMatrix): the same float32
// numbers for a seed in every run, so a float64 oracle sees the core's very numbers.

/** A flat { rows, cols, data } matrix as an array of rows. */
export const nested = (m) => Array.from({ length: m.rows }, (_, r) => Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols)));

/** rows × cols draws of N(0, 1) for `seed`, each times `spread`. */
export const seededRows = (lab, rows, cols, seed, spread = 1) => nested(lab.normalMatrix({ rows, cols, seed })).map((row) => row.map((x) => x * spread));
