// The stepper: the view that walks through the core's trace one step at a time. It is a Lit
// reactive controller of <attn-lab>, rendered into the element's own shadow root; the host
// keeps the state and the last good trace (`host.good`), the stepper shows them.
import { html, nothing } from 'lit';

import { headMark, shape, subscripted } from '../shared/format.js';
import { formula } from '../shared/formula.js';
import { matrixTable } from '../shared/matrix-table.js';
import { checkable, checkGradient, renderCheck, renderJacobian } from './backward.js';
import { downloadStep, EXPORT_KINDS, exportDisabled } from './download.js';
import { InputEditor } from './inputs.js';
import { originBar } from './origin.js';
import { blockedWeights, traceStepIds, stepPanels, stepTitle, tokenLabels } from '../steps/panels.js';
import { PredictController } from './predict.js';
import { stepEntry, stepScales } from '../steps/registry.js';

const PLAY_INTERVAL_MS = 1400;
const STEP_KEYS = { ArrowLeft: 'prev', ArrowRight: 'next', Home: 'first', End: 'last' };

// A caption "S̃, the scaled scores" for head 0 as the formula writes it: "S̃⁽¹⁾, the scaled scores".
const withHead = (caption, head) => (head === undefined ? caption : caption.replace(/^[^,]+/, (symbol) => symbol + headMark(head)));

export class Stepper {
  constructor(host) {
    this.host = host;
    this.focus = null; // { id, head, row, col } of the explained cell
    this.playing = false;
    this.inputs = new InputEditor(host);
    this.predictions = new PredictController(host);
    host.addController(this);
  }

  hostDisconnected() {
    this.stopPlaying();
  }

  // Keeps the trace before the last change, so the results can show what moved.
  hostUpdate() {
    const trace = this.host.good?.trace;
    if (trace && trace !== this._trace) [this._before, this._trace] = [this._trace, trace];
  }

  // Step `id`, head `head` of the trace before the last change, if it had the same shape.
  _previousValues(step) {
    const before = this._before?.steps.find((s) => s.id === step.id && s.head === step.head);
    return before && before.shape.every((n, i) => n === step.shape[i]) ? before.values : undefined;
  }

  _update(change) {
    Object.assign(this, change);
    this.host.requestUpdate();
  }

  // ---- stepping ----

  /** Moves to the first, previous, next or last step; whether a later step remains. */
  moveStep(where) {
    const ids = traceStepIds(this.host.good.trace);
    const index = ids.indexOf(this.host.good.state.step);
    const target = { first: 0, prev: index - 1, next: index + 1, last: ids.length - 1 }[where];
    if (target >= 0 && target < ids.length) this.host.goToStep(ids[target]);
    return target < ids.length - 1;
  }

  togglePlay() {
    if (this.playing) return this.stopPlaying();
    if (!this.moveStep('next')) this.host.goToStep(traceStepIds(this.host.good.trace)[0]);
    this._update({ playing: true });
    this._timer = setInterval(() => {
      if (!this.moveStep('next')) this.stopPlaying();
    }, PLAY_INTERVAL_MS);
  }

  stopPlaying() {
    clearInterval(this._timer);
    if (this.playing) this._update({ playing: false });
  }

  /** ←/→/Home/End step through the trace, unless the key is meant for a form field or a matrix (which moves between its cells and prevents the default). */
  onKeyDown(event) {
    const where = STEP_KEYS[event.key];
    if (!where || event.defaultPrevented || event.composedPath()[0].matches?.('input, select, textarea')) return;
    event.preventDefault();
    this.moveStep(where);
  }

  // ---- rendering ----

  /** The stepper, laid out as the host's `layout` says (attn-lab.js). */
  render(message) {
    const { inputs, controls, resultFirst } = this.host.layout;
    const options = controls === 'full' ? this.inputs.renderControls() : nothing;
    const hasSetup = controls === 'full' || inputs !== 'hidden';
    // The narrow layout's jump to the options and inputs below the step (hidden when wide).
    const toSetup =
      !resultFirst && hasSetup
        ? html`<button class="to-setup" data-action="to-setup" @click=${() => this._showSetup()}>Inputs and options ↓</button>`
        : nothing;
    const nav = controls === 'none' ? toSetup : this._renderNav(toSetup);
    const editors = {
      shown: () => this.inputs.renderInputs(),
      collapsed: () =>
        html`<details class="inputs" data-role="inputs-toggle"><summary>Inputs: edit the numbers</summary>${this.inputs.renderInputs()}</details>`,
      hidden: () => nothing,
    }[inputs]();
    const origin = originBar(this.host);
    if (resultFirst) return html`${origin} ${message} ${this._renderStep(false)} ${nav} ${options} ${editors}`;
    // Result first: the steps and the step on view lead; the options and inputs sit beside
    // them on a wide element and below them on a narrow one, a tap away (styles.js).
    const setup = hasSetup ? html`<aside class="setup" data-role="setup" aria-label="Inputs and options" tabindex="-1">${options} ${editors}</aside>` : nothing;
    return html`<div class="stepper-layout">
      <div class="lead-column">${origin} ${message} ${nav} ${this._renderStep(controls !== 'none')}</div>
      ${setup}
    </div>`;
  }

  _showSetup() {
    const setup = this.host.renderRoot.querySelector('[data-role="setup"]');
    setup?.scrollIntoView({ block: 'start' });
    setup?.focus({ preventScroll: true });
  }

  // `extra`: what ends the navigation's row (the jump to the options on a narrow element).
  _renderNav(extra = nothing) {
    const { trace, state } = this.host.good;
    const ids = traceStepIds(trace);
    const current = ids.indexOf(state.step);
    const last = ids.length - 1;
    return html`<nav aria-label="Steps" part="nav">
      <div class="nav">
        <button data-action="first" @click=${() => this.moveStep('first')} ?disabled=${current === 0}>« First</button>
        <button data-action="prev" @click=${() => this.moveStep('prev')} ?disabled=${current === 0}>◀ Prev</button>
        <button data-action="play" aria-pressed=${this.playing ? 'true' : 'false'} @click=${() => this.togglePlay()}>${this.playing ? '⏸ Pause' : '▶ Play'}</button>
        <button data-action="next" @click=${() => this.moveStep('next')} ?disabled=${current === last}>Next ▶</button>
        <button data-action="last" @click=${() => this.moveStep('last')} ?disabled=${current === last}>Last »</button>
        <input data-control="step" type="range" min="0" max=${last} .value=${String(current)} aria-label="Step"
          aria-valuetext=${stepTitle(trace, ids[current])} @input=${(e) => this.host.goToStep(ids[Number(e.target.value)])} />
        <span>Step ${current + 1} of ${ids.length}</span> ${extra}
      </div>
      <ol class="steps">
        ${ids.map(
          (id, i) =>
            html`<li><button data-goto=${id} aria-current=${i === current ? 'step' : 'false'} @click=${() => this.host.goToStep(id)}>${i + 1}. ${subscripted(stepEntry(id).name)}</button></li>`,
        )}
      </ol>
    </nav>`;
  }

  // What step `state.step` of `trace` shows, kept while neither changes: a hover or a focus
  // re-renders the stepper, and at 512 tokens the panels (transposed operands), the blocked
  // cells, the colour scales and the "why" each walk 262,144 numbers. `once(key, make)`
  // keeps what else this step's rendering derives from them.
  _stepOf(state, trace) {
    const memo = this._memo;
    if (memo && memo.trace === trace && memo.id === state.step && memo.tokens === state.tokens && memo.mode === state.mode) return memo;
    const labels = tokenLabels(state);
    const once = keeper(new Map());
    // What the whole trace shares stays across steps: the scores' colour scale walks every
    // score step's n × n numbers (tens of ms at 512 tokens), the same for each step shown.
    if (this._traceMemo?.trace !== trace) this._traceMemo = { trace, once: keeper(new Map()) };
    this._memo = {
      trace,
      id: state.step,
      tokens: state.tokens,
      mode: state.mode,
      labels,
      panels: stepPanels(trace, state.step, labels),
      once,
      onceForTrace: this._traceMemo.once,
    };
    return this._memo;
  }

  // `divided`: a rule separates the step from the navigation above it.
  _renderStep(divided = true) {
    const { state, trace } = this.host.good;
    const id = state.step;
    const { labels, panels, onceForTrace } = this._stepOf(state, trace);
    const focused = this.focus?.id === id ? this.focus : null;
    const prediction = this.predictions.forStep(panels, trace, state.predict, id, labels);
    // The scores' scale fits the matrices this step shows (its operands and its result).
    const shown = [id, ...panels[0].operands.map((o) => o.name)];
    // Kept for the trace: a step shown again reuses it.
    const scaleOf = onceForTrace(`scales ${prediction.hidden ? id : 'all'} ${panels.length} ${shown.join()}`, () =>
      stepScales(id, trace, { heads: panels.length, withResult: !prediction.hidden, shown }),
    );
    const explanationOf = (panel) => (focused && focused.head === panel.head ? explainCell(panel, focused, labels, trace) : null);
    return html`<section class="step ${this.host.layout.resultFirst ? 'result-first' : ''} ${divided ? 'divided' : ''}" data-role="step" part="step" aria-live="polite">
      <h2>${prediction.hidden ? html`${subscripted(stepEntry(id).name)}: predict, then reveal` : stepTitle(trace, id)}</h2>
      ${this._renderWhy(id, panels[0], labels, prediction.hidden)}
      ${panels.map((panel) => {
        const explanation = explanationOf(panel);
        return html`<div class="panel">
          ${panel.head !== undefined ? html`<h3>Head ${panel.head + 1}</h3>` : nothing}
          <div class="formula" data-role="formula" part="formula" ${formula(panel.step.formula)}></div>
          <p class="shapes">${subscripted([...panel.operands.map((o) => `${o.caption}: ${shape(o.values.length, o.values[0].length)}`), `result: ${prediction.hidden ? '?' : shape(...panel.step.shape)}`].join(' · '))}</p>
          <div class="matrices">
            <div class="matrices" data-role="operands" part="operands">
              ${panel.operands.map((o, i) => matrixTable({ ...o, caption: `${o.caption} (${shape(o.values.length, o.values[0].length)})`, scale: scaleOf(o.name), highlight: explanation?.highlight[i] }))}
            </div>
            <div class="matrices" data-role="result" part="result" data-hidden=${prediction.hidden ? 'true' : nothing}>
              ${prediction.hidden ? html`<p class="hidden-result">The result is hidden until you predict it.</p>` : this._renderResult(id, panel, explanation && focused, scaleOf)}
            </div>
          </div>
          ${prediction.hidden ? nothing : this._renderDetail(stepEntry(id).detail, panel, focused, labels)}
          ${checkable(id) && explanation ? renderCheck(this.check?.cell === focused ? this.check.result : null, () => this._checkGradient(id, panel, focused)) : nothing}
        </div>`;
      })}
      ${prediction.template} ${prediction.hidden ? nothing : this._maskedRowsNote(id, trace, labels)}
      <div class="controls export" role="group" aria-label="Export this step" part="export">
        <span>Export:</span>
        ${EXPORT_KINDS.map(([kind, label]) => {
          const off = exportDisabled(kind, trace, id);
          return html`<button data-export=${kind} ?disabled=${off !== null} title=${off ? `${label}: ${off}` : nothing} @click=${() => downloadStep(kind, { trace, id, panels })}>${label}</button>`;
        })}
        ${exportDisabled('numpy', trace, id) ? html`<span data-role="export-problem">No code export: ${exportDisabled('numpy', trace, id)}</span>` : nothing}
      </div>
      <p class="explanation" data-role="explanation" part="explanation" aria-live="polite">
        ${focused ? (panels.map(explanationOf).find(Boolean)?.text ?? '') : 'Hover over or focus a result cell to see how it is computed.'}
      </p>
    </section>`;
  }

  _renderResult(id, panel, active, scaleOf) {
    return matrixTable({
      name: id,
      head: panel.head,
      caption: `${withHead(stepEntry(id).caption, panel.head)} (${shape(...panel.step.shape)})`,
      values: panel.step.values,
      previous: this._previousValues(panel.step),
      rowLabels: panel.rowLabels,
      colLabels: panel.colLabels,
      scale: scaleOf(id),
      totals: stepEntry(id).weights ? panel.step.rowTotals : undefined,
      blocked: stepEntry(id).weights ? this._memo.once(`blocked ${panel.head}`, () => blockedWeights(this.host.good.trace, panel.head)) : undefined,
      highlight: active ? { cell: [active.row, active.col] } : undefined,
      onFocusCell: (row, col) => this._update({ focus: { id, head: panel.head, row, col } }),
    });
  }

  // Compares the focused gradient cell with central differences (lab.checkGradient).
  _checkGradient(id, panel, cell) {
    try {
      this._update({ check: { cell, result: checkGradient(this.host._lab, this.host.good.state, id, panel, cell) } });
    } catch (error) {
      if (error.name !== 'AttnLabError') throw error;
      this.host.showMessage(error.message);
    }
  }

  // Where rows with every key masked show (weights, outputs), say what they are: the core lists
  // them per head (a bias per head can block a row in one head only).
  _maskedRowsNote(id, trace, labels) {
    if (!stepEntry(id).maskedRows) return nothing;
    const perHead = trace.fullyMaskedRows;
    const alike = perHead.every((rows) => rows.join() === perHead[0].join());
    const groups = (alike ? [[perHead[0], '']] : perHead.map((rows, h) => [rows, ` in head ${h + 1}`])).filter(([rows]) => rows.length);
    if (!groups.length) return nothing;
    const count = groups.reduce((n, [rows]) => n + rows.length, 0);
    const names = groups.map(([rows, where]) => `${rows.map((r) => `“${labels.queries[r]}”`).join(', ')}${where}`).join('; ');
    return html`<p class="note" data-role="masked-rows">
      Every key is masked for ${count === 1 ? 'row' : 'rows'} ${names}: there is nothing to attend to, so attnlab defines
      ${count === 1 ? 'its' : 'their'} weights and outputs as zeros (Σ = 0, not 1).
    </p>`;
  }

  // What the step does and why; its live numbers wait while a prediction hides the result.
  _renderWhy(id, panel, labels, hidden) {
    if (!panel) return nothing;
    // `before`: the idea said without the answer a prediction asks for (softmax's row sum).
    const { idea, before, live } = this._memo.once(`why ${panel.head}`, () => stepEntry(id).why({ panel, labels, trace: this.host.good.trace }));
    return html`<div class="why" data-role="why" part="why">
      <p>${hidden && before ? before : idea}</p>
      ${hidden || !live ? nothing : html`<p data-role="why-live">${panel.head === undefined ? '' : `Head ${panel.head + 1}: `}${live}</p>`}
    </div>`;
  }

  // The extra panel a step's registry entry asks for under its result.
  _renderDetail(detail, panel, focused, labels) {
    if (detail === 'softmax-parts') return this._renderSoftmaxParts(panel, labels);
    if (detail === 'jacobian') return renderJacobian(panel, focused?.head === panel.head ? focused.row : undefined, labels);
    return nothing;
  }

  _renderSoftmaxParts(panel, labels) {
    const { rowMax, rowSum, exponentials } = panel.step;
    return html`<details open>
      <summary>The parts of softmax: row max m, exp(s̃ − m), and the row sum Σ</summary>
      <div class="matrices">
        ${matrixTable({
          name: 'softmax-exp',
          head: panel.head,
          caption: `exp(s̃ − m) (${shape(exponentials.length, exponentials[0].length)})`,
          values: exponentials,
          rowLabels: labels.queries,
          colLabels: labels.keys,
        })}
        ${matrixTable({
          name: 'softmax-row-stats',
          head: panel.head,
          caption: 'per row',
          values: rowMax.map((m, i) => [m, rowSum[i]]),
          rowLabels: labels.queries,
          colLabels: ['max m', 'sum Σ'],
        })}
      </div>
    </details>`;
  }
}

// once(key, make): make() the first time a key is asked for, then what it made.
function keeper(kept) {
  return (key, make) => {
    if (!kept.has(key)) kept.set(key, make());
    return kept.get(key);
  };
}

// The explanation of the focused cell of `panel`, by its step's registry entry.
function explainCell(panel, { row, col }, labels, trace) {
  return stepEntry(panel.step.id).explain({ panel, row, col, value: panel.step.values[row][col], labels, trace });
}

/** The stepper's entry among the views (views/index.js): it renders into the host itself. */
export const stepperView = {
  id: 'stepper',
  title: 'Step through',
  render: ({ stepper, message }) => stepper.render(message),
};
