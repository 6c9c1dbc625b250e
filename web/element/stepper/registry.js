// The step registry: one entry per step id of the core's trace (lab STEP_IDS), holding all
// the stepper knows about that step (the entries are defined in steps.js). The numbers
// (result, operands, the scale step's factor, the mask's allowed cells) come from the trace;
// an entry says how to label and colour them, how to explain a cell, what to ask before
// revealing it, and how to export it. Adding a step: the core's trace, one entry in
// steps.js, and its tests.
import { scaleOf } from '../shared/colors.js';
import { STEPS } from './steps.js';
import { defineBackwardSteps } from './backward-steps.js';

defineBackwardSteps();
const ENTRIES = new Map(STEPS.map((entry) => [entry.id, entry]));

/** The entry of step `id`, or undefined for an id the registry does not know. */
export const stepEntry = (id) => ENTRIES.get(id);

/** Every entry, in trace order. */
export const stepEntries = () => STEPS;

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
  context: { rows: 'keys', cols: 'features' },
  alibi: { rows: 'queries', cols: 'keys' }, // the bias step's bias matrix
};

/** The axes of a named matrix: a step's result, or one of the inputs. */
export const axesOf = (name) => stepEntry(name) ?? INPUT_AXES[name];

/**
 * The colour scales of what step `id` shows in `panels` (panels.js): a function from a
 * matrix's name to its scale, or null when it is not a heatmap. Weights sit on the fixed
 * 0–1 scale; every scores-like matrix of the step (its input and its result, in every
 * head) shares one symmetric scale, so the scale step's shrinking and the mask's surviving
 * cells keep their true size and colour. `withResult: false` leaves the result out (while a
 * prediction hides it, the legends must not give its range away).
 */
export function stepScales(id, panels, { withResult = true } = {}) {
  const kind = (name) => stepEntry(name)?.heat;
  // Scores and gradients: each kind on one symmetric scale over the step's matrices of it.
  const sharedOf = (signed) => {
    const result = (p) => (withResult && kind(id) === signed ? [p.step.values] : []);
    const matrices = panels.flatMap((p) => [...p.operands.filter((o) => kind(o.name) === signed).map((o) => o.values), ...result(p)]);
    return matrices.length ? scaleOf(signed, matrices, panels.length) : null;
  };
  const shared = { scores: sharedOf('scores'), gradients: sharedOf('gradients') };
  return (name) => shared[kind(name)] ?? scaleOf(kind(name), []);
}
