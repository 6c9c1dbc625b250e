// The efficient view's families: each one's request to the core (lab.linearAttention,
// lab.retention, lab.lowRankAttention, lab.sparsePattern with lab.attention) and what the view
// compares with exact softmax attention (lab.attention on the same Q, K and V). The attention
// rules are the core's alone; here are only the requests and the error measures taken on the
// core's numbers.

import { FAMILY_IDS } from '../fields.js';

const INFO = {
  linear: { label: 'Linear (elu + 1 or relu)', causal: true },
  favor: { label: 'Random features (FAVOR+)', causal: true },
  retention: { label: 'Retention (decay γ)', causal: 'always' },
  svd: { label: 'Low rank: SVD of A', causal: true },
  linformer: { label: 'Low rank: Linformer', causal: false },
  bigbird: { label: 'Sparse: BigBird', causal: true },
  strided: { label: 'Sparse: strided', causal: true },
};
/** The families in the picker's order: id, label, and whether it has a causal form here ('always': retention). */
export const FAMILIES = FAMILY_IDS.map((id) => ({ id, ...INFO[id] }));
export const familyOf = (id) => FAMILIES.find((f) => f.id === id);

/** Whether the family runs causal for view state v (retention always; Linformer never: it mixes every key). */
export function causalOf(v) {
  const { causal } = familyOf(v.family);
  return causal === 'always' ? true : causal ? v.causal : false;
}

/** Whether the family steps token by token with a state: linear attention's causal forms and retention. */
export const isRecurrent = (v) => (v.family === 'linear' || v.family === 'favor' ? causalOf(v) : v.family === 'retention');

/** The BigBird or strided pattern's request for n tokens of width d. */
export function patternRequest(v, n, d) {
  if (v.family === 'strided') return { queries: n, stride: v.stride, window: v.stride, headWidth: d };
  const globalTokens = Array.from({ length: Math.min(v.globals, n) }, (_, i) => i);
  return { queries: n, window: v.window, globalTokens, random: v.random, seed: v.seed, headWidth: d };
}

/** The family's own request (without Q, K, V) for view state v. */
function familyRequest(v) {
  const causal = causalOf(v);
  switch (v.family) {
    case 'linear':
      return { featureMap: v.featureMap, causal, form: causal ? 'recurrent' : 'parallel' };
    case 'favor':
      return { featureMap: 'favor', features: v.features, seed: v.seed, causal, form: causal ? 'recurrent' : 'parallel' };
    case 'retention':
      return { decay: v.decay, form: 'parallel' };
    case 'svd':
      return { method: 'svd', rank: v.rank, causal };
    case 'linformer':
      return { method: 'linformer', rank: v.rank, seed: v.seed };
    default:
      return null; // the sparse families: a pattern, then attention({ mask })
  }
}

/**
 * The core's numbers for one family on { Q, K, V }: the exact weights and output (softmax,
 * with the same causal rule), the family's weights and output, and what it returns besides
 * (the pattern, the spectrum, the state). Throws the core's AttnLabError.
 */
export function computeFamily(lab, v, { Q, K, V }) {
  const causal = causalOf(v);
  const exact = lab.attention({ Q, K, V, causal });
  const request = { Q, K, V, ...familyRequest(v) };
  switch (v.family) {
    case 'linear':
    case 'favor': {
      const r = lab.linearAttention(request);
      return { exact, weights: r.weights, output: r.output, distribution: true, linear: r };
    }
    case 'retention': {
      const r = lab.retention(request);
      return { exact, weights: r.weights, output: r.output, distribution: false, retention: r };
    }
    case 'svd':
    case 'linformer': {
      const r = lab.lowRankAttention(request);
      return { exact, weights: r.weights, output: r.output, distribution: false, lowRank: r };
    }
    default: {
      const pattern = lab.sparsePattern(patternRequest(v, Q.length, Q[0].length));
      const r = lab.attention({ Q, K, V, causal, mask: pattern.mask });
      return { exact, weights: r.weights, output: r.output, distribution: true, pattern };
    }
  }
}

/**
 * The prefix 0 … t of a recurrent family, computed by the core: the state after token t (S_t,
 * and z_t for linear attention) and output row t, read off the last row of the prefix.
 */
export function recurrentStep(lab, v, { Q, K, V }, t) {
  const prefix = (m) => m.slice(0, t + 1);
  const request = { Q: prefix(Q), K: prefix(K), V: prefix(V), ...familyRequest(v) };
  if (v.family === 'retention') {
    const r = lab.retention({ ...request, form: 'recurrent' });
    return { state: r.state, normalizer: null, output: r.output[t] };
  }
  const r = lab.linearAttention({ ...request, form: 'recurrent' });
  return { state: r.kvState, normalizer: r.keySum, output: r.output[t] };
}

// ---- Error measures on the core's numbers ----

/** Per row: the largest |family − exact| of the weights, and KL(family ‖ exact) in nats where both rows are distributions. */
export function rowErrors(weights, exact, distribution) {
  return exact.map((row, i) => {
    let maxAbs = 0;
    let kl = 0;
    for (let j = 0; j < row.length; j++) {
      const w = weights[i][j];
      maxAbs = Math.max(maxAbs, Math.abs(w - row[j]));
      // 0·ln(0/a) is 0; a weight where softmax's is 0 (a masked key) makes KL infinite.
      if (distribution && w > 0) kl += row[j] > 0 ? w * Math.log(w / row[j]) : Infinity;
    }
    return { maxAbs, kl: distribution ? Math.max(0, kl) : null };
  });
}

/** Per row, the largest |family − exact| of the output; and the whole ‖O − O_exact‖_F. */
export function outputErrors(output, exact) {
  let sum = 0;
  const rows = exact.map((row, i) =>
    row.reduce((m, x, j) => {
      const d = output[i][j] - x;
      sum += d * d;
      return Math.max(m, Math.abs(d));
    }, 0),
  );
  return { rows, frobenius: Math.sqrt(sum) };
}

// ---- Cost: multiply-adds counted as the core counts a cell (sparsePattern: 2·d for q·k, 2·d for w·v) ----

export const COST_SIZES = [256, 1024, 4096, 16384, 65536];

/**
 * FLOPs of one head of width d at n tokens: exact 4·n²·d; linear 4·n·f·d (the state φ(K)ᵀV and
 * each φ(q)·S, f features: d, or m for FAVOR+); Linformer 4·k·n·d to project K and V and
 * 4·n·k·d for the n × k scores and their sum. (A sparse pattern's count is the core's:
 * sparsePattern's flops, at the n on view.)
 */
export function flopsAt(n, d, { features, rank }) {
  return { exact: 4 * n * n * d, linear: 4 * n * features * d, lowRank: 8 * n * rank * d };
}
