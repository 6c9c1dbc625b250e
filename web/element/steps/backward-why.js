// The "why" of each backward step: what the gradient says and why it has this form, with the
// live numbers of the trace on view (read off the core's results; nothing is recomputed).
import { fmt } from '../shared/format.js';

const q = (label) => `“${label}”`;

/**
 * The output of `trace` as its forward steps name it, whose gradient backward starts from: Y
 * after W_O, else C (the heads side by side) or O (one head). Without a trace, "the output".
 */
export function outputSymbol(trace) {
  const ids = trace?.groups.map((group) => group.id);
  if (!ids) return null;
  return ids.includes('output-projection') ? 'Y' : ids.includes('concat') ? 'C' : 'O';
}

// The entry of largest |value| in a matrix: { row, col, value }.
function largest(values) {
  let best = { row: 0, col: 0, value: 0 };
  values.forEach((r, row) =>
    r.forEach((value, col) => {
      if (Math.abs(value) > Math.abs(best.value)) best = { row, col, value };
    }),
  );
  return best;
}

// A tie for the largest |value| is said, as the forward steps say theirs.
const strongest = (what, values, rowName, colName) => {
  const { row, col, value } = largest(values);
  const ties = values.flat().filter((v) => fmt(Math.abs(v)) === fmt(Math.abs(value))).length - 1;
  const others = ties ? ` (${ties} other ${ties === 1 ? 'entry is' : 'entries are'} as large)` : '';
  return `The largest ${what} here is ${fmt(value)}, at ${rowName(row)}, ${colName(col)}${others}: nudging that entry up by a little ε changes L by about ${fmt(value)}·ε.`;
};
const nth = (i) => `row ${i + 1}`;
const col = (j) => `column ${j + 1}`;
const byKey = (labels) => (j) => `key ${q(labels.keys[j])}`;
const byQuery = (labels) => (i) => `query ${q(labels.queries[i])}`;
const byToken = (labels) => (i) => `token ${q(labels.queries[i])}`;

// A step whose live line names its entry of largest |value|; rowName and colName take the
// labels and give how a row or column reads ("row 2", "key “cat”").
const gradientWhy =
  (idea, what, rowName = () => nth, colName = () => col) =>
  ({ panel, labels }) => ({
    idea,
    live: strongest(what, panel.step.values, rowName(labels), colName(labels)),
  });

/** why(id) for each backward step id: ({ panel, labels }) → { idea, live }. */
export const BACKWARD_WHY = {
  'grad-output': ({ panel, trace }) => {
    const o = outputSymbol(trace);
    const d = o ? `∂L/∂${o}` : 'the gradient at the output';
    return {
      idea:
        `Backward starts from ${d}, the upstream gradient: for each entry of the output${o ? ` ${o}` : ''}, how much a loss L would change per unit change of that entry. ` +
        'Attention has no loss of its own: in a network, the layers after it hand this matrix down. Here you choose it: seeded random numbers by default, or your own (the state’s dOutput). It is all backward needs to know of L: ' +
        'every gradient after it follows from it by the chain rule, step by step back to the inputs.',
      live: strongest('entry', panel.step.values, nth, col),
    };
  },
  'grad-wo': gradientWhy(
    'Y = C·W_O, so each weight of W_O gathers, over all queries, the concatenated head output times the output gradient it feeds: Cᵀ·∂L/∂Y.',
    'gradient of W_O',
  ),
  'grad-concat': gradientWhy(
    'Back through W_O: ∂L/∂C = ∂L/∂Y·W_Oᵀ. Its columns split by head exactly as the concatenation joined them, so each head receives its own ∂L/∂O.',
    'entry',
  ),
  'grad-v': gradientWhy(
    'O = A·V, so a value row v_j collects the output gradients of every query that attended to key j, each weighted by that attention: ∂L/∂V = Aᵀ·∂L/∂O. A key nobody attends to gets no gradient.',
    'entry',
    byKey,
  ),
  'grad-weights': gradientWhy(
    'How the loss would change if a weight a_ij grew: the output gradient of query i against value j, ∂L/∂A = ∂L/∂O·Vᵀ. These do not yet respect that a row of weights must sum to 1; softmax takes care of that next.',
    'entry',
    byQuery,
    byKey,
  ),
  'grad-softmax': ({ panel, labels }) => ({
    idea: "Softmax ties a row together: raising one logit raises its weight and lowers all the others. Its Jacobian diag(a) − aaᵀ says by how much; applied to ∂L/∂A it gives a ⊙ (∂a − a·∂a): a key gains when its ∂a beats the row's weighted average. Masked cells have a = 0 and pass nothing.",
    live: `Row ${q(labels.queries[0])} subtracts the weighted average rowsum(∂A ⊙ A) = ${fmt(panel.step.rowDot[0])}; each row of this step sums to 0.`,
  }),
  'grad-scores': gradientWhy(
    'The scaled scores are the scores times one factor (1/√d_k, over the temperature), so their gradient is the same factor times ∂L/∂S̃. Masked cells stay 0.',
    'entry',
    byQuery,
    byKey,
  ),
  'grad-q': gradientWhy(
    'S = Q·Kᵀ, so a query moves toward the keys whose scores should rise and away from those that should fall: ∂L/∂Q = ∂L/∂S·K.',
    'entry',
    byQuery,
  ),
  'grad-k': gradientWhy('The same product seen from the keys: ∂L/∂K = ∂L/∂Sᵀ·Q, each key pulled by the queries that scored it.', 'entry', byKey),
  'grad-wq': gradientWhy(
    'Q = X·W_Q is shared by every token, so W_Q gathers the gradient of every query at once: ∂L/∂W_Q = Xᵀ·∂L/∂Q, over every head (each head owns its columns). This is what training follows.',
    'gradient of W_Q',
  ),
  'grad-wk': gradientWhy('The keys’ projection, the same way: ∂L/∂W_K = Xᵀ·∂L/∂K.', 'gradient of W_K'),
  'grad-wv': gradientWhy('The values’ projection: ∂L/∂W_V = Xᵀ·∂L/∂V.', 'gradient of W_V'),
  'grad-x': gradientWhy(
    'A token feeds its query, its key and its value, so its gradient adds the three paths: ∂L/∂Q·W_Qᵀ + ∂L/∂K·W_Kᵀ + ∂L/∂V·W_Vᵀ. The positional encoding has no parameters: X receives exactly what X + PE receives.',
    'entry',
    byToken,
  ),
};
