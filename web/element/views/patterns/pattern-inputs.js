// Inputs for the "which pattern is this?" exercise: from a seed, Q, K and V (and the causal
// flag) that make one of the five classic weight patterns, varied in token count, strength
// and values. Only the inputs are built here; the weights come from the core.
import { randomMatrix, seededRandom } from '../../shared/random.js';
import { round2 } from '../../shared/view-state.js';

/** The five patterns, in the gallery's order; their ids are also stepper presets. */
export const PATTERN_IDS = ['self', 'uniform', 'sharp', 'local', 'causal'];

const square = (n, value) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => round2(value(i, j))));

/**
 * { pattern, request: { Q, K, V, causal } } for seed (a whole number). n is 4…7 tokens, the
 * strength s 3.5…5 (large enough that scaled scores of s²/√n beat the rest clearly).
 */
export function exerciseInputs(seed) {
  const random = seededRandom(seed);
  const pattern = PATTERN_IDS[Math.floor(random() * PATTERN_IDS.length)];
  const n = 4 + Math.floor(random() * 4);
  const s = 3.5 + Math.round(random() * 15) / 10;
  const jitter = (size) => (random() * 2 - 1) * size;
  const V = randomMatrix(n, 2, random);
  const request = (Q, K, causal = false) => ({ pattern, request: { Q, K, V, causal } });

  switch (pattern) {
    case 'self': // query i and key i are the same strong one-hot vector: only the diagonal matches
      return request(
        square(n, (i, j) => (i === j ? s : 0) + jitter(0.2)),
        square(n, (i, j) => (i === j ? s : 0) + jitter(0.2)),
      );
    case 'uniform': // near-zero queries give near-equal scores, whatever the keys
      return request(
        square(n, () => jitter(0.05)),
        square(n, () => jitter(1)),
      );
    case 'sharp': {
      // every query points along the first axis, and only one key (the target) does too
      const target = Math.floor(random() * n);
      return request(
        square(n, (i, j) => (j === 0 ? s : 0) + jitter(0.2)),
        square(n, (i, j) => (i === target ? (j === 0 ? s : 0) : j === 0 ? 0 : jitter(1))),
      );
    }
    case 'local': // key j matches the queries of tokens j−1, j and j+1: a band
      return request(
        square(n, (i, j) => (i === j ? s : 0) + jitter(0.2)),
        square(n, (i, j) => (Math.abs(i - j) <= 1 ? s : 0)),
      );
    default: // causal: ordinary random queries and keys, with the causal mask
      return request(randomMatrix(n, n, random), randomMatrix(n, n, random), true);
  }
}
