// Seeded inputs as number[][]: from the core's generator (lab.normalMatrix), the same float32
// numbers for a seed in every run, so a float64 oracle sees the core's very numbers; or from the
// fuzz tests' generator (uniformDraws), drawn in JavaScript.
import { random } from './fuzz-requests.js';

/** A flat { rows, cols, data } matrix as an array of rows. */
export const nested = (m) => Array.from({ length: m.rows }, (_, r) => Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols)));

/** rows × cols draws of N(0, 1) for `seed`, each times `spread`. */
export const seededRows = (lab, rows, cols, seed, spread = 1) => nested(lab.normalMatrix({ rows, cols, seed })).map((row) => row.map((x) => x * spread));

/** A draw function: each call one value in [-2, 2) from the fuzz tests' generator seeded with `seed`. */
export const uniformDraws = (seed) => {
  const r = random(seed);
  return () => 4 * r.float() - 2;
};

/** rows × cols values, each a call of draw(). */
export const drawnMatrix = (rows, cols, draw) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => draw()));
