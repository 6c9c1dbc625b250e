// The positions view's demonstration inputs: a five-word sentence, its embeddings X (5 × 8)
// and one head's W_Q, W_K, W_V (8 × 4), all fixed seeded random numbers, so the page, the URL
// and the tests see the same ones. Plain data, importable in Node by the tests.
import { randomMatrix, seededRandom } from '../../shared/random.js';

export const SENTENCE = ['a', 'dog', 'bit', 'the', 'man'];
const D_MODEL = 8;
export const D_HEAD = 4;
const INPUT_SEED = 20_240;

const inputs = (() => {
  const random = seededRandom(INPUT_SEED);
  return {
    X: randomMatrix(SENTENCE.length, D_MODEL, random),
    Wq: randomMatrix(D_MODEL, D_HEAD, random),
    Wk: randomMatrix(D_MODEL, D_HEAD, random),
    Wv: randomMatrix(D_MODEL, D_HEAD, random),
  };
})();

/** The request lab.permutationCheck gets for a view state { positional }. */
export const permutationRequest = ({ positional }) => ({
  ...inputs,
  tokens: SENTENCE,
  positional: positional ? 'sinusoidal' : 'none',
});

/** A seeded shuffle (Fisher–Yates) of the sentence's positions: order[i] = old position. */
export function shuffledOrder(seed) {
  const random = seededRandom(seed);
  const order = SENTENCE.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}
