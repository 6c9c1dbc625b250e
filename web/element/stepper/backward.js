// The stepper's backward pass: the trace request with dOutput, softmax's Jacobian under the
// grad-softmax step, and "Check this gradient" on the gradient cells of the parameters. Every
// number is the core's (lab.trace, lab.normalMatrix, lab.checkGradient).
import { html, nothing } from 'lit';

import { fmt, shape } from '../shared/format.js';
import { matrixTable } from '../shared/matrix-table.js';
import { nestedMatrix } from '../../lib/nested.js';
import { traceRequest } from '../state.js';

// The default ∂L/∂Y: N(0, 1) draws from the core's seeded generator, not all ones. With ones
// (L = Σ Y) every column of ∂L/∂V would repeat A's column sums and no output would be asked
// to shrink; a signed, generic ∂L/∂Y shows the general case, the same numbers every time.
const DEFAULT_SEED = 17;

function defaultDOutput(lab, output) {
  return nestedMatrix(lab.normalMatrix({ rows: output.length, cols: output[0].length, seed: DEFAULT_SEED }));
}

/** The trace request of `state`: with dOutput (the state's, or the default) when backward is on. */
export function backwardRequest(lab, state) {
  const request = traceRequest(state);
  if (!state.backward) return request;
  return { ...request, dOutput: state.dOutput ?? defaultDOutput(lab, lab.trace(request).output) };
}

// The parameter checkGradient takes for a cell of a gradient step, and the cell's column in
// it (a per-head step's columns are its head's slice).
const PARAMETERS = { 'grad-q': 'Q', 'grad-k': 'K', 'grad-v': 'V', 'grad-wq': 'Wq', 'grad-wk': 'Wk', 'grad-wv': 'Wv', 'grad-wo': 'Wo', 'grad-x': 'X' };

/** Whether the cells of step `id` can be checked against finite differences. */
export const checkable = (id) => Object.hasOwn(PARAMETERS, id);

/** The check of cell { head, row, col } of step `id` (per-head steps: col within the head). */
export function checkGradient(lab, state, id, panel, { row, col }) {
  const width = panel.step.shape[1];
  return lab.checkGradient(backwardRequest(lab, state), { parameter: PARAMETERS[id], row, col: (panel.head ?? 0) * width + col });
}

/** The Jacobian diag(a) − aaᵀ of the focused row (or the first the core kept) of a grad-softmax panel. */
export function renderJacobian(panel, focusedRow, labels) {
  const { jacobianRows, jacobians } = panel.step;
  const index = Math.max(0, jacobianRows.indexOf(focusedRow ?? jacobianRows[0]));
  const row = jacobianRows[index];
  const values = jacobians[index];
  return html`<details open data-role="jacobian">
    <summary>Softmax's Jacobian for query ${labels.queries[row]}: diag(a) − aaᵀ, ∂aⱼ/∂s̃ₖ</summary>
    ${matrixTable({ name: 'softmax-jacobian', head: panel.head, caption: `J for row ${row + 1} (${shape(values.length, values[0].length)})`, values, rowLabels: labels.keys, colLabels: labels.keys })}
  </details>`;
}

/** The "Check this gradient" action and its last result, for a focused cell of a checkable step. */
export function renderCheck(check, onCheck) {
  return html`<div class="controls" data-role="gradient-check">
    <button data-action="check-gradient" @click=${onCheck}>Check this gradient</button>
    ${
      check
        ? html`<span data-role="gradient-check-result">analytic ${fmt(check.analytic)} · numeric (central differences, ε = ${check.epsilon.toExponential(0)}) ${fmt(check.numeric)} · relative error
          <span data-role="relative-error" data-value=${String(check.relativeError)}>${check.relativeError.toExponential(1)}</span></span>`
        : nothing
    }
  </div>`;
}
