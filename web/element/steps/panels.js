// What the stepper shows of a step: one panel per trace entry (one per head for per-head
// steps), each with its result and the operands that fed it, as the core's trace groups
// them. This file only labels them (token names, subscripts); it computes nothing.
import { headMark, sub } from '../shared/format.js';
import { axesOf, stepEntry } from './registry.js';

/** Column labels 1 … count, for a matrix whose columns are features. */
export const indexLabels = (count) => Array.from({ length: count }, (_, i) => String(i + 1));

/** Query (row) and key (column) labels: the token names where the learner has them. */
export function tokenLabels(state) {
  const tokens = (count, prefix) => Array.from({ length: count }, (_, i) => state.tokens[i] || `${prefix}${sub(i)}`);
  if (state.mode === 'x') {
    const names = tokens(state.X.length, 't');
    return { queries: names, keys: names };
  }
  return { queries: Array.from({ length: state.Q.length }, (_, i) => `q${sub(i)}`), keys: tokens(state.K.length, 'k') };
}

/**
 * The weights of head `head` (undefined for one head) that a rule blocked, true where the
 * core's mask step says why (its blockedBy flags); matrixTable hatches them. No mask step: no
 * rule blocks a cell.
 */
export function blockedWeights(trace, head) {
  return trace.steps.find((s) => s.id === 'mask' && s.head === head)?.blockedBy.map((row) => row.map((why) => why !== 0));
}

/** The distinct step ids of a trace, in order: the stepper's stops. */
export const traceStepIds = (trace) => trace.groups.map((group) => group.id);

/** The title of step `id` (the same for each of its heads). */
export const stepTitle = (trace, id) => trace.groups.find((group) => group.id === id)?.title ?? id;

const axisLabels = (axis, labels, count) => (axis === 'features' ? indexLabels(count) : labels[axis]);

// A matrix with its labels, for matrixTable: `name` is a step id or an input's name.
function labelled(name, values, labels) {
  const axes = axesOf(name);
  return {
    rowLabels: axisLabels(axes.rows, labels, values.length),
    colLabels: axisLabels(axes.cols, labels, values[0]?.length ?? 0),
  };
}

function operandOf(o, labels) {
  return {
    name: o.name,
    head: o.head,
    caption: o.head === undefined ? o.symbol : `${o.symbol}${headMark(o.head)}`,
    values: o.values,
    ...labelled(o.name, o.values, labels),
  };
}

// An operand drawn as its formula writes it, transposed (Kᵀ under S = QKᵀ): its rows become
// columns. Only the layout changes; every number is the core's.
function transposed(o) {
  return {
    ...o,
    caption: `${o.caption}ᵀ`,
    values: (o.values[0] ?? []).map((_, c) => o.values.map((row) => row[c])),
    rowLabels: o.colLabels,
    colLabels: o.rowLabels,
    ...(o.blocked && { blocked: (o.blocked[0] ?? []).map((_, c) => o.blocked.map((row) => row[c])) }),
  };
}

// Weights (the softmax step's result, wherever an operand) carry the cells a mask blocked, so
// that they are hatched where they are drawn, transposed (Aᵀ under ∂L/∂V) or not.
function withBlocked(o, trace, head) {
  return o.name === 'softmax' ? { ...o, blocked: blockedWeights(trace, o.head ?? head) } : o;
}

/**
 * The panels of step `id`: [{ step (the trace's entry), head, operands, rowLabels, colLabels }],
 * each operand { name, head, caption, values, rowLabels, colLabels }. `labels`: tokenLabels.
 */
export function stepPanels(trace, id, labels) {
  const group = trace.groups.find((g) => g.id === id);
  const entry = stepEntry(id);
  if (!group || !entry) return [];
  return group.steps.map((step) => ({
    step,
    head: step.head,
    operands: step.operands.map((o, i) => (i === entry.transposed ? transposed : (m) => m)(withBlocked(operandOf(o, labels), trace, step.head))),
    ...labelled(id, step.values, labels),
  }));
}
