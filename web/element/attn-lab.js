// <attn-lab>: scaled dot-product attention, computed by the wasm core, for a learner to
// step through and touch. This element is a router: it keeps the state (the URL schema in
// state.js), asks the core for its trace, keeps the last state the core accepted, writes the
// URL and shows the tabs; the view on show renders (the stepper, stepper/stepper.js, or a
// teaching view, views/index.js).
import { createAttnLab } from 'attnlab';
import { html, LitElement, nothing } from 'lit';

import { DEFAULT_PRESET, hasPreset, presetState } from './presets.js';
import { decodeHash, encodeHash, mergeState, sameTrace, StateError, traceRequest } from './state.js';
import { stepIds } from './stepper/panels.js';
import { Stepper } from './stepper/stepper.js';
import { HostScheme } from './shared/host-scheme.js';
import { baseStyles } from './shared/styles.js';
import { stepperStyles } from './stepper/styles.js';
import { VIEWS, viewById } from './views/index.js';

export { StateError } from './state.js';

const URL_WRITE_DELAY_MS = 120;
const LAYOUT = { inputs: ['shown', 'collapsed', 'hidden'], controls: ['full', 'minimal', 'none'] };

// "false" turns editing off; the attribute's absence leaves it on.
const editableConverter = { fromAttribute: (value) => value !== 'false' };

export class AttnLabElement extends LitElement {
  static styles = [baseStyles, stepperStyles];

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
    this._onHashChange = () => this._loadInitialState();
    this._flushUrl = () => {
      clearTimeout(this._urlTimer);
      if (this.good) window.history.replaceState(null, '', encodeHash(this.good.state));
    };
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
      this.applyPreset(event.detail.preset);
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
      (error) => this.showMessage(`The attention core could not load: ${error.message}`),
    );
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    window.removeEventListener('hashchange', this._onHashChange);
    window.removeEventListener('pagehide', this._flushUrl);
  }

  willUpdate(changed) {
    if (changed.has('inputs') || changed.has('controls')) this._checkLayout();
    if (!this._lab) return;
    if (changed.has('preset') || changed.has('state')) this._loadInitialState();
    else if (changed.has('step') && this.step) this.goToStep(this.step);
    else if (changed.has('view') && this.view) this.showView(this.view);
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
    if (!this.good || !stepIds(this.good.trace).includes(id)) return false;
    if (id !== this.good.state.step) {
      this.good = { ...this.good, state: { ...this.good.state, step: id } };
      this.draft = { ...this.draft, step: id };
      this._stepper.focus = null;
      this._emit('step-change', { step: id });
      this._writeUrl();
    }
    return true;
  }

  /** Shows view `id` (views/index.js); false when there is no such view. */
  showView(id) {
    if (!this.good || !viewById(id)) return false;
    const current = this.good.state;
    if (id !== current.view) {
      this._viewStates.set(current.view, current.viewState);
      this.apply({ ...this.draft, view: id, viewState: this._viewStates.get(id) ?? {} });
    }
    return true;
  }

  // ---- for the views ----

  /**
   * Asks the core for the trace of `state`. On success it becomes the shown state; on an
   * error the message names the problem and the last good trace stays on screen.
   */
  apply(state) {
    this.draft = state;
    let trace;
    try {
      state = { ...state, viewState: checkedViewState(state) };
      // A teaching view's slider or drag changes only viewState: the stepper's trace stands.
      trace = this.good && sameTrace(this.good.state, state) ? this.good.trace : this._lab.trace(traceRequest(state));
    } catch (error) {
      if (error.name !== 'AttnLabError' && error.name !== 'StateError') throw error;
      this.showMessage(error.message);
      return false;
    }
    const ids = stepIds(trace);
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
    this._writeUrl();
    return true;
  }

  /** Loads preset `id` (presets.js). The learner's way of working, predicting, stays on. */
  applyPreset(id) {
    this.invalid = new Map();
    if (!hasPreset(id)) {
      this.showMessage(`There is no preset "${String(id)}".`);
      return;
    }
    if (this.apply({ ...presetState(id), predict: this.draft?.predict ?? false })) {
      this.presetId = id;
      this._resetPoint = { state: this.good.state, presetId: id }; // what Reset returns to
    }
  }

  /**
   * Back to the preset the learner last chose, else to the state the element started from
   * (URL, or preset and state attributes). The view and predict stay; the URL follows.
   */
  reset() {
    this.invalid = new Map();
    if (!this._resetPoint || !this.draft) return this._loadInitialState();
    this._stepper.focus = null;
    const { view, viewState, predict } = this.draft;
    if (this.apply({ ...this._resetPoint.state, view, viewState, predict })) this.presetId = this._resetPoint.presetId;
  }

  /** Shows an error message; the last good state stays. */
  showMessage(text) {
    this.message = { text, error: true };
  }

  /**
   * How much of the stepper an embed shows: { inputs: 'shown'|'collapsed'|'hidden',
   * controls: 'full'|'minimal'|'none', resultFirst }. Given a `step`, an embed leads with
   * that step (its result first), the controls and inputs below it.
   */
  get layout() {
    return {
      inputs: LAYOUT.inputs.includes(this.inputs) ? this.inputs : 'shown',
      controls: LAYOUT.controls.includes(this.controls) ? this.controls : 'full',
      resultFirst: this.hasAttribute('step'),
    };
  }

  // An unknown inputs or controls value is named in the message; the default applies.
  _checkLayout() {
    for (const [name, values] of Object.entries(LAYOUT)) {
      const value = this[name];
      if (value != null && !values.includes(value)) this.showMessage(`${name}="${value}" is not one of ${values.join(', ')}; the default is used.`);
    }
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
        if (hasPreset(this.preset)) [state, fromPreset] = [presetState(this.preset), this.preset];
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
    this.presetId = fromPreset;
    this.invalid = new Map();
    this.good = null;
    this._stepper.focus = null;
    if (!this.apply(state) && !this.good) {
      problem ??= `This state could not be shown (${this.message.text}), so the default example is shown.`;
      this.apply(presetState(DEFAULT_PRESET));
    }
    if (problem) this.showMessage(problem);
    // What Reset returns to until the learner chooses a preset (reset() reads presetId first).
    this._resetPoint = { state: this.good.state, presetId: this.presetId };
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

  // ---- rendering ----

  render() {
    const error = this.message?.error;
    const message = html`<p class="message ${error ? 'error' : ''}" data-role="message" role=${error ? 'alert' : 'status'}>${this.message?.text ?? ''}</p>`;
    if (!this.good) return message;
    const { view, viewState } = this.good.state;
    return html`${this._renderTabs()} ${viewById(view).render({ lab: this._lab, viewState, message, stepper: this._stepper })}`;
  }

  _renderTabs() {
    if (!this.tabs) return nothing;
    const current = this.good.state.view;
    return html`<div role="tablist" aria-label="Views">
      ${VIEWS.map(
        ({ id, title }) =>
          html`<button role="tab" data-view=${id} aria-selected=${id === current ? 'true' : 'false'} @click=${() => this.showView(id)}>${title}</button>`,
      )}
    </div>`;
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

