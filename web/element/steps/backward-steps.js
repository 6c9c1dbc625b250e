// The backward steps (the trace with dOutput), described once like the forward ones in
// steps.js: gradients are signed, so they are drawn on the diverging 'gradients' scale
// (colors.js). The numbers in the explanations are the trace's; products are written out by
// explain.js as the panels draw them (Aᵀ, Vᵀ… transposed as the formulas write them).
import { fmt, fmtTerm } from '../shared/format.js';
import { BACKWARD_WHY, outputSymbol } from './backward-why.js';
import { at, headCells, productOf } from './explain.js';
import { defineStep } from './steps.js';

const same = (row, col) => [{ cell: [row, col] }];

// Each backward step's why is its entry in backward-why.js.
const defineBackward = (step) => defineStep({ ...step, why: BACKWARD_WHY[step.id] });

// [id, name, caption, rows, cols, perHead, transposed operand, product symbol]
const PRODUCTS = [
  ['grad-wo', '∂W_O', '∂L/∂W_O, W_O’s gradient', 'features', 'features', false, 0, '∂W_O'],
  ['grad-concat', '∂C', '∂L/∂C, each head’s ∂O side by side', 'queries', 'features', false, 1, '∂C'],
  ['grad-v', '∂V', '∂L/∂V, the values’ gradient', 'keys', 'features', true, 0, '∂V'],
  ['grad-weights', '∂A', '∂L/∂A, the weights’ gradient', 'queries', 'keys', true, 1, '∂A'],
  ['grad-q', '∂Q', '∂L/∂Q, the queries’ gradient', 'queries', 'features', true, undefined, '∂Q'],
  ['grad-k', '∂K', '∂L/∂K, the keys’ gradient', 'keys', 'features', true, 0, '∂K'],
  ['grad-wq', '∂W_Q', '∂L/∂W_Q, W_Q’s gradient', 'features', 'features', false, 0, '∂W_Q'],
  ['grad-wk', '∂W_K', '∂L/∂W_K, W_K’s gradient', 'features', 'features', false, 0, '∂W_K'],
  ['grad-wv', '∂W_V', '∂L/∂W_V, W_V’s gradient', 'features', 'features', false, 0, '∂W_V'],
];

/** Adds the backward entries after the forward ones (registry.js calls it once, at load). */
export function defineBackwardSteps() {
  defineBackward({
    id: 'grad-output',
    name: 'Upstream ∂, given',
    caption: 'the upstream gradient at the output',
    rows: 'queries',
    cols: 'features',
    heat: 'gradients',
    explain: ({ row, col, value, trace }) => ({
      text: `∂L/∂${outputSymbol(trace) ?? 'output'}${at(row, col)} = ${fmt(value)}: chosen, not computed (the upstream gradient), where backward starts`,
      highlight: [],
    }),
  });

  for (const [id, name, caption, rows, cols, perHead, transposed, symbol] of PRODUCTS) {
    defineBackward({
      id,
      name,
      caption,
      rows,
      cols,
      heat: 'gradients',
      ...(perHead ? { perHead } : {}),
      ...(transposed === undefined ? {} : { transposed }),
      explain: productOf(symbol),
    });
    if (id === 'grad-weights') defineSoftmaxAndScale();
  }

  // grad-softmax and grad-scores come between grad-weights and grad-q, in the core's order.
  function defineSoftmaxAndScale() {
    defineBackward({
      id: 'grad-softmax',
      name: '∂S̃, softmax',
      detail: 'jacobian',
      caption: '∂L/∂S̃, through softmax',
      ...headCells('gradients'),
      explain: ({ panel, row, col, value }) => {
        const [a, dA] = panel.operands.map((o) => o.values[row][col]);
        const dot = panel.step.rowDot[row];
        return {
          text: `∂S̃${at(row, col)} = a${at(row, col)} × (∂a${at(row, col)} − Σₖ ∂aₖ·aₖ) = ${fmt(a)} × (${fmt(dA)} − ${fmtTerm(dot)}) = ${fmt(value)}`,
          highlight: [
            { rows: [row], cell: [row, col] },
            { rows: [row], cell: [row, col] },
          ],
        };
      },
    });
    defineBackward({
      id: 'grad-scores',
      name: '∂S, scores',
      caption: '∂L/∂S, the scores’ gradient',
      ...headCells('gradients'),
      explain: ({ panel, row, col, value }) => {
        const input = panel.operands[0].values[row][col];
        return {
          text: `∂S${at(row, col)} = factor × ∂S̃${at(row, col)} = ${fmt(input)} → ${fmt(value)}${value === 0 ? ' (masked or weight 0: no gradient)' : ''}`,
          highlight: same(row, col),
        };
      },
    });
  }

  defineBackward({
    id: 'grad-x',
    name: '∂X',
    caption: '∂L/∂X, the tokens’ gradient',
    rows: 'queries',
    cols: 'features',
    heat: 'gradients',
    explain: ({ row, col, value }) => ({
      text: `∂X${at(row, col)} = row ${row + 1} of ∂Q · row ${col + 1} of W_Q + the same for K and V = ${fmt(value)}`,
      highlight: [{ rows: [row] }, { rows: [col] }, { rows: [row] }, { rows: [col] }, { rows: [row] }, { rows: [col] }],
    }),
  });
}
