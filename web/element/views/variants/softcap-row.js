// Softcap, one row before and after: the row of scaled scores with the largest |s̃| of any
// head, and the same row capped. Both rows are the core's softcap step (operand and result).
import { html } from 'lit';

import { matrixTable } from '../../shared/matrix-table.js';
import { TOKENS } from './example.js';

/** The softcap step's head and row holding the score farthest from 0. */
function widestRow(steps) {
  let best = { step: steps[0], row: 0, size: -1 };
  for (const step of steps) {
    step.operands[0].values.forEach((row, r) => {
      const size = Math.max(...row.map(Math.abs));
      if (size > best.size) best = { step, row: r, size };
    });
  }
  return best;
}

export function renderSoftcapRow(trace, labels) {
  const { step, row } = widestRow(trace.steps.filter((s) => s.id === 'softcap'));
  const c = step.softcap;
  return html`<section data-role="softcap-row">
    <h3>Softcap c = ${c}: head ${step.head + 1}, the row of “${TOKENS[row]}”</h3>
    ${matrixTable({
      name: 'softcap-row',
      caption: `before (s̃) and after (${c}·tanh(s̃ / ${c}))`,
      values: [step.operands[0].values[row], step.values[row]],
      rowLabels: ['before', 'after'],
      colLabels: labels.keys,
    })}
    <p>
      Why Gemma 2 caps: a very large logit saturates the softmax, putting nearly all the weight on one key (and its gradient
      near zero). c·tanh(s/c) keeps every score below c while leaving small scores almost unchanged, since tanh(x) ≈ x
      near 0.
    </p>
  </section>`;
}
