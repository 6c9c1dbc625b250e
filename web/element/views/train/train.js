// The train view: watch attention learn. A tiny attention-only transformer (lab.trainer(),
// trained by the core) learns a toy task the learner picks; the loss and accuracy curves grow
// and every head's weights on a fixed sample sequence change as it trains. The training runs
// in a Worker with its own core (shared/worker-view.js, the `train` task), a few steps per
// message, so the page never blocks. The trained layer 1 opens in the stepper and the tokens
// view. Every number is the core's.
import { css, html, nothing } from 'lit';

import { WEIGHT_SCALE } from '../../shared/colors.js';
import { lineChart } from '../../shared/chart.js';
import { fmt } from '../../shared/format.js';
import { matrixTable } from '../../shared/matrix-table.js';
import '../../shared/topic-quiz.js';
import { defineView } from '../../shared/view-base.js';
import { SEED_FIELD } from '../../shared/view-state.js';
import { WorkerViewBase } from '../../shared/worker-view.js';

const TASKS = [
  ['previous-token', 'Previous token', 'At each position, predict the token just before it. One head learns to look one step back.'],
  ['copy-first', 'Copy the first token', 'At each position, predict the first token of the sequence. A head learns to look at position 1.'],
  ['reverse', 'Reverse', 'A random half, then the same half reversed: predict each next token of the reversed half.'],
  ['induction', 'Induction', 'A random half, then the same half again: predict each next token of the repeat.'],
];
const HEAD_COUNTS = [1, 2, 4];
const CHUNK = 5; // steps per message from the worker
const MAX_STEPS = 2000; // Train stops here

const FIELDS = {
  task: [TASKS[0][0], (v) => TASKS.some(([id]) => id === v), `one of ${TASKS.map(([id]) => id).join(', ')}`],
  layers: [1, (v) => v === 1 || v === 2, '1 or 2'],
  heads: [1, (v) => HEAD_COUNTS.includes(v), `one of ${HEAD_COUNTS.join(', ')}`],
  seed: SEED_FIELD,
};

const nextFrame = () => new Promise((done) => requestAnimationFrame(() => done()));

const styles = css`
  .heads {
    display: flex;
    flex-wrap: wrap;
    gap: 0.75rem;
  }
  .heads table td {
    min-width: 2.2rem;
  }
`;

class TrainView extends WorkerViewBase {
  static styles = [WorkerViewBase.styles, styles];

  static properties = {
    ...WorkerViewBase.properties,
    _history: { state: true },
    _attention: { state: true },
  };

  constructor() {
    super();
    this.clearFigures();
  }

  disconnectedCallback() {
    super.disconnectedCallback(); // the worker, and its trainer, end
    this.clearFigures();
  }

  updated() {
    // The untrained model's weights, at first and after a reset or a change of settings.
    if (this.viewState && !this._attention && !this._busy && !this._message) this._advance(0);
  }

  clearFigures() {
    [this._history, this._attention, this._fresh, this._pause] = [[], null, true, false];
  }

  get _config() {
    const { task, layers, heads, seed } = this.viewState;
    return { task, layers, heads, seed };
  }

  // One message to the worker: `steps` more steps (a new trainer after a reset), recorded.
  async _call(steps, extra = {}) {
    const fresh = this._fresh;
    this._fresh = false;
    const r = await this.tasks.run('train', { config: this._config, steps, fresh, ...extra });
    if (steps) this._history = [...this._history, r.progress];
    this._attention = r.attention;
    return r;
  }

  _advance(steps) {
    return this.startRun(async (current) => {
      if (current()) await this._call(steps);
    }, (error) => this.coreProblem(error));
  }

  _train() {
    this._pause = false;
    return this.startRun(async (current) => {
      while (current() && !this._pause && this._step < MAX_STEPS) {
        await this._call(CHUNK);
        await nextFrame(); // the curves and heatmaps are drawn between messages
      }
    }, (error) => this.coreProblem(error));
  }

  _reset() {
    this.cancelRun(null);
    this.clearFigures();
    this._advance(0);
  }

  // The trained layer 1 on the sample, as the stepper's state, shown in `view`.
  async _open(view) {
    this._pause = true;
    const { model } = await this._call(0, { withModel: true });
    const { X, Wq, Wk, Wv, Wo, heads, tokens } = model;
    const state = { mode: 'x', X, Wq, Wk, Wv, Wo, heads, tokens: tokens.map(String), causal: true, positional: 'none', view, step: 'softmax' };
    this.dispatchEvent(new CustomEvent('open-state', { detail: { state }, bubbles: true, composed: true }));
  }

  get _step() {
    return this._history.at(-1)?.step ?? 0;
  }

  render() {
    const { task, layers, heads } = this.viewState;
    const select = (control, label, options, current, parse = Number) =>
      html`<label>${label}
        <select data-control=${control} ?disabled=${this._busy} @change=${(e) => this.changeView({ [control]: parse(e.target.value) })}>
          ${options.map(([value, text]) => html`<option value=${value} ?selected=${value === current}>${text}</option>`)}
        </select></label>`;
    return html`
      <h2>Train: watch attention learn</h2>
      <p class="lead">
        A tiny transformer made only of attention: each token's embedding plus its position's, one or two layers of
        causal attention heads whose outputs are added back to the token's vector, then a score for every possible next
        token. It starts from random weights and learns by gradient descent (Adam) on the cross-entropy of its guesses.
        Watch the loss fall, the accuracy rise, and each head's weights on one sample sequence find their pattern.
      </p>
      ${this.workerNote()}
      <div class="controls" role="group" aria-label="Training options">
        ${select('task', 'Task', TASKS, task, String)}
        ${select('layers', 'Layers', [[1, '1'], [2, '2']], layers)}
        ${select('heads', 'Heads per layer', HEAD_COUNTS.map((h) => [h, String(h)]), heads)}
        ${this.seedInput({ disabled: this._busy })}
      </div>
      <div class="controls" role="group" aria-label="Training">
        <button data-action="train" ?disabled=${this._busy} @click=${() => this._train()}>Train</button>
        <button data-action="pause" ?disabled=${!this._busy} @click=${() => (this._pause = true)}>Pause</button>
        <button data-action="step" ?disabled=${this._busy} @click=${() => this._advance(1)}>Step</button>
        <button data-action="reset" @click=${() => this._reset()}>Reset</button>
        <button data-action="open-stepper" ?disabled=${this._busy || !this._attention} @click=${() => this._open('stepper')}>Open in the stepper</button>
        <button data-action="open-tokens" ?disabled=${this._busy || !this._attention} @click=${() => this._open('tokens')}>Open in the tokens view</button>
      </div>
      <p class="note">${TASKS.find(([id]) => id === task)[2]}</p>
      ${this._renderStatus()} ${this._history.length ? this._renderCurves() : nothing} ${this._renderHeads()}
      <attn-topic-quiz topic="train"></attn-topic-quiz>
    `;
  }

  _renderStatus() {
    const problem = this.draftProblem ?? this._message;
    if (problem) return this.messageLine(problem, { role: 'train-status' });
    const last = this._history.at(-1);
    const text = last
      ? html`Step <span data-field="step" data-value=${last.step}>${last.step}</span>: loss
          <span data-field="loss" data-value=${last.loss}>${fmt(last.loss)}</span>, accuracy on held-out sequences
          <span data-field="accuracy" data-value=${last.accuracy}>${fmt(100 * last.accuracy)}%</span>${this._busy ? ' (training…)' : ''}`
      : 'Untrained: press Train, or Step for one step at a time.';
    return html`<p class="message" data-role="train-status" role="status">${text}</p>`;
  }

  _renderCurves() {
    const steps = this._history.map((p) => p.step);
    const domainX = [0, Math.max(10, steps.at(-1))];
    const maxLoss = Math.max(...this._history.map((p) => p.loss));
    return html`<div class="figures">
      ${lineChart({
        title: 'Training loss (cross-entropy) against steps',
        x: { label: 'step', domain: domainX },
        y: { label: 'loss', domain: [0, maxLoss * 1.05] },
        series: [{ id: 'loss', label: 'loss on the training batch', points: this._history.map((p) => [p.step, p.loss]) }],
      })}
      ${lineChart({
        title: 'Accuracy on held-out sequences against steps',
        x: { label: 'step', domain: domainX },
        y: { label: 'accuracy', domain: [0, 1] },
        series: [{ id: 'accuracy', label: 'accuracy (argmax = target)', points: this._history.map((p) => [p.step, p.accuracy]) }],
      })}
    </div>`;
  }

  _renderHeads() {
    if (!this._attention) return nothing;
    const { tokens, weights } = this._attention;
    const labels = tokens.map(String);
    return html`<p class="lead">
        Every head's weights on one sample sequence (rows: the query position, columns: the key position; causal, so
        nothing above the diagonal). The tokens are numbers from the vocabulary.
      </p>
      ${weights.map(
        (layer, l) => html`<div class="heads" data-layer=${l}>
          ${layer.map(
            (values, h) => html`<div class="scroll-x" tabindex="0" role="region" aria-label=${`Layer ${l + 1}, head ${h + 1}`}>
              ${matrixTable({ name: 'train-weights', head: h, caption: `Layer ${l + 1}, head ${h + 1}`, values, rowLabels: labels, colLabels: labels, scale: WEIGHT_SCALE })}
            </div>`,
          )}
        </div>`,
      )}`;
  }
}

export const trainView = defineView({ id: 'train', title: 'Train', element: TrainView, fields: FIELDS });
