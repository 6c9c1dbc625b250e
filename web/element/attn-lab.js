// <attn-lab>: a learner edits tiny matrices and steps through scaled dot-product
// attention. Every number on screen comes from the wasm core's trace; this element only
// keeps the state, asks the core, and renders what it returns.
import { createAttnLab } from 'attnlab';
import { html, LitElement, nothing } from 'lit';

import { inputNames, MAX_EDIT_SIZE, parseCell, resize, setCell } from './shared/editing.js';
import { explain } from './stepper/explain.js';
import { downloadStep, EXPORT_KINDS } from './stepper/download.js';
import { fmt, shape } from './shared/format.js';
import { formula } from './shared/formula.js';
import { matrixTable } from './shared/matrix-table.js';
import { PredictController } from './stepper/predict.js';
import { DEFAULT_PRESET, PRESETS, presetState, STEPPER_PRESET_IDS } from './presets.js';
import { randomMatrix, seededRandom } from './shared/random.js';
import { decodeHash, encodeHash, mergeState, sameTrace, StateError, traceRequest } from './state.js';
import { stepIds, stepPanels, tokenLabels } from './stepper/steps.js';
import { styles } from './styles.js';
import { VIEWS, viewById } from './views/index.js';

export { StateError } from './state.js';

const HEATMAP_STEPS = new Set(['scores', 'scale', 'mask', 'softmax']);
const INPUT_CAPTIONS = { X: 'X (tokens)', Wq: 'W_Q', Wk: 'W_K', Wv: 'W_V', Wo: 'W_O', Q: 'Q', K: 'K', V: 'V' };
const PLAY_INTERVAL_MS = 1400;
const URL_WRITE_DELAY_MS = 120;

// "false" turns editing off; the attribute's absence leaves it on.
const editableConverter = { fromAttribute: (value) => value !== 'false' };

export class AttnLabElement extends LitElement {
  static styles = styles;

  static properties = {
    preset: { type: String },
    state: { type: String },
    step: { type: String },
    view: { type: String },
    tabs: { type: Boolean },
    editable: { converter: editableConverter },
    theme: { type: String, reflect: true },
    urlState: { type: Boolean, attribute: 'url-state' },
    _good: { state: true },
    _draft: { state: true },
    _message: { state: true },
    _invalid: { state: true },
    _focus: { state: true },
    _playing: { state: true },
    _seed: { state: true },
    _presetId: { state: true },
  };

  constructor() {
    super();
    this.editable = true;
    this.theme = 'auto';
    this._good = null; // { state, trace }: the last state the core accepted, and its trace
    this._draft = null; // the state being edited; differs from _good.state after a rejected edit
    this._message = null; // { text, error }
    this._invalid = new Map(); // "X|r,c" → { text, message } for cells that are not numbers
    this._focus = null; // { id, head, row, col } of the explained cell
    this._playing = false;
    this._seed = 1;
    this._viewStates = new Map(); // view id → its last view state, so a tab keeps its place
    this._predictions = new PredictController(this);
    this._onHashChange = () => this._loadInitialState();
    this._flushUrl = () => {
      clearTimeout(this._urlTimer);
      if (this._good) window.history.replaceState(null, '', encodeHash(this._good.state));
    };
    this.addEventListener('keydown', (event) => this._onKeyDown(event));
    // Requests from a nested teaching view (shared/view-base.js); they stop here.
    this.addEventListener('view-state-change', (event) => {
      event.stopPropagation();
      this._change({ viewState: event.detail.viewState });
    });
    this.addEventListener('open-preset', (event) => {
      event.stopPropagation();
      this._applyPreset(event.detail.preset);
    });
  }

  connectedCallback() {
    super.connectedCallback();
    // Focusable, so ←/→/Home/End step through the trace once the element has focus.
    if (!this.hasAttribute('tabindex')) this.tabIndex = 0;
    if (this.urlState) {
      window.addEventListener('hashchange', this._onHashChange);
      window.addEventListener('pagehide', this._flushUrl);
    }
    createAttnLab().then(
      (lab) => {
        this._lab = lab;
        this._loadInitialState();
      },
      (error) => {
        this._message = { text: `The attention core could not load: ${error.message}`, error: true };
      },
    );
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    window.removeEventListener('hashchange', this._onHashChange);
    window.removeEventListener('pagehide', this._flushUrl);
    this._stopPlaying();
  }

  willUpdate(changed) {
    if (!this._lab) return;
    if (changed.has('preset') || changed.has('state')) this._loadInitialState();
    else if (changed.has('step') && this.step) this.goToStep(this.step);
    else if (changed.has('view') && this.view) this.showView(this.view);
  }

  updated() {
    if (!this._good) return;
    this.dataset.step = this._good.state.step;
    this.dataset.view = this._good.state.view;
  }

  // ---- public API ----

  /**
   * Merges a partial state (the URL schema) and recomputes. Throws StateError for values of
   * the wrong type; a state the core rejects shows its error and leaves the last good state.
   */
  setState(partial) {
    this._invalid = new Map();
    if (!this._apply(mergeState(this._draft ?? presetState(DEFAULT_PRESET), partial)) && this._good) {
      this._draft = this._good.state;
    }
  }

  /** A copy of the current state, step included. */
  getState() {
    return structuredClone(this._good?.state ?? null);
  }

  /** Shows step `id`; false when this trace has no such step. */
  goToStep(id) {
    if (!this._good || !stepIds(this._good.trace).includes(id)) return false;
    if (id !== this._good.state.step) {
      this._good = { ...this._good, state: { ...this._good.state, step: id } };
      this._draft = { ...this._draft, step: id };
      this._focus = null;
      this._emit('step-change', { step: id });
      this._writeUrl();
    }
    return true;
  }

  /** Shows view `id` (views/index.js); false when there is no such view. */
  showView(id) {
    if (!this._good || !viewById(id)) return false;
    const current = this._good.state;
    if (id !== current.view) {
      this._viewStates.set(current.view, current.viewState);
      this._apply({ ...this._draft, view: id, viewState: this._viewStates.get(id) ?? {} });
    }
    return true;
  }

  // ---- state ----

  // The starting state: the URL (with url-state), else the preset and state attributes.
  _loadInitialState() {
    let state = presetState(DEFAULT_PRESET);
    let fromPreset = DEFAULT_PRESET; // the preset the state is, while unedited
    let problem = null;
    try {
      const fromUrl = this.urlState ? decodeHash(window.location.hash) : null;
      if (fromUrl) {
        state = mergeState(state, fromUrl);
        fromPreset = null;
      } else {
        if (PRESETS[this.preset]) [state, fromPreset] = [presetState(this.preset), this.preset];
        else if (this.preset) problem = `There is no preset "${this.preset}", so the default example is shown.`;
        if (this.state) [state, fromPreset] = [mergeState(state, JSON.parse(this.state)), null];
      }
    } catch (error) {
      [state, fromPreset] = [presetState(DEFAULT_PRESET), DEFAULT_PRESET];
      const reason = error instanceof StateError ? error.message : 'it is not valid JSON';
      problem = `This state could not be read (${reason}), so the default example is shown.`;
    }
    if (this.step && !this.urlState) state.step = this.step;
    if (this.view && !this.urlState) state.view = this.view;
    this._presetId = fromPreset;
    this._invalid = new Map();
    this._good = null;
    if (!this._apply(state) && !this._good) {
      problem ??= `This state could not be shown (${this._message.text}), so the default example is shown.`;
      this._apply(presetState(DEFAULT_PRESET));
    }
    if (problem) this._message = { text: problem, error: true };
  }

  // Asks the core for the trace of `state`. On success it becomes the shown state; on an
  // error the message names the problem and the last good trace stays on screen.
  _apply(state) {
    this._draft = state;
    let trace;
    try {
      state = { ...state, viewState: checkedViewState(state) };
      // A teaching view's slider or drag changes only viewState: the stepper's trace stands.
      trace = this._good && sameTrace(this._good.state, state) ? this._good.trace : this._lab.trace(traceRequest(state));
    } catch (error) {
      if (error.name !== 'AttnLabError' && error.name !== 'StateError') throw error;
      this._message = { text: error.message, error: true };
      return false;
    }
    const ids = stepIds(trace);
    const step = ids.includes(state.step) ? state.step : ids[0];
    const previousStep = this._good?.state.step;
    this._good = { state: { ...state, step }, trace };
    this._draft = this._good.state;
    this._message = this._invalid.size ? this._message : null;
    // States are never mutated, so the copy can wait until a listener reads it.
    const snapshot = this._good.state;
    this._emit('state-change', {
      get state() {
        return structuredClone(snapshot);
      },
    });
    if (step !== previousStep) this._emit('step-change', { step });
    this._writeUrl();
    return true;
  }

  // The URL follows the state a moment after the last change: writing it costs more than a
  // whole re-render, so a burst of edits writes it once. Leaving the page writes it at once.
  _writeUrl() {
    if (!this.urlState) return;
    clearTimeout(this._urlTimer);
    this._urlTimer = setTimeout(this._flushUrl, URL_WRITE_DELAY_MS);
  }

  _emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  _change(partial) {
    this._apply({ ...this._draft, ...partial });
  }

  // ---- input edits ----

  _editCell(name, row, col, text) {
    const key = `${name}|${row},${col}`;
    const value = parseCell(text);
    const invalid = new Map(this._invalid);
    if (value === null) {
      invalid.set(key, { text, message: `"${text}" is not a number` });
      this._invalid = invalid;
      this._message = { text: `${INPUT_CAPTIONS[name]} row ${row + 1}, column ${col + 1}: "${text}" is not a number; the last good result stays.`, error: true };
      return;
    }
    invalid.delete(key);
    this._invalid = invalid;
    this._presetId = null;
    this._apply(setCell(this._draft, name, row, col, value));
  }

  _resize(name, axis, delta) {
    const next = resize(this._draft, name, axis, delta);
    if (next) {
      this._invalid = new Map();
      this._presetId = null;
      this._apply(next);
    }
  }

  _randomize() {
    const random = seededRandom(this._seed);
    const next = structuredClone(this._draft);
    for (const name of inputNames(next)) next[name] = randomMatrix(next[name].length, next[name][0].length, random);
    this._invalid = new Map();
    this._presetId = null;
    this._apply(next);
  }

  _reset() {
    this._invalid = new Map();
    this._loadInitialState();
  }

  _setMode(mode) {
    const next = presetState(mode === 'x' ? 'self' : 'tiny');
    this._invalid = new Map();
    this._apply({ ...next, causal: this._draft.causal, temperature: this._draft.temperature, scale: this._draft.scale, predict: this._draft.predict });
  }

  _toggleOutputProjection(on) {
    const width = this._draft.Wv[0].length;
    const Wo = on ? Array.from({ length: width }, (_, i) => Array.from({ length: width }, (_, j) => (i === j ? 1 : 0))) : null;
    this._change({ Wo });
  }

  _togglePadding(key) {
    const keyPadding = this._draft.keyPadding.map((padded, j) => (j === key ? !padded : padded));
    this._change({ keyPadding });
  }

  // ---- stepping ----

  _moveStep(where) {
    const ids = stepIds(this._good.trace);
    const index = ids.indexOf(this._good.state.step);
    const target = { first: 0, prev: index - 1, next: index + 1, last: ids.length - 1 }[where];
    if (target >= 0 && target < ids.length) this.goToStep(ids[target]);
    return target < ids.length - 1;
  }

  _togglePlay() {
    if (this._playing) return this._stopPlaying();
    if (!this._moveStep('next')) this.goToStep(stepIds(this._good.trace)[0]);
    this._playing = true;
    this._timer = setInterval(() => {
      if (!this._moveStep('next')) this._stopPlaying();
    }, PLAY_INTERVAL_MS);
  }

  _stopPlaying() {
    clearInterval(this._timer);
    this._playing = false;
  }

  _onKeyDown(event) {
    const origin = event.composedPath()[0];
    if (!this._good || origin.matches?.('input, select, textarea')) return;
    const where = { ArrowLeft: 'prev', ArrowRight: 'next', Home: 'first', End: 'last' }[event.key];
    if (!where || this._good.state.view !== 'stepper') return;
    event.preventDefault();
    this._moveStep(where);
  }

  // ---- rendering ----

  render() {
    if (!this._good) {
      return html`<p class="message ${this._message?.error ? 'error' : ''}" data-role="message" role="status">
        ${this._message?.text ?? 'Loading the attention core…'}
      </p>`;
    }
    const message = html`<p class="message ${this._message?.error ? 'error' : ''}" data-role="message" role=${this._message?.error ? 'alert' : 'status'}>
      ${this._message?.text ?? ''}
    </p>`;
    const { view, viewState } = this._good.state;
    if (view !== 'stepper') {
      return html`${this._renderTabs()} ${message}
        <section data-role="view" data-view=${view}>${viewById(view).render({ lab: this._lab, viewState })}</section>`;
    }
    return html`${this._renderTabs()} ${this._renderControls()} ${message} ${this._renderInputs()} ${this._renderNav()} ${this._renderStep()}`;
  }

  _renderTabs() {
    if (!this.tabs) return nothing;
    const current = this._good.state.view;
    return html`<div role="tablist" aria-label="Views">
      ${VIEWS.map(
        ({ id, title }) =>
          html`<button role="tab" data-view=${id} aria-selected=${id === current ? 'true' : 'false'} @click=${() => this.showView(id)}>${title}</button>`,
      )}
    </div>`;
  }

  _renderControls() {
    const s = this._draft;
    const canEdit = this.editable;
    return html`<div class="controls" role="group" aria-label="Options">
      <label
        >Preset
        <select data-control="preset" @change=${(e) => this._applyPreset(e.target.value)}>
          <option value="" disabled ?selected=${!PRESETS[this._presetId]}>Your own inputs</option>
          ${STEPPER_PRESET_IDS.map((id) => html`<option value=${id} ?selected=${id === this._presetId}>${PRESETS[id].name}</option>`)}
        </select></label
      >
      <label
        >Input
        <select data-control="mode" ?disabled=${!canEdit} @change=${(e) => this._setMode(e.target.value)}>
          <option value="x" ?selected=${s.mode === 'x'}>tokens X and weights</option>
          <option value="qkv" ?selected=${s.mode === 'qkv'}>Q, K, V directly</option>
        </select></label
      >
      <label
        >Heads
        <input data-control="heads" type="number" min="1" max=${MAX_EDIT_SIZE} .value=${String(s.heads)}
          @change=${(e) => this._changeHeads(e.target.value)} /></label>
      <label><input data-control="causal" type="checkbox" .checked=${s.causal} @change=${(e) => this._change({ causal: e.target.checked })} />Causal mask</label>
      <label><input data-control="predict" type="checkbox" .checked=${s.predict} @change=${(e) => this._change({ predict: e.target.checked })} />Predict, then reveal</label>
      <label><input data-control="scaling" type="checkbox" .checked=${s.scale !== false} @change=${(e) => this._change({ scale: e.target.checked })} />Scale by 1/√d<sub>k</sub></label>
      <label
        >Temperature
        <input data-control="temperature" type="range" min="0.1" max="4" step="0.1" .value=${String(s.temperature)}
          @input=${(e) => this._change({ temperature: Number(e.target.value) })} />
        <output>${fmt(s.temperature)}</output></label
      >
      ${s.mode === 'x'
        ? html`<label><input data-control="positional" type="checkbox" .checked=${s.positional === 'sinusoidal'}
              @change=${(e) => this._change({ positional: e.target.checked ? 'sinusoidal' : 'none' })} />Sinusoidal positions</label>
            <label><input data-control="wo" type="checkbox" .checked=${s.Wo != null} ?disabled=${!canEdit}
              @change=${(e) => this._toggleOutputProjection(e.target.checked)} />Output projection W<sub>O</sub></label>`
        : nothing}
      ${canEdit
        ? html`<label>Seed <input data-control="seed" type="number" .value=${String(this._seed)} @change=${(e) => (this._seed = Number(e.target.value) || 0)} /></label>
            <button data-action="randomize" @click=${() => this._randomize()}>Randomise</button>
            <button data-action="reset" @click=${() => this._reset()}>Reset</button>`
        : nothing}
    </div>`;
  }

  _applyPreset(id) {
    this._invalid = new Map();
    // Predicting is the learner's way of working, not part of an example: it stays on.
    if (this._apply({ ...presetState(id), predict: this._draft?.predict ?? false })) this._presetId = id;
  }

  _changeHeads(text) {
    const heads = Number(text);
    if (!Number.isInteger(heads) || heads < 1) {
      this._message = { text: `Heads must be a whole number of at least 1, not "${text}".`, error: true };
      return;
    }
    this._change({ heads });
  }

  _renderInputs() {
    const s = this._draft;
    const { queries, keys } = tokenLabels(s);
    return html`<section data-role="inputs" aria-label="Inputs">
      <h2>Inputs</h2>
      ${this._renderTokens(keys)}
      <div class="matrices">
        ${inputNames(s).map((name) => this._renderEditor(name, name === 'K' || name === 'V' ? keys : name === 'X' || name === 'Q' ? queries : null))}
      </div>
    </section>`;
  }

  _renderTokens(keys) {
    const s = this._draft;
    const label = s.mode === 'x' ? 'Tokens' : 'Keys';
    return html`<div class="tokens controls" role="group" aria-label=${label}>
      <span>${label}:</span>
      ${keys.map(
        (name, j) => html`<span>
          ${this.editable
            ? html`<input data-token=${j} aria-label="Label of token ${j + 1}" .value=${s.tokens[j] ?? ''}
                @input=${(e) => this._setToken(j, e.target.value)} />`
            : html`<span>${name}</span>`}
          <button data-action="pad-key" data-key=${j} aria-pressed=${s.keyPadding[j] ? 'true' : 'false'}
            title="Treat this key as padding: no query attends to it" @click=${() => this._togglePadding(j)}>
            pad
          </button>
        </span>`,
      )}
    </div>`;
  }

  _setToken(index, text) {
    const tokens = Array.from({ length: Math.max(this._draft.tokens.length, index + 1) }, (_, i) => this._draft.tokens[i] ?? '');
    tokens[index] = text;
    this._change({ tokens });
  }

  _renderEditor(name, rowLabels) {
    const values = this._draft[name];
    const invalid = new Map();
    for (const [key, bad] of this._invalid) if (key.startsWith(`${name}|`)) invalid.set(key.slice(name.length + 1), bad);
    const labels = rowLabels ?? values.map((_, i) => String(i + 1));
    const table = matrixTable({
      name,
      caption: `${INPUT_CAPTIONS[name]} (${shape(values.length, values[0].length)})`,
      values,
      rowLabels: labels,
      colLabels: values[0].map((_, j) => String(j + 1)),
      edit: this.editable ? { invalid, label: INPUT_CAPTIONS[name], onInput: (r, c, text) => this._editCell(name, r, c, text) } : undefined,
    });
    if (!this.editable) return table;
    const button = (action, axis, delta, text) =>
      html`<button data-action=${action} data-target=${name} aria-label="${text} of ${INPUT_CAPTIONS[name]}" @click=${() => this._resize(name, axis, delta)}>${text}</button>`;
    return html`<div>
      ${table}
      <div class="resize">
        ${button('add-row', 'row', 1, '+ row')} ${button('remove-row', 'row', -1, '− row')} ${button('add-col', 'col', 1, '+ col')}
        ${button('remove-col', 'col', -1, '− col')}
      </div>
    </div>`;
  }

  _renderNav() {
    const ids = stepIds(this._good.trace);
    const current = ids.indexOf(this._good.state.step);
    const titleOf = (id) => this._good.trace.steps.find((s) => s.id === id).title.replace(/ \(head \d+\)$/, '');
    return html`<nav aria-label="Steps">
      <div class="nav">
        <button data-action="first" @click=${() => this._moveStep('first')} ?disabled=${current === 0}>« First</button>
        <button data-action="prev" @click=${() => this._moveStep('prev')} ?disabled=${current === 0}>◀ Prev</button>
        <button data-action="play" aria-pressed=${this._playing ? 'true' : 'false'} @click=${() => this._togglePlay()}>${this._playing ? '⏸ Pause' : '▶ Play'}</button>
        <button data-action="next" @click=${() => this._moveStep('next')} ?disabled=${current === ids.length - 1}>Next ▶</button>
        <button data-action="last" @click=${() => this._moveStep('last')} ?disabled=${current === ids.length - 1}>Last »</button>
        <input data-control="step" type="range" min="0" max=${ids.length - 1} .value=${String(current)} aria-label="Step"
          aria-valuetext=${titleOf(ids[current])} @input=${(e) => this.goToStep(ids[Number(e.target.value)])} />
        <span>Step ${current + 1} of ${ids.length}</span>
      </div>
      <ol class="steps">
        ${ids.map(
          (id, i) => html`<li><button data-goto=${id} aria-current=${i === current ? 'step' : 'false'} @click=${() => this.goToStep(id)}>${i + 1}. ${id}</button></li>`,
        )}
      </ol>
    </nav>`;
  }

  _renderStep() {
    const { state, trace } = this._good;
    const id = state.step;
    const panels = stepPanels(trace, state, id);
    const labels = tokenLabels(state);
    const focused = this._focus?.id === id ? this._focus : null;
    const prediction = this._predictions.forStep(panels, trace, state, id, labels);
    return html`<section class="step" data-role="step" aria-live="polite">
      <h2>${panels[0].step.title.replace(/ \(head \d+\)$/, '')}</h2>
      ${prediction.template}
      ${panels.map((panel) => {
        const active = focused && focused.head === panel.head ? focused : null;
        const explanation = active ? explain(id, panel, state, labels, active.row, active.col) : null;
        return html`<div class="panel">
          ${panel.head !== undefined ? html`<h3>Head ${panel.head + 1}</h3>` : nothing}
          <div class="formula" data-role="formula" ${formula(panel.step.formula)}></div>
          <p class="shapes">${[...panel.operands.map((o) => `${o.caption}: ${shape(o.values.length, o.values[0].length)}`), `result: ${prediction.hidden ? '?' : shape(...panel.step.shape)}`].join(' · ')}</p>
          <div class="matrices">
            <div class="matrices" data-role="operands">
              ${panel.operands.map((o, i) => matrixTable({ ...o, caption: `${o.caption} (${shape(o.values.length, o.values[0].length)})`, heat: HEATMAP_STEPS.has(o.name), highlight: explanation?.highlight[i] }))}
            </div>
            <div class="matrices" data-role="result" data-hidden=${prediction.hidden ? 'true' : nothing}>
              ${prediction.hidden ? html`<p class="hidden-result">The result is hidden until you predict it.</p>` : this._renderResult(id, panel, active)}
            </div>
          </div>
          ${id === 'softmax' && !prediction.hidden ? this._renderSoftmaxParts(panel, labels) : nothing}
        </div>`;
      })}
      <div class="controls" role="group" aria-label="Export this step">
        <span>Export:</span>
        ${EXPORT_KINDS.map(
          ([kind, label]) => html`<button data-export=${kind} @click=${() => downloadStep(kind, { state, trace, id, panels, labels })}>${label}</button>`,
        )}
      </div>
      <p class="explanation" data-role="explanation" aria-live="polite">
        ${focused ? this._explanationText(id, panels, state, labels, focused) : 'Hover over or focus a result cell to see how it is computed.'}
      </p>
    </section>`;
  }

  _explanationText(id, panels, state, labels, focused) {
    const panel = panels.find((p) => p.head === focused.head);
    return panel ? explain(id, panel, state, labels, focused.row, focused.col).text : '';
  }

  _renderResult(id, panel, active) {
    return matrixTable({
      name: id,
      head: panel.head,
      caption: `${panel.step.id}${panel.head !== undefined ? ` head ${panel.head + 1}` : ''} (${shape(...panel.step.shape)})`,
      values: panel.step.values,
      rowLabels: panel.rowLabels,
      colLabels: panel.colLabels,
      heat: HEATMAP_STEPS.has(id),
      totals: id === 'softmax' ? panel.step.rowTotals : undefined,
      highlight: active ? { cell: [active.row, active.col] } : undefined,
      onFocusCell: (row, col) => (this._focus = { id, head: panel.head, row, col }),
    });
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

// The state's view must exist and its view state pass that view's checks (filled with its
// defaults). Throws StateError.
function checkedViewState({ view, viewState }) {
  const found = viewById(view);
  if (!found) throw new StateError(`there is no view "${view}" (views: ${VIEWS.map((v) => v.id).join(', ')})`);
  return found.normalize ? found.normalize(viewState) : {};
}

customElements.get('attn-lab') ?? customElements.define('attn-lab', AttnLabElement);

