// The efficient view's state (its fields, checked by view-state.js) and the names the view
// and its body share. Loaded with every page: kept small.
import { isNumberIn, SEED_FIELD, wholeField } from '../../shared/view-state.js';

export const HEADING = 'Cheaper attention: what each shortcut costs and changes';
export const MAX_TOKENS = 64;
/** The families in the picker's order (families.js describes each). */
export const FAMILY_IDS = ['linear', 'favor', 'retention', 'svd', 'linformer', 'bigbird', 'strided'];

const oneOf = (values) => [values[0], (v) => values.includes(v), `one of ${values.join(', ')}`];
export const FIELDS = {
  source: oneOf(['random', 'stepper']), // random Q, K, V of n rows, or the stepper's
  n: wholeField(8, 2, MAX_TOKENS),
  width: wholeField(4, 1, 16), // d = d_k = d_v of the random inputs
  seed: SEED_FIELD, // the inputs, FAVOR+'s features, Linformer's E and F, BigBird's random keys
  family: oneOf(FAMILY_IDS),
  causal: [true, (v) => typeof v === 'boolean', 'true or false'],
  featureMap: oneOf(['elu', 'relu']),
  features: wholeField(16, 1, 1024), // FAVOR+'s m
  decay: [0.9, (v) => isNumberIn(0.01, 1)(v), 'a number from 0.01 to 1'], // retention's γ
  rank: wholeField(2, 1, MAX_TOKENS), // SVD's k or Linformer's k
  window: wholeField(2, 1, MAX_TOKENS), // BigBird: keys with |i − j| < window
  globals: wholeField(1, 0, MAX_TOKENS), // BigBird: the first tokens are global
  random: wholeField(1, 0, MAX_TOKENS), // BigBird: random keys per query
  stride: wholeField(3, 1, MAX_TOKENS), // the strided pattern's s (with a window of s)
  token: wholeField(3, 0, MAX_TOKENS - 1), // the recurrent forms' token on view
};
