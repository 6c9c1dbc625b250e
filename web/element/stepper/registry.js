// The step registry: one entry per step id of the core's trace (lab STEP_IDS), holding all
// the stepper knows about that step. The numbers (result, operands, the scale step's factor,
// the mask's allowed cells) come from the trace; an entry says how to label and colour
// them, how to explain a cell, what to ask before revealing it, and how to export it.
// Adding a step: the core's trace, one entry in steps.js, and its tests.

const ENTRIES = new Map();

/**
 * @typedef {'queries' | 'keys' | 'features'} Axis  what a matrix's rows or columns stand for
 *
 * @typedef {object} StepEntry
 * @property {string} id             the core's step id
 * @property {Axis} rows             what the result's rows are
 * @property {Axis} cols             what the result's columns are
 * @property {boolean} [heat]        drawn as a heatmap (scores and weights: query × key)
 * @property {(cell: object) => { text: string, highlight: object[] }} explain
 *   the hover/focus explanation of result cell { panel, row, col, value, labels };
 *   highlight[i] marks the rows, cols or cell of operand i that the value came from
 * @property {object} [predict]      predict-then-reveal questions beyond the result's shape:
 *   { elementwise?: how the step keeps its input's shape, largest?: { noun, reason } (which
 *   key wins a row), rowSum?: true (what a row adds up to) }
 * @property {string} numpy          the NumPy export's expression for this step's value, in
 *   terms of the export's variables (inside its loop over heads when `perHead`): export.js
 * @property {boolean} [perHead]     the step repeats for each head
 */

/** Registers a step's entry; each id once. */
export function defineStep(entry) {
  if (ENTRIES.has(entry.id)) throw new Error(`step ${entry.id} is registered twice`);
  ENTRIES.set(entry.id, Object.freeze(entry));
  return entry;
}

/** The entry of step `id`, or undefined for an id the registry does not know. */
export const stepEntry = (id) => ENTRIES.get(id);

/** Every registered entry, in registration order. */
export const stepEntries = () => [...ENTRIES.values()];

// The axes of the inputs a step can take as operands (the learner's own matrices).
const INPUT_AXES = {
  X: { rows: 'queries', cols: 'features' },
  Q: { rows: 'queries', cols: 'features' },
  K: { rows: 'keys', cols: 'features' },
  V: { rows: 'keys', cols: 'features' },
  Wq: { rows: 'features', cols: 'features' },
  Wk: { rows: 'features', cols: 'features' },
  Wv: { rows: 'features', cols: 'features' },
  Wo: { rows: 'features', cols: 'features' },
};

/** The axes of a named matrix: a step's result, or one of the inputs. */
export const axesOf = (name) => stepEntry(name) ?? INPUT_AXES[name];

/** Whether the matrix named `name` (a step id or an input) is drawn as a heatmap. */
export const isHeat = (name) => stepEntry(name)?.heat === true;
