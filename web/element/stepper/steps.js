// What each step shows: its result per head and the matrices that feed it, taken from the
// core's trace (the page slices and labels them; it computes nothing).
import { sub } from '../shared/format.js';

const columns = (m, first, count) => m.map((row) => row.slice(first, first + count));
const indexLabels = (count) => Array.from({ length: count }, (_, i) => String(i + 1));
const labels = (prefix, count) => Array.from({ length: count }, (_, i) => `${prefix}${sub(i)}`);

/** Query (row) and key (column) labels: the token names where the learner has them. */
export function tokenLabels(state) {
  const tokens = (count, prefix) =>
    Array.from({ length: count }, (_, i) => state.tokens[i] || `${prefix}${sub(i)}`);
  if (state.mode === 'x') {
    const names = tokens(state.X.length, 't');
    return { queries: names, keys: names };
  }
  return { queries: labels('q', state.Q.length), keys: tokens(state.K.length, 'k') };
}

/** The distinct step ids of a trace, in order: the stepper's stops. */
export const stepIds = (trace) => [...new Set(trace.steps.map((s) => s.id))];

function operand(name, caption, values, rowLabels, colLabels = indexLabels(values[0]?.length ?? 0), head) {
  return { name, caption, values, rowLabels, colLabels, head };
}

/**
 * The panels of step `id`: one per head for per-head steps, else one.
 * Each panel: { step (the trace step), head, operands: [...], result labels }.
 */
export function stepPanels(trace, state, id) {
  const { queries, keys } = tokenLabels(state);
  const byId = (stepId, head) => trace.steps.find((s) => s.id === stepId && s.head === head);
  const heads = state.heads;
  const headSuffix = (h) => (h === undefined ? '' : sub(h));
  // X as the projections see it: with the positional encoding added when it is on.
  const x = byId('positional')
    ? operand('positional', 'X + PE', byId('positional').values, queries)
    : operand('X', 'X', state.X, queries);
  const q = byId('project-q')?.values ?? state.Q;
  const k = byId('project-k')?.values ?? state.K;
  const v = byId('project-v')?.values ?? state.V;
  // Projected Q, K, V carry their step's name; given directly, the input's name.
  const [qName, kName, vName] = state.mode === 'x' ? ['project-q', 'project-k', 'project-v'] : ['Q', 'K', 'V'];
  const dk = q[0].length / heads;
  const dv = v[0].length / heads;
  const previous = (h) => byId('mask', h) ?? byId('scale', h);

  const feeding = {
    positional: () => [operand('X', `X (tokens)`, state.X, queries)],
    'project-q': () => [x, operand('Wq', 'W_Q', state.Wq, indexLabels(state.Wq.length))],
    'project-k': () => [x, operand('Wk', 'W_K', state.Wk, indexLabels(state.Wk.length))],
    'project-v': () => [x, operand('Wv', 'W_V', state.Wv, indexLabels(state.Wv.length))],
    scores: (h) => [
      operand(qName, `Q${headSuffix(h)}`, columns(q, (h ?? 0) * dk, dk), queries, undefined, h),
      operand(kName, `K${headSuffix(h)}`, columns(k, (h ?? 0) * dk, dk), keys, undefined, h),
    ],
    scale: (h) => [operand('scores', `S${headSuffix(h)}`, byId('scores', h).values, queries, keys)],
    mask: (h) => [operand('scale', `S̃${headSuffix(h)}`, byId('scale', h).values, queries, keys)],
    softmax: (h) => [operand(previous(h).id, `S̃${headSuffix(h)}`, previous(h).values, queries, keys)],
    aggregate: (h) => [
      operand('softmax', `A${headSuffix(h)}`, byId('softmax', h).values, queries, keys),
      operand(vName, `V${headSuffix(h)}`, columns(v, (h ?? 0) * dv, dv), keys, undefined, h),
    ],
    concat: () =>
      Array.from({ length: heads }, (_, h) => operand('aggregate', `O${sub(h)}`, byId('aggregate', h).values, queries, undefined, h),
      ),
    'output-projection': () => {
      const input = byId('concat') ?? byId('aggregate');
      return [
        operand(input.id, heads > 1 ? 'C' : 'O', input.values, queries),
        operand('Wo', 'W_O', state.Wo, indexLabels(state.Wo.length)),
      ];
    },
  };

  return trace.steps
    .filter((s) => s.id === id)
    .map((step) => ({
      step,
      head: step.head,
      operands: feeding[id](step.head),
      rowLabels: queries,
      colLabels: ['scores', 'scale', 'mask', 'softmax'].includes(id) ? keys : indexLabels(step.shape[1]),
    }));
}
