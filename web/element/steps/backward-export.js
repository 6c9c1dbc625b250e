// The backward steps' math for the NumPy and PyTorch exports, as forward-export.js does for
// the forward ones: each gradient from the operands the core's trace gives it (A, ∂O, the
// head's Q and K, …). grad-scores also reads the factor of its head's scale step and, under
// soft-capping, the cap of its softcap step: the trace holds both.

import { outputSymbol } from './backward-why.js';

const same = (...lines) => ({ numpy: lines, torch: lines });
const of = (operands, line) => ({ operands, ...same(line) });

// The step `id` of the same head as `step` (the trace's per-head steps carry `head`).
const sameHead = (trace, id, step) => trace.steps.find((s) => s.id === id && s.head === step.head);

/** @type {Record<string, import('./export-code.js').ExportMath>} */
export const BACKWARD_MATH = {
  // The upstream gradient at the output is given, not computed: its own numbers. (dY names it
  // whatever the output is called: O, C or Y.)
  'grad-output': {
    operands: [],
    fields: (step, trace) => [{ name: 'dY', kind: 'matrix', value: step.values, note: `∂L/∂${outputSymbol(trace) ?? 'output'}, the upstream gradient, given` }],
    ...same('dY'),
  },
  'grad-wo': of(['C', 'dY'], 'C.T @ dY'),
  'grad-concat': of(['dY', 'Wo'], 'dY @ Wo.T'),
  'grad-v': of(['A', 'dO'], 'A.T @ dO'),
  'grad-weights': of(['dO', 'V'], 'dO @ V.T'),
  'grad-softmax': {
    operands: ['A', 'dA'],
    numpy: ['A * (dA - (dA * A).sum(axis=1, keepdims=True))'],
    torch: ['A * (dA - torch.sum(dA * A, dim=1, keepdim=True))'],
  },
  // Through the cap c·tanh(x / c), whose derivative is 1 − (capped / c)², then the scale.
  'grad-scores': (step, trace) => {
    const factor = { name: 'factor', kind: 'scalar', value: sameHead(trace, 'scale', step)?.factor, note: "the scale step's factor" };
    if (step.operands.length === 1) return { operands: ['dS'], fields: () => [factor], ...same('factor * dS') };
    const c = { name: 'c', kind: 'scalar', value: sameHead(trace, 'softcap', step)?.softcap, note: "the softcap step's cap" };
    return { operands: ['dS', 'S_cap'], fields: () => [factor, c], ...same('factor * ((1 - (S_cap / c) ** 2) * dS)') };
  },
  'grad-q': of(['dS', 'K'], 'dS @ K'),
  'grad-k': of(['dS', 'Q'], 'dS.T @ Q'),
  'grad-wq': of(['X', 'dQ'], 'X.T @ dQ'),
  'grad-wk': of(['X', 'dK'], 'X.T @ dK'),
  'grad-wv': of(['X', 'dV'], 'X.T @ dV'),
  'grad-x': of(['dQ', 'Wq', 'dK', 'Wk', 'dV', 'Wv'], 'dQ @ Wq.T + dK @ Wk.T + dV @ Wv.T'),
};
