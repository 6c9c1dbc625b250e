// The train view: watch attention learn. A tiny attention-only transformer (lab.trainer(),
// trained by the core) learns a toy task the learner picks; the loss and accuracy curves grow
// and every head's weights on a fixed sample sequence change as it trains. The training runs
// in a Worker with its own core (shared/worker-view.js, the `train` task), a few steps per
// message, so the page never blocks, at a speed the learner picks (slow by default, so the
// pattern forms over seconds), and stops once the task is learned. Leaving the view ends its
// worker; coming back rebuilds the trainer by replaying its steps (the seed makes them the
// same), so the progress survives a view switch. The trained layer 1 opens in the stepper
// and the tokens view. Every number is the core's.
import { css, html, nothing } from 'lit';

import { WEIGHT_SCALE } from '../../shared/colors.js';
import { sub } from '../../shared/format.js';
import { matrixTable } from '../../shared/matrix-table.js';
import '../../shared/topic-quiz.js';
import { defineView, internalState } from '../../shared/view-base.js';
import { SEED_FIELD } from '../../shared/view-state.js';
import { WorkerViewBase } from '../../shared/worker-view.js';
import { lossText, trainingCurves } from './curves.js';

const TASKS = [
  ['previous-token', 'Previous token', 'At each position, predict the token just before it. One head learns to look one step back.'],
  ['copy-first', 'Copy the first token', 'At each position, predict the first token of the sequence. A head learns to look at position 1.'],
  ['reverse', 'Reverse', 'A random half, then the same half reversed: predict each next token of the reversed half.'],
  ['induction', 'Induction (copy at halfway)', 'A random half, then the same half again: predict each next token of the repeat.'],
  [
    'induction-anywhere',
    'Induction (copy anywhere)',
    'Random tokens, then the same tokens again from a position drawn for each sequence (after 2 to 14 of its 16 tokens, 32 kinds of token): predict each next token of the copy.',
  ],
];
// What the fixed split gives away, and the variant that gives nothing away.
const SHORTCUTS = {
  induction: `A shortcut: here the repeat always starts halfway (after 4 of the 8 tokens), so the token to predict is
    always the one 3 positions back. A model can learn that fixed offset from the positions alone, without noticing which
    tokens match: even one layer reaches 100% this way, though real induction (find the earlier copy of this token, read
    the token after it) needs two. Choose “Induction (copy anywhere)” for the honest task.`,
  'induction-anywhere': `The honest induction task: the copy starts at a position drawn for each sequence, so no fixed
    offset works. The model has to find where the current token appeared before and read the token that followed it: a
    previous-token head in layer 1 feeding an induction head in layer 2 (so this task starts with two layers). One layer
    stalls near 50% on guesses; two layers reach 90% in a few hundred steps. A token seen twice before the copy can
    leave the answer ambiguous, so about 95% is the most any model gets.`,
};
const HEAD_COUNTS = [1, 2, 4];
// Steps a second: slow enough by default to watch a head find its pattern (most tasks are
// learned in 40–100 steps); the curves are drawn after every message to the worker.
const SPEEDS = [
  ['slow', 'Slow (10 steps/s)', 10],
  ['medium', 'Medium (50 steps/s)', 50],
  ['fast', 'Fast (as fast as it runs)', Infinity],
];
const TICK_MS = 100; // one message per tick at a set speed
const FAST_CHUNK = 5; // steps per message at full speed
const LEARNED = 0.99; // accuracy on held-out sequences at which Train stops: the task is learned
const MAX_STEPS = 2000; // Train stops here in any case
// A task's own trainer settings (beside the core's defaults) and the accuracy that counts as
// learned. Induction-anywhere: 16 tokens of 32 kinds, so guessing among the tokens already seen
// earns little (the plateau) until the induction head forms, after 250–300 steps for most seeds
// (issue 38: about 30 s at the slow speed); ambiguous copies cap its accuracy near 95%.
const TASK_SETTINGS = { 'induction-anywhere': { trainer: { contextLength: 16, vocab: 32 }, learned: 0.9, layers: 2 } };

const FIELDS = {
  task: [TASKS[0][0], (v) => TASKS.some(([id]) => id === v), `one of ${TASKS.map(([id]) => id).join(', ')}`],
  layers: [1, (v) => v === 1 || v === 2, '1 or 2'],
  heads: [1, (v) => HEAD_COUNTS.includes(v), `one of ${HEAD_COUNTS.join(', ')}`],
  seed: SEED_FIELD,
};

// Each element's training, kept while its train view is away (another view shown, the element
// moved): { key, history, learnedAt, speed, logAxis }. Keyed by the element, so two elements never share one.
const kept = new WeakMap();

const nextFrame = () => new Promise((done) => requestAnimationFrame(() => done()));
const pause = (ms) => new Promise((done) => setTimeout(done, ms));

/** Position i's label: t₁ … tₙ with its token beside it, so repeated tokens stay apart. */
const positionLabel = (token, i) => `t${sub(i)} (${token})`;

const styles = css`
  .heads {
    display: flex;
    flex-wrap: wrap;
    gap: 0.75rem;
  }
  .heads table td {
    min-width: 2.2rem;
  }
  /* The chart's fourth curve (the previous-token score): shared styles colour three. */
  .series-3 polyline,
  .series-3 line {
    stroke: var(--attn-correct);
  }
  .series-3 circle {
    fill: var(--attn-correct);
  }
  /* The view's one chart, with four curves and two axes: wider than the shared 440 px. */
  .curves svg.chart {
    width: min(100%, 560px);
  }
`;

class TrainView extends WorkerViewBase {
  static styles = [WorkerViewBase.styles, styles];

  static properties = { ...WorkerViewBase.properties, ...internalState('_history', '_attention', '_learnedAt', '_speed', '_logAxis', '_openLayer') };

  constructor() {
    super();
    [this._speed, this._logAxis] = [SPEEDS[0][0], false];
    this.clearFigures();
  }

  connectedCallback() {
    super.connectedCallback();
    this._host = this.getRootNode().host; // the element whose training kept holds
    const saved = kept.get(this._host);
    if (saved) [this._speed, this._logAxis] = [saved.speed, saved.logAxis];
  }

  disconnectedCallback() {
    // Kept for the view's return: the worker, and its trainer, end with super's call.
    if (this._host && this.viewState) {
      const { _history: history, _learnedAt: learnedAt, _speed: speed, _logAxis: logAxis } = this;
      kept.set(this._host, { key: JSON.stringify(this._config), history, learnedAt, speed, logAxis });
    }
    super.disconnectedCallback();
    this.clearFigures();
  }

  updated() {
    // The untrained model's weights, at first and after a reset or a change of settings; the
    // kept training on coming back. Never while away, never again after a failure.
    if (this.isConnected && this.viewState && !this._attention && !this.run.busy && !this.run.message) this._resume();
  }

  clearFigures() {
    [this._history, this._attention, this._fresh, this._pause, this._learnedAt, this._replaying] = [[], null, true, false, null, false];
  }

  get _config() {
    const { task, layers, heads, seed } = this.viewState;
    return { task, layers, heads, seed, ...TASK_SETTINGS[task]?.trainer };
  }

  // The training kept for this element, if it is of these settings: its steps are replayed
  // by a fresh trainer (one message), else the untrained model is shown.
  _resume() {
    const saved = kept.get(this._host);
    kept.delete(this._host);
    if (saved?.key !== JSON.stringify(this._config) || !saved.history.length) return this._advance(0);
    [this._history, this._learnedAt, this._replaying] = [saved.history, saved.learnedAt, true];
    return this.run.start(
      async (current) => {
        const steps = saved.history.at(-1).step;
        const r = await this.run.tasks.run('train', { config: this._config, steps, fresh: true });
        if (!current()) return;
        [this._fresh, this._attention, this._replaying] = [false, r.attention, false];
      },
      (error) => this.coreProblem(error),
    );
  }

  // One message to the worker: `steps` more steps (a new trainer after a reset), recorded.
  async _call(steps, extra = {}) {
    const fresh = this._fresh;
    this._fresh = false;
    const r = await this.run.tasks.run('train', { config: this._config, steps, fresh, ...extra });
    if (steps) this._history = [...this._history, r.progress];
    this._attention = r.attention;
    return r;
  }

  _advance(steps) {
    return this.run.start(
      async (current) => {
        if (current()) await this._call(steps);
      },
      (error) => this.coreProblem(error),
    );
  }

  // Trains at the chosen speed until Pause, MAX_STEPS or, the first time, the task is learned.
  _train() {
    this._pause = false;
    return this.run.start(
      async (current) => {
        while (current() && !this._pause && this._step < MAX_STEPS) {
          const started = performance.now();
          const perSecond = SPEEDS.find(([id]) => id === this._speed)[2];
          const steps = Number.isFinite(perSecond) ? (perSecond * TICK_MS) / 1000 : FAST_CHUNK;
          const { progress } = await this._call(Math.min(steps, MAX_STEPS - this._step));
          if (this._learnedAt === null && progress.accuracy >= (TASK_SETTINGS[this.viewState.task]?.learned ?? LEARNED)) {
            this._learnedAt = progress.step;
            break;
          }
          // The curves and heatmaps are drawn between messages.
          await (Number.isFinite(perSecond) ? pause(Math.max(0, TICK_MS - (performance.now() - started))) : nextFrame());
        }
      },
      (error) => this.coreProblem(error),
    );
  }

  _reset() {
    this.run.cancel(null);
    this.clearFigures();
    this._advance(0);
  }

  // The layer to open: the one picked, else the last (with two layers, the induction head's).
  get _layerToOpen() {
    return Math.min(this._openLayer ?? Infinity, this.viewState.layers - 1);
  }

  // The trained layer on the sample, as the stepper's state, shown in `view`.
  async _open(view) {
    this._pause = true;
    const { model } = await this._call(0, { withModel: true, layer: this._layerToOpen });
    const { X, Wq, Wk, Wv, Wo, heads, tokenIds } = model;
    const state = { mode: 'x', X, Wq, Wk, Wv, Wo, heads, tokens: tokenIds.map(positionLabel), causal: true, positional: 'none', view, step: 'softmax' };
    this.dispatchEvent(new CustomEvent('open-state', { detail: { state }, bubbles: true, composed: true }));
  }

  get _step() {
    return this._history.at(-1)?.step ?? 0;
  }

  render() {
    const { task, layers, heads } = this.viewState;
    const select = (control, label, options, current, change) =>
      html`<label>${label}
        <select data-control=${control} ?disabled=${this.run.busy && control !== 'speed'} @change=${(e) => change(e.target.value)}>
          ${options.map(([value, text]) => html`<option value=${value} ?selected=${value === current}>${text}</option>`)}
        </select></label>`;
    const setting = (control, parse) => (value) => this.changeView({ [control]: parse(value) });
    return html`
      <h2>Train: watch attention learn</h2>
      <p class="lead">
        A tiny transformer made only of attention: each token's embedding plus its position's, one or two layers of
        causal attention heads whose outputs are added back to the token's vector, then a score for every possible next
        token. It starts from random weights and learns by gradient descent (Adam) on the cross-entropy of its guesses.
        Watch the loss fall, the accuracy rise, and each head's weights on one sample sequence find their pattern.
      </p>
      ${this.run.workerNote()}
      <div class="controls" role="group" aria-label="Training options">
        ${select('task', 'Task', TASKS, task, (value) => this.changeView({ task: value, ...(TASK_SETTINGS[value]?.layers && { layers: TASK_SETTINGS[value].layers }) }))}
        ${select(
          'layers',
          'Layers',
          [
            [1, '1'],
            [2, '2'],
          ],
          layers,
          setting('layers', Number),
        )}
        ${select(
          'heads',
          'Heads per layer',
          HEAD_COUNTS.map((h) => [h, String(h)]),
          heads,
          setting('heads', Number),
        )}
        ${this.seedInput({ disabled: this.run.busy })}
      </div>
      <div class="controls" role="group" aria-label="Training">
        <button data-action="train" ?disabled=${this.run.busy} @click=${() => this._train()}>Train</button>
        <button data-action="pause" ?disabled=${!this.run.busy} @click=${() => (this._pause = true)}>Pause</button>
        <button data-action="step" ?disabled=${this.run.busy} @click=${() => this._advance(1)}>Step</button>
        <button data-action="reset" @click=${() => this._reset()}>Reset</button>
        ${select('speed', 'Speed', SPEEDS, this._speed, (value) => (this._speed = value))}
        ${
          layers > 1
            ? select(
                'open-layer',
                'Layer to open',
                Array.from({ length: layers }, (_, l) => [l, `Layer ${l + 1}`]),
                this._layerToOpen,
                (value) => (this._openLayer = Number(value)),
              )
            : nothing
        }
        <button data-action="open-stepper" ?disabled=${this.run.busy || !this._attention} @click=${() => this._open('stepper')}>Open in the stepper</button>
        <button data-action="open-tokens" ?disabled=${this.run.busy || !this._attention} @click=${() => this._open('tokens')}>Open in the tokens view</button>
      </div>
      <p class="note">${TASKS.find(([id]) => id === task)[2]}</p>
      ${SHORTCUTS[task] ? html`<p class="note" data-role="shortcut">${SHORTCUTS[task]}</p>` : nothing}
      ${this._renderStatus()} ${this._history.length ? this._renderCurves() : nothing} ${this._renderHeads()}
      <attn-topic-quiz topic="train"></attn-topic-quiz>
    `;
  }

  _renderStatus() {
    const problem = this.draftProblem ?? this.run.message;
    if (problem) return this.messageLine(problem, { role: 'train-status' });
    const last = this._history.at(-1);
    const ending = this.run.busy
      ? this._replaying
        ? ' (the trainer is being rebuilt: its steps replayed…)'
        : ' (training…)'
      : this._learnedAt === last?.step
        ? '. Learned, so training stopped here; press Train to go on.'
        : '';
    const text = last
      ? html`Step <span data-field="step" data-value=${last.step}>${last.step}</span>: loss
          <span data-field="loss" data-value=${last.loss}>${lossText(last.loss)}</span> on the training batch,
          <span data-field="heldOutLoss" data-value=${last.heldOutLoss}>${lossText(last.heldOutLoss)}</span> on held-out
          sequences; accuracy on held-out sequences
          <span data-field="accuracy" data-value=${last.accuracy}>${(100 * last.accuracy).toFixed(1)}%</span>${ending}`
      : 'Untrained: press Train, or Step for one step at a time.';
    return html`<p class="message" data-role="train-status" role="status">${text}</p>`;
  }

  _renderCurves() {
    return html`<label class="note"
        ><input type="checkbox" data-control="log-axis" .checked=${this._logAxis} @change=${(e) => (this._logAxis = e.target.checked)} /> Log step
        axis</label
      >
      ${trainingCurves({ history: this._history, ...this.viewState, logAxis: this._logAxis })}`;
  }

  // The cells a causal mask blocks among n tokens, true where the core's causal logits are −∞
  // (the trainer's heads are causal): matrixTable hatches them, apart from weights near 0.
  _causalBlocked(n) {
    if (!this.lab) return undefined;
    if (this._blocked?.length !== n) {
      const zero = Array.from({ length: n }, () => [0]);
      this._blocked = this.lab.attention({ Q: zero, K: zero, V: zero, causal: true }).logits.map((row) => row.map((v) => v === -Infinity));
    }
    return this._blocked;
  }

  // A head's caption, with its scores on the induction probe at the latest step.
  _caption(l, h) {
    const last = this._history.at(-1);
    const scores = last ? `: previous-token ${last.previousToken[l][h].toFixed(2)}, induction ${last.induction[l][h].toFixed(2)}` : '';
    return `Layer ${l + 1}, head ${h + 1}${scores}`;
  }

  _renderHeads() {
    if (!this._attention) return nothing;
    const { tokenIds, weights } = this._attention;
    const labels = tokenIds.map(positionLabel);
    const blocked = this._causalBlocked(tokenIds.length);
    return html`<p class="lead">
        Every head's weights on one sample sequence (rows: the query position, columns: the key position; causal, so
        nothing above the diagonal). Positions are t₁ to t${sub(tokenIds.length - 1)}, each with its token (a number from the
        vocabulary) beside it.
      </p>
      ${weights.map(
        (layer, l) => html`<div class="heads" data-layer=${l}>
          ${layer.map(
            (values, h) => html`<div class="scroll-x" tabindex="0" role="region" aria-label=${`Layer ${l + 1}, head ${h + 1}`}>
              ${matrixTable({ name: 'train-weights', head: h, caption: this._caption(l, h), values, blocked, rowLabels: labels, colLabels: labels, scale: WEIGHT_SCALE })}
            </div>`,
          )}
        </div>`,
      )}`;
  }
}

export const trainView = defineView({ id: 'train', title: 'Train', element: TrainView, fields: FIELDS });
