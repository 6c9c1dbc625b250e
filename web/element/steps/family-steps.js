// The steps of the cheaper attentions (trace({ family: 'linear' | 'retention' })): linear
// attention's feature maps, state, normaliser and implied weights, retention's decay, state and
// weights. steps.js defines them in trace order after the projections (and RoPE's steps), with
// the checks of every entry. Every number is read off the trace (the core's linearAttention()
// and retention() computed it); the texts only lay them side by side.
import { fmt, fmtTerm, sub } from '../shared/format.js';
import { at, headCells } from './explain.js';

const q = (label) => `“${label}”`;

// The terms of a dot product written out: "1.2×0.5 + 0.3×2".
const terms = (a, b) => a.map((x, l) => `${fmtTerm(x)}×${fmtTerm(b[l])}`).join(' + ');
const column = (m, c) => m.map((row) => row[c]);
// Linear attention's steps take φ(K) as their operand; retention's take K as it is.
const isLinear = (panel) => panel.operands.some((o) => o.name === 'feature-k');

// ---- feature-q, feature-k: φ(Q), φ(K) ----

const featureExplain =
  (letter) =>
  ({ panel, row, col, value }) => {
    const input = panel.operands[0].values[row];
    // elu and relu map each entry on its own (same width); favor maps the whole row to m features.
    if (input.length === panel.step.values[0].length) {
      return { text: `φ(${letter}${at(row, col)}) = φ(${fmt(input[col])}) = ${fmt(value)}`, highlight: [{ cell: [row, col] }] };
    }
    return {
      text: `random feature ${col + 1} of ${letter}${sub(row)}: exp(w${sub(col)}·x − ‖x‖²/2)/√m = ${fmt(value)}, from the whole row`,
      highlight: [{ rows: [row] }],
    };
  };

const featureWhy =
  (letter, axis) =>
  ({ panel, labels }) => ({
    idea: `Linear attention replaces exp(q·k) by a product of features φ(q)·φ(k), with φ positive: elu(x) + 1 (x + 1 above 0, eˣ below) or relu entry by entry, or FAVOR+’s m random features exp(w·x − ‖x‖²/2)/√m of the whole row, whose product estimates exp(q·k) itself. Because the weight of a key is now a product, the sum over keys can be regrouped: the keys and values are summed once into a small state that every query reads.`,
    live: `${q(labels[axis][0])}: φ(${letter}${sub(0)}) = [${panel.step.values[0].map(fmt).join(', ')}].`,
  });

const FEATURE_STEPS = [
  ['feature-q', 'Q', 'q', 'queries'],
  ['feature-k', 'K', 'k', 'keys'],
].map(([id, symbol, letter, axis]) => ({
  id,
  name: `φ(${symbol}), features`,
  caption: `φ(${symbol}), the features of the ${axis}`,
  why: featureWhy(letter, axis),
  rows: axis,
  cols: 'features',
  perHead: true,
  explain: featureExplain(letter),
  predict: { elementwise: 'maps each entry to a positive number (elu + 1), or each row to its random features (favor)' },
}));

// ---- decay: retention's D ----

const DECAY_STEP = {
  id: 'decay',
  name: 'D, decay',
  caption: 'D, the decay γ^(i−j)',
  why: ({ panel, labels }) => {
    const d = panel.step.values;
    const gamma = d.length > 1 ? d[1][0] : 1;
    return {
      idea: 'Retention (RetNet) has no softmax: a key’s score is multiplied by γ once for every token between it and the query, so the past fades smoothly, and the future (above the diagonal) counts 0.',
      live: `γ = ${fmt(gamma)}: for ${q(labels.queries[d.length - 1])}, the first key counts ${fmt(d[d.length - 1][0])}.`,
    };
  },
  ...headCells('weights'),
  explain: ({ row, col, value }) => ({
    text: col > row ? `key ${col + 1} comes after query ${row + 1}: D${at(row, col)} = 0` : `D${at(row, col)} = γ^${row - col} = ${fmt(value)}`,
    highlight: [],
  }),
};

// ---- kv-state: φ(K)ᵀV (linear), S_n (retention) ----

const STATE_STEP = {
  id: 'kv-state',
  name: 'S, state',
  caption: 'S, the state',
  why: ({ panel }) => {
    const [rows, cols] = [panel.step.values.length, panel.step.values[0].length];
    return {
      idea: isLinear(panel)
        ? 'S = φ(K)ᵀV = Σⱼ φ(kⱼ)vⱼᵀ: every key’s features times its value, summed once. Each query then needs only φ(q)ᵀS, so no query is compared with every key: the n × n matrix is never needed, and the cost grows with n, not n².'
        : 'Retention’s recurrent form carries a state S_t = γ·S_{t−1} + k_tᵀv_t: one token at a time, the old state fades by γ and the new key–value pair is added. This is the state after the last token.',
      live: `S is ${rows} × ${cols} whatever the number of tokens: a KV cache would grow by a key and a value per token.`,
    };
  },
  rows: 'features',
  cols: 'features',
  perHead: true,
  transposed: 0, // φ(K) drawn as φ(K)ᵀ, as the formula writes it
  explain: ({ panel, row, col, value }) => {
    const [k, v] = panel.operands.map((o) => o.values);
    const products = terms(k[row], column(v, col));
    const text = isLinear(panel)
      ? `S${at(row, col)} = Σⱼ φ(kⱼ)${sub(row)}·vⱼ${sub(col)} = ${products} = ${fmt(value)}`
      : `S${at(row, col)} = Σⱼ γ^(n−1−j)·kⱼ${sub(row)}·vⱼ${sub(col)} = ${fmt(value)}: the products ${products}, each older one faded by γ once more`;
    return { text, highlight: [{ rows: [row] }, { cols: [col] }] };
  },
};

// ---- normalizer: z_i ----

const NORMALIZER_STEP = {
  id: 'normalizer',
  name: 'z, normaliser',
  caption: 'z, each query’s normaliser',
  why: ({ panel, labels }) => ({
    idea: 'Softmax divides by the sum of its exponentials; linear attention divides by z_i = φ(q_i)·Σⱼ φ(kⱼ), the sum of the query’s kernel values, so each row of implied weights still adds up to 1.',
    live: `${q(labels.queries[0])}: z${sub(0)} = ${fmt(panel.step.values[0][0])}.`,
  }),
  rows: 'queries',
  cols: 'features',
  perHead: true,
  explain: ({ row, value }) => ({
    text: `z${sub(row)} = φ(q${sub(row)})·Σⱼ φ(kⱼ) over the keys query ${row + 1} sees = ${fmt(value)}: row ${row + 1} of the implied weights is divided by it`,
    highlight: [{ rows: [row] }, {}],
  }),
};

// ---- implied-weights: the n × n weights the family implies ----

const WEIGHTS_STEP = {
  id: 'implied-weights',
  name: 'A, implied',
  weights: true,
  caption: 'A, the implied weights',
  why: ({ panel, labels }) => ({
    idea: isLinear(panel)
      ? 'Linear attention never forms these weights, but they are there: a_ij = φ(q_i)·φ(k_j) / z_i. Drawn here so they can be set beside softmax’s, cell by cell: each row sums to 1. With elu + 1 or relu the kernel is flatter than exp, so the weights are spread more evenly; FAVOR+’s random features estimate exp itself, so its weights come closer to softmax’s as m grows.'
      : 'Retention’s weights are the scores q_i·k_j times the decay D_ij: no softmax, no normaliser, so they can be negative and need not sum to 1.',
    live: `Row ${q(labels.queries[0])} sums to ${fmt(panel.step.rowTotals[0])}.`,
  }),
  ...headCells('weights'),
  transposed: 1, // φ(K) or K drawn transposed, as the formula writes it
  explain: ({ panel, row, col, value }) => {
    const [a, b, third] = panel.operands.map((o) => o.values);
    const products = terms(a[row], column(b, col));
    if (isLinear(panel)) {
      return {
        text: `a${at(row, col)} = φ(q${sub(row)})·φ(k${sub(col)}) / z${sub(row)} = (${products}) / ${fmt(third[row][0])} = ${fmt(value)}`,
        highlight: [{ rows: [row] }, { cols: [col] }, { cell: [row, 0] }],
      };
    }
    return {
      text: `a${at(row, col)} = (q${sub(row)}·k${sub(col)}) × D${at(row, col)} = (${products}) × ${fmt(third[row][col])} = ${fmt(value)}`,
      highlight: [{ rows: [row] }, { cols: [col] }, { cell: [row, col] }],
    };
  },
};

/** The families' entries, in the core's step order (step_ids). */
export const FAMILY_STEPS = [...FEATURE_STEPS, DECAY_STEP, STATE_STEP, NORMALIZER_STEP, WEIGHTS_STEP];
