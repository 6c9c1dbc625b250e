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
 * The colour scales of what step `id` shows: a function from a matrix's name to its scale, or
 * null when it is not a heatmap. One scale per quantity for the whole trace, so a matrix
 * keeps its colours at every step that shows it: weights on the fixed 0–1 scale; the scores,
 * scaled and masked scores on one symmetric scale over all of them, in every head (so the
 * scale step's shrinking and the mask's surviving cells keep their true size and colour);
 * each gradient on its own symmetric scale over its heads. `withResult: false` leaves this
 * step and the later ones out (while a prediction hides the result, the legends must not
 * give its range away). `heads`: how many heads the step shows, for the legend. `shown`: the
 * names of the matrices on view, when the scores' scale is to fit them alone (the stepper: a
 * softmax step on a real model's scaled scores, ±36, is not coloured on a scale of ±212).
 */
export function stepScales(id, trace, { heads = 1, withResult = true, shown: onView } = {}) {
  const kind = (name) => stepEntry(name)?.heat;
  const order = trace.groups.map((group) => group.id);
  const shown = withResult ? trace.steps : trace.steps.filter((s) => order.indexOf(s.id) < order.indexOf(id));
  const valuesOf = (keep) => shown.filter((s) => keep(s.id)).map((s) => s.values);
  const scores = scaleOf(
    'scores',
    valuesOf((name) => kind(name) === 'scores' && (!onView || onView.includes(name))),
    heads,
  );
  return (name) => {
    if (kind(name) === 'scores') return scores;
    if (kind(name) === 'gradients')
      return scaleOf(
        'gradients',
        valuesOf((other) => other === name),
        heads,
      );
    return scaleOf(kind(name), []);
  };
}
