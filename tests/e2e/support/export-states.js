// Random element states over every option the stepper can show, for the export tests: the
// inputs in either mode (integer presets too), heads and K/V heads, causal with each
// alignment, windows, global tokens, key padding, masks, biases (shared or per head, with −∞
// cells), ALiBi, soft-capping, temperature, scale, RoPE, dropout, a past cache, positional
// encodings, a context, W_O, and the backward steps where the core follows them; and the
// cheaper attentions (linear with each φ, retention) with the options they take. Seeded, so a
// failure repeats.

export { seededRandom as seeded } from '../../../web/element/shared/random.js';

/** A random state's pieces: `random` from seeded(); `numericAlignment`: the core takes an integer causalAlignment. */
export function randomState(random, { numericAlignment }) {
  const chance = (p) => random() < p;
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const pick = (list) => list[int(0, list.length - 1)];
  // Integer presets (a teacher's [[1, 0], [0, 1]]) as well as decimals.
  const integers = chance(0.2);
  const value = () => (integers ? int(-2, 2) : Math.round((random() * 4 - 2) * 1000) / 1000);
  const matrix = (rows, cols) => Array.from({ length: rows }, () => Array.from({ length: cols }, value));
  const flags = (count, p) => Array.from({ length: count }, () => chance(p));

  // A quarter of the states compute a cheaper attention, which takes no score rules.
  const family = chance(0.25) ? pick(['linear', 'linear', 'retention']) : 'softmax';
  const softmax = family === 'softmax';
  const heads = pick([1, 1, 2, 2, 3, 4]);
  const kvHeads = chance(0.3) ? pick([0, 1, ...[2, 3, 4].filter((k) => heads % k === 0 && k <= heads)]) : 0;
  const kv = kvHeads || heads;
  const rope = softmax && chance(0.3);
  const dk = rope ? pick([2, 4]) : pick([1, 2, 3]);
  const dv = pick([1, 2, 3]);
  const past = softmax && !rope && chance(0.25) ? int(1, 3) : 0;
  const mode = chance(0.6) ? 'x' : 'qkv';
  const nq = int(1, 5);
  const context = mode === 'x' && !past && chance(0.15) ? int(1, 5) : 0;
  const nNew = mode === 'x' ? context || nq : int(1, 5);
  const nk = past + nNew; // every key: the cache's, then the new ones
  const state = {
    mode,
    heads,
    tokens: [],
    scale: family === 'retention' ? true : pick([true, true, false, Number((0.2 + random()).toFixed(3))]),
    temperature: softmax && chance(0.3) ? pick([0.5, 2, 0.7]) : 1,
  };
  if (family === 'linear') {
    const featureMap = pick(['elu', 'relu', 'favor']);
    Object.assign(state, { family, featureMap, ...(featureMap === 'favor' && { features: int(1, 6), seed: int(1, 100) }) });
  }
  if (family === 'retention') Object.assign(state, { family, decay: pick([1, 0.9, 0.5, Number((0.05 + random() * 0.95).toFixed(3))]) });
  if (mode === 'x') {
    const width = int(1, 5);
    state.tokens = Array.from({ length: nq }, (_, i) => `t${i}`);
    Object.assign(state, { X: matrix(nq, width), Wq: matrix(width, heads * dk), Wk: matrix(width, kv * dk), Wv: matrix(width, kv * dv) });
    if (context) state.context = matrix(context, width);
    if (!past && chance(0.4)) state.positional = 'sinusoidal';
  } else {
    Object.assign(state, { Q: matrix(nq, heads * dk), K: matrix(nNew, kv * dk), V: matrix(nNew, kv * dv) });
  }
  if (kvHeads) state.kvHeads = kvHeads;
  if (rope) Object.assign(state, { rope: true, ...(chance(0.3) ? { ropeBase: pick([100, 500, 10000]) } : {}) });
  if (past) Object.assign(state, { pastKey: matrix(past, kv * dk), pastValue: matrix(past, kv * dv) });
  if (chance(0.3)) state.Wo = matrix(heads * dv, int(1, 4));
  if (chance(0.5)) state.causal = true;
  if (!softmax) return { ...state, backward: false };
  if (chance(0.4)) state.causalAlignment = numericAlignment && chance(0.4) ? int(-nq, nk) : pick(['top-left', 'bottom-right']);
  if (chance(0.3)) state.window = pick([int(1, 3), { left: int(0, 3) }, { right: int(0, 2) }, { left: int(0, 2), right: int(0, 2) }]);
  if (state.window && chance(0.5)) state.globalTokens = [...new Set([int(0, Math.max(nq, nk) - 1), int(0, Math.max(nq, nk) - 1)])].sort((a, b) => a - b);
  if (chance(0.3)) state.keyPadding = flags(nk, 0.3);
  if (chance(0.25)) state.mask = Array.from({ length: nq }, () => flags(nk, 0.75));
  if (chance(0.3)) {
    const rows = chance(0.4) ? heads * nq : nq; // one bias per head, stacked, or one for all
    state.bias = matrix(rows, nk).map((row) => row.map((v) => (chance(0.1) ? -Infinity : v)));
  }
  if (chance(0.3)) state.alibi = true;
  if (chance(0.3)) state.softcap = pick([0.5, 1, 3, 5]);
  if (chance(0.2)) Object.assign(state, { dropout: pick([0.1, 0.5, 0.9]), dropoutSeed: int(0, 1000) });
  // The backward steps follow masks, softcap and bias; not RoPE, a cache, ALiBi, dropout, shared K/V or a context.
  const followed = !rope && !past && !state.alibi && !state.dropout && (!kvHeads || kvHeads === heads) && !context;
  state.backward = followed && chance(0.6);
  return state;
}
