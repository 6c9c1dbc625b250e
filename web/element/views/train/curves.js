// The train view's chart: the held-out loss (left axis) with the accuracy and the followed heads'
// scores on the induction probe (right axis, 0 … 1), so the plateau, the drop and the induction
// head's jump show together (issue 38: the phase change of Olsson et al. 2022); and the sentence
// under it, naming the step where the head formed in this run. The numbers are the core's
// (TrainingProgress); nothing is computed here but which head to follow.
import { html, nothing } from 'lit';

import { lineChart } from '../../shared/chart.js';

const PHASE_SCORE = 0.5; // the induction score at which the sentence says the head formed
const DRAWN = 400; // points drawn per curve at most: a long run's history is thinned for the chart

/** A loss as a learner reads it: three significant digits, however small (never "0"). */
export const lossText = (loss) => (loss >= 1e-6 || loss === 0 ? Number(loss.toPrecision(3)).toString() : loss.toExponential(2)).replaceAll('-', '−');

const headName = ({ layer, head }) => `L${layer + 1} H${head + 1}`;
const best = (scores) => scores.indexOf(Math.max(...scores));

// What the chart follows: layer 1's best previous-token head and, where an induction head is the
// point (an induction task, or two layers), the last layer's best induction head, each the best
// at the latest step.
function followed(history, task, layers) {
  const last = history.at(-1);
  const induction = task.startsWith('induction') || layers === 2 ? { layer: layers - 1, head: best(last.induction[layers - 1]) } : null;
  return { previous: { layer: 0, head: best(last.previousToken[0]) }, induction };
}

// The sentence under the chart: what to watch for, then where it happened in this run.
function phaseNote(history, { layer, head }) {
  const name = headName({ layer, head });
  const formed = history.find((p) => p.induction[layer][head] >= PHASE_SCORE);
  const watch = `Watch for the plateau, then the drop: the loss first sinks only as far as guessing among the tokens
    already seen allows, while ${name}'s induction score (its weight on the token after the earlier copy of the current
    token, measured on repeated random tokens) stays low; when that head forms, its score jumps and the loss drops.`;
  if (!formed) return html`<p class="note" data-role="phase">${watch}</p>`;
  const before = history.findLast((p) => p.step <= formed.step - 100) ?? history[0];
  return html`<p class="note" data-role="phase">
    ${watch} In this run ${name}'s induction score passed ${PHASE_SCORE} at step
    <span data-field="formed" data-value=${formed.step}>${formed.step}</span>, while the loss on held-out sequences fell
    from ${lossText(before.heldOutLoss)} at step ${before.step} to ${lossText(formed.heldOutLoss)}.
  </p>`;
}

/** The chart of a run's `history` (TrainingProgress, one per message) and, for induction, its sentence. */
export function trainingCurves({ history, task, layers, logAxis }) {
  const last = history.at(-1).step;
  // The axis spans the run so far; log spreads the first steps, where the learning is.
  const x = logAxis ? { label: 'step (log)', domain: [1, Math.max(10, last)], type: 'log' } : { label: 'step', domain: [0, Math.max(10, last)] };
  const maxLoss = Math.max(...history.map((p) => p.heldOutLoss));
  const every = Math.ceil(history.length / DRAWN);
  const drawn = history.filter((_, i) => i % every === 0 || i === history.length - 1);
  const curve = (value) => drawn.map((p) => [p.step, value(p)]);
  const { previous, induction } = followed(history, task, layers);
  const series = [
    { id: 'heldOutLoss', label: 'loss on held-out sequences (left axis)', points: curve((p) => p.heldOutLoss) },
    induction && {
      id: 'induction',
      label: `induction score of ${headName(induction)} (right axis)`,
      axis: 'y2',
      points: curve((p) => p.induction[induction.layer][induction.head]),
    },
    { id: 'accuracy', label: 'accuracy on held-out sequences (right axis)', axis: 'y2', points: curve((p) => p.accuracy) },
    {
      id: 'previousToken',
      label: `previous-token score of ${headName(previous)} (right axis)`,
      axis: 'y2',
      points: curve((p) => p.previousToken[previous.layer][previous.head]),
    },
  ].filter(Boolean);
  return html`<div class="figures curves">
      ${lineChart({
        title: 'Loss, accuracy and head scores against steps',
        x,
        y: { label: 'loss (nats)', domain: [0, maxLoss * 1.05] },
        y2: { label: 'accuracy, score (0 … 1)', domain: [0, 1] },
        series,
      })}
    </div>
    ${induction ? phaseNote(history, induction) : nothing}`;
}
