// <attn-lab>: scaled dot-product attention, computed by the wasm core, for a learner to
// step through and touch. This element is a router: it keeps the state (the URL schema in
// state.js), asks the core for its trace, keeps the last state the core accepted (in the URL
// too, url-link.js) and shows the tabs; the view on show renders (the stepper,
// stepper/stepper.js, or a teaching view, views/index.js).
import { createAttnLab } from 'attnlab';
import { html, LitElement, nothing } from 'lit';

import { TRACE_GROUPS } from '../lib/core-lists.js'; // generated from the core's schema
import { embedLayout, layoutProblem } from './layout.js';
import { DEFAULT_PRESET, hasPreset, presetOfState, presetState, viewInputs } from './presets.js';
import { mergeState, sameTrace, StateError } from './state.js';
import { linkProblem, parseState } from './state-link.js';
import { backwardRequest } from './stepper/backward.js';
import { traceStepIds } from './steps/panels.js';
import { Stepper } from './stepper/stepper.js';
import { subscripted } from './shared/format.js';
import { HostScheme } from './shared/host-scheme.js';
import { elementStyles } from './shared/styles.js';
import { viewTabs } from './view-tabs.js';
import { stepperStyles, sumColumnStyles } from './stepper/styles.js';
import { UrlLink } from './url-link.js';
import { checkedViewState, viewById } from './views/index.js';

export { StateError } from './state.js';

// What the core's learning module traces (lab.loadLearning): the backward steps, and linear
// attention's and retention's steps (trace()'s family).
const needsLearning = (state) => Boolean(state.backward) || (state.family ?? 'softmax') !== 'softmax';

// "false" turns editing off; the attribute's absence leaves it on.
const editableConverter = { fromAttribute: (value) => value !== 'false' };

// This JSDoc is the source of custom-elements.json (scripts/custom-elements-manifest.config.mjs):
// attributes from `static properties`, types and meanings from @prop (PresetId, StepId, ViewId: their ids).
/**
 * Scaled dot-product attention, computed by a WebAssembly core, for a learner to step through
 * and touch: the stepper, or one teaching view on its own.
 *
 * @summary Steps through softmax(QKᵀ/√d_k)·V with every number computed by the core and editable.
 *
 * @prop {PresetId} preset - A stepper preset, or a teaching view shown on its own.
 * @prop {string} state - A JSON state (the schema of state.js, the page's URL) merged over the preset.
 * @prop {StepId} step - The step on view (a grad-* step needs backward in the state); an embed given one leads with its result.
 * @prop {ViewId} view - What is on view: the stepper (the default) or a teaching view.
 * @prop {boolean} tabs - A tab bar to switch between the stepper and every view.
 * @prop {boolean} editable - The attribute "false" shows the inputs read-only; editable otherwise.
 * @prop {'light' | 'dark' | 'auto'} theme - The colour scheme; "auto" (the default) follows the host page's declared scheme, else the reader's system.
 * @prop {boolean} urlState - Read the state from location.hash and keep it there (off by default: an embed never touches the host's URL).
 * @prop {'shown' | 'collapsed' | 'hidden'} inputs - The stepper's input editors: shown (the default), behind an "Inputs" disclosure, or hidden.
 * @prop {'full' | 'minimal' | 'none'} controls - The stepper's controls: options and step navigation (the default), step navigation only, or none.
 * @prop {boolean} noPredict - No "Predict, then reveal" switch (a state may still turn predict on).
 * @prop {boolean} noQuiz - The teaching views leave out their self-check quiz.
 *
 * @fires {CustomEvent<{ step: string }>} step-change - The step on view changed; bubbles out of the shadow root.
 * @fires {CustomEvent<{ state: object }>} state-change - The core accepted a new state (a copy in detail.state); bubbles out of the shadow root.
 *
 * @cssprop --attn-bg - Background.
 * @cssprop --attn-fg - Text.
 * @cssprop --attn-muted - Secondary text: labels, captions, axes.
 * @cssprop --attn-border - Borders of the element, its tables and controls.
 * @cssprop --attn-panel - Background of panels and table headers.
 * @cssprop --attn-accent - Focus rings, the selected tab and a chart's first series.
 * @cssprop --attn-error - Error messages and cells that are not numbers.
 * @cssprop --attn-correct - Right answers in the quizzes and predictions.
 * @cssprop --attn-series-1 - A chart's second series.
 * @cssprop --attn-ring-dark - The dark one of a highlighted cell's two rings.
 * @cssprop --attn-ring-light - The light one of a highlighted cell's two rings.
 * @cssprop --attn-font - The font family (the size is the host's 15px; set font-size on the element to change it).
 * @cssprop --attn-heat-low - With --attn-heat-high: the weights' colour scale runs from this colour at 0 (default viridis).
 * @cssprop --attn-heat-high - With --attn-heat-low: the weights' colour at 1.
 * @cssprop --attn-score-low - With --attn-score-high: the scores' colour at the negative end (default ColorBrewer RdBu).
 * @cssprop --attn-score-zero - The scores' colour at 0 when the host sets their ends (default near-white).
 * @cssprop --attn-score-high - With --attn-score-low: the scores' colour at the positive end.
 *
 * @csspart tabs - The tab bar (with the tabs attribute).
 * @csspart message - The status and error line.
 * @csspart controls - The stepper's options: preset, scaling, mask, heads, predict.
 * @csspart inputs - The stepper's input editors.
 * @csspart nav - The step navigation: first, previous, play, next, last and the list of steps.
 * @csspart step - The step on view: its title, why, formulas, matrices and explanation.
 * @csspart why - The step's paragraph on what it does and why, with live numbers.
 * @csspart formula - Each formula of the step (one per head).
 * @csspart operands - The matrices the step starts from.
 * @csspart result - The matrix the step computes.
 * @csspart matrix - Every matrix of the stepper, with its caption and legend.
 * @csspart explanation - The line explaining the hovered or focused cell.
 * @csspart export - The export buttons.
 * @csspart view - A teaching view (geometry, scaling, …) when one is on view.
 */
export class AttnLabElement extends LitElement {
  static styles = [elementStyles, stepperStyles, sumColumnStyles];

  static properties = {
    preset: { type: String },
    state: { type: String },
    step: { type: String },
    view: { type: String },
    tabs: { type: Boolean },
    editable: { converter: editableConverter },
    theme: { type: String, reflect: true },
    urlState: { type: Boolean, attribute: 'url-state' },
    // What an embed shows (README): the stepper's inputs and controls, predict's switch, quizzes.
    inputs: { type: String },
    controls: { type: String },
    noPredict: { type: Boolean, attribute: 'no-predict' },
    noQuiz: { type: Boolean, attribute: 'no-quiz', reflect: true },
    // Internal: what the views read and change through the methods below.
    good: { state: true },
    draft: { state: true },
    message: { state: true },
    invalid: { state: true },
    presetId: { state: true },
  };

  constructor() {
    super();
    this.editable = true;
    this.theme = 'auto';
    this.good = null; // { state, trace }: the last state the core accepted, and its trace
    this.draft = null; // the state being edited; differs from good.state after a rejected edit
    this.message = { text: 'Loading the attention core…', error: false };
    this.invalid = new Map(); // "X|r,c" → { text, message } for input cells that are not numbers
    this.presetId = null; // the preset the inputs still are, unedited
    this._viewStates = new Map(); // view id → its last view state, so a tab keeps its place
    this._stepper = new Stepper(this);
    this._hostScheme = new HostScheme(this); // theme="auto" follows the host page
    this._url = new UrlLink(this, () => this._loadInitialState()); // with url-state
    this.addEventListener('keydown', (event) => {
      if (this.good?.state.view === 'stepper') this._stepper.onKeyDown(event);
    });
    // Requests from a nested teaching view (shared/view-base.js); they stop here.
    this.addEventListener('view-state-change', (event) => {
      event.stopPropagation();
      this.apply({ ...this.draft, viewState: event.detail.viewState });
    });
    this.addEventListener('open-preset', (event) => {
      event.stopPropagation();
      this.applyPreset(event.detail.preset, { view: event.detail.view });
    });
    // A whole stepper state from a view (the train view's trained layer), on a preset's defaults.
    this.addEventListener('open-state', (event) => {
      event.stopPropagation();
      // Not a preset any more: the menu must not name the one underneath.
      if (this.apply({ ...presetState(DEFAULT_PRESET), ...event.detail.state })) this.presetId = null;
    });
    this.addEventListener('open-step', (event) => {
      event.stopPropagation();
      if (this.showView('stepper')) this.goToStep(event.detail.step);
    });
  }

  connectedCallback() {
    super.connectedCallback();
    // Focusable, so ←/→/Home/End step through the trace once the element has focus.
    if (!this.hasAttribute('tabindex')) this.tabIndex = 0;
    createAttnLab().then(
      (lab) => {
        this._lab = lab;
        this._loadInitialState();
      },
      (error) => this.showMessage(`The attention core could not load: ${error.message}`),
    );
  }

  willUpdate(changed) {
    if ((changed.has('inputs') || changed.has('controls')) && layoutProblem(this)) this.showMessage(layoutProblem(this));
    if (!this._lab) return;
    if (changed.has('preset') || changed.has('state')) this._loadInitialState();
    else if (changed.has('step') && this.step) this.goToStep(this.step);
    else if (changed.has('view') && this.view && this.good && !this.showView(this.view))
      this.showMessage(`There is no view "${this.view}", so the ${this.good.state.view} view stays.`);
  }

  updated() {
    if (!this.good) return;
    this.dataset.step = this.good.state.step;
    this.dataset.view = this.good.state.view;
  }

  // ---- public API ----

  /**
   * Merges a partial state (the URL schema) and recomputes. A partial that is not plain data
   * or has values of the wrong type shows its message and throws StateError; a view state
   * its view refuses, or a state the core rejects, shows its error. Either way the last good
   * state stays, and the next edit starts from it.
   */
  setState(partial) {
    this.invalid = new Map();
    let state;
    try {
      state = mergeState(this.draft ?? presetState(DEFAULT_PRESET), partial);
      const problem = linkProblem(state); // refused now rather than lost on the next reload
      if (problem) throw new StateError(problem);
    } catch (error) {
      if (error instanceof StateError) this.showMessage(`This state could not be applied (${error.message}); the last good one stays.`);
      throw error;
    }
    if (!this.apply(state) && this.good) this.draft = this.good.state;
  }

  /** A copy of the current state, step included. */
  getState() {
    return structuredClone(this.good?.state ?? null);
  }

  /** Shows step `id`; false when this trace has no such step. */
  goToStep(id) {
    if (!this.good || !traceStepIds(this.good.trace).includes(id)) return false;
    if (id !== this.good.state.step) {
      this.good = { ...this.good, state: { ...this.good.state, step: id } };
      this.draft = { ...this.draft, step: id };
      this._stepper.focus = null;
      this._emit('step-change', { step: id });
      this._url.write();
    }
    return true;
  }

  /**
   * Shows view `id` (views/index.js); false when there is no such view. A view that opens on
   * inputs of its own (the tokens view on words, presets.js viewInputs) loads them while the
   * inputs are still the default example, unedited.
   */
  showView(id) {
    if (!this.good || !viewById(id)) return false;
    const current = this.good.state;
    if (id !== current.view) {
      this._viewStates.set(current.view, current.viewState);
      const viewState = this._viewStates.get(id) ?? {};
      if (viewInputs(id) && presetOfState(this.draft) === DEFAULT_PRESET) this.applyPreset(viewInputs(id), { view: id, viewState });
      else this.apply({ ...this.draft, view: id, viewState });
    }
    return true;
  }

  // ---- for the views ----

  /**
   * Asks the core for the trace of `state`. On success it becomes the shown state; on an
   * error the message names the problem and the last good trace stays on screen. @internal
   */
  apply(state) {
    if (needsLearning(state) && !this._learningReady) return this._applyWithLearning(state);
    this._pendingBackward = null;
    this.draft = state;
    let trace;
    try {
      state = { ...state, viewState: checkedViewState(state) };
      // A teaching view's slider or drag changes only viewState: the stepper's trace stands.
      trace = this.good && sameTrace(this.good.state, state) ? this.good.trace : this._lab.trace(backwardRequest(this._lab, state));
    } catch (error) {
      if (error.name !== 'AttnLabError' && error.name !== 'StateError') throw error;
      this.showMessage(error.message);
      return false;
    }
    const ids = traceStepIds(trace);
    const step = ids.includes(state.step) ? state.step : ids[0];
    const previousStep = this.good?.state.step;
    this.good = { state: { ...state, step }, trace };
    this.draft = this.good.state;
    if (!this.invalid.size) this.message = null;
    // States are never mutated, so the copy can wait until a listener reads it.
    const snapshot = this.good.state;
    this._emit('state-change', {
      get state() {
        return structuredClone(snapshot);
      },
    });
    if (step !== previousStep) this._emit('step-change', { step });
    this._url.write();
    return true;
  }

  // The backward steps (and the families' steps) are in the core's learning module
  // (lab.loadLearning), loaded on first use: the state applies once it is in. Meanwhile the last
  // good trace stays or, on a first load, the forward steps show.
  _applyWithLearning(state) {
    // A first state whose forward steps the core refuses is refused as a whole, as without backward.
    // A family's first state shows softmax's steps meanwhile.
    const forward = { ...state, backward: false };
    for (const { name } of TRACE_GROUPS.TraceFamilyOptions) delete forward[name];
    if (!this.good && !this.apply(forward)) return false;
    this._pendingBackward = state;
    this._learningLoad ??= this._lab.loadLearning();
    this._learningLoad.then(
      () => {
        this._learningReady = true;
        if (this._pendingBackward === state) this.apply(state);
      },
      (error) => {
        this._learningLoad = null;
        this.showMessage(`The backward pass could not load: ${error.message}`);
      },
    );
    return true;
  }

  /**
   * Loads preset `id` (presets.js), shown in its own view or in `view` when given. The
   * learner's way of working, predicting, stays on. @internal
   */
  applyPreset(id, { view, viewState } = {}) {
    this.invalid = new Map();
    if (!hasPreset(id)) {
      this.showMessage(`There is no preset "${String(id)}".`);
      return;
    }
    const shown = view ? { view, viewState: viewState ?? (this.draft?.view === view ? this.draft.viewState : {}) } : {};
    if (this.apply({ ...presetState(id), ...shown, predict: this.draft?.predict ?? false })) {
      this.presetId = id;
      this._resetPoint = { state: this.good.state, presetId: id }; // what Reset returns to
    }
  }

  /**
   * Back to the preset the learner last chose, else to the state the element started from
   * (URL, or preset and state attributes). The view and predict stay; the URL follows. @internal
   */
  reset() {
    this.invalid = new Map();
    if (!this._resetPoint || !this.draft) return this._loadInitialState();
    this._stepper.focus = null;
    const { view, viewState, predict } = this.draft;
    if (this.apply({ ...this._resetPoint.state, view, viewState, predict })) this.presetId = this._resetPoint.presetId;
  }

  /** Shows an error message; the last good state stays. @internal */
  showMessage(text) {
    this.message = { text, error: true };
  }

  /** How much of the stepper an embed shows (layout.js). @internal */
  get layout() {
    return embedLayout(this);
  }

  // ---- state ----

  // The starting state: the URL (with url-state), else the preset and state attributes.
  _loadInitialState() {
    let state = presetState(DEFAULT_PRESET);
    let fromPreset = DEFAULT_PRESET; // the preset the state is, while unedited
    let problem = null;
    try {
      const fromUrl = this._url.read();
      if (fromUrl) {
        state = mergeState(state, fromUrl);
        fromPreset = presetOfState(state); // a link to a preset names it
      } else {
        if (hasPreset(this.preset)) [state, fromPreset] = [presetState(this.preset), this.preset];
        else if (this.preset) problem = `There is no preset "${this.preset}", so the default example is shown.`;
        if (this.state) [state, fromPreset] = [mergeState(state, parseState(this.state, 'the state attribute')), null];
      }
    } catch (error) {
      [state, fromPreset] = [presetState(DEFAULT_PRESET), DEFAULT_PRESET];
      const reason = error instanceof StateError ? error.message : 'it is not valid JSON';
      problem = `This state could not be read (${reason}), so the default example is shown.`;
    }
    if (this.step && !this.urlState) state.step = this.step;
    if (this.view && !this.urlState) state.view = this.view;
    this.presetId = fromPreset;
    this.invalid = new Map();
    this.good = null;
    this._stepper.focus = null;
    if (!this.apply(state) && !this.good) {
      problem ??= `This state could not be shown (${this.message.text}), so the default example is shown.`;
      this.apply(presetState(DEFAULT_PRESET));
    }
    problem ??= layoutProblem(this);
    if (problem) this.showMessage(problem);
    // What Reset returns to until the learner chooses a preset (reset() reads presetId first).
    this._resetPoint = { state: this.good.state, presetId: this.presetId };
  }

  _emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  // ---- rendering ----

  render() {
    const error = this.message?.error;
    const message = html`<p class="message ${error ? 'error' : ''} ${this.message?.text ? '' : 'empty'}" data-role="message" part="message" role=${error ? 'alert' : 'status'}>${subscripted(this.message?.text ?? '')}</p>`;
    if (!this.good) return message;
    const { view, viewState } = this.good.state;
    return html`${this.tabs ? viewTabs(this, view) : nothing} ${viewById(view).render({ lab: this._lab, viewState, message, stepper: this._stepper, trace: this.good.trace, state: this.good.state })}`;
  }
}

// Only where there is a registry: a server-side render in Node imports this module too.
if (globalThis.customElements && !customElements.get('attn-lab')) customElements.define('attn-lab', AttnLabElement);
