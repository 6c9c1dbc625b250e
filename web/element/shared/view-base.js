// The base of every teaching view nested in <attn-lab>. The host hands it the loaded core
// (`lab`) and its part of the state (`viewState`); the view asks the core for numbers and
// renders them. A change a learner makes goes back to the host as a `view-state-change`
// event, so the URL and getState() follow it; `open-preset` asks the host to show a preset
// in the stepper.
import { LitElement } from 'lit';
import { html, unsafeStatic } from 'lit/static-html.js';

import { subscripted } from './format.js';
import { viewStyles } from './styles.js';
import { normalizeViewState, parseWhole, SEED_RANGE } from './view-state.js';

/** Lit's declarations of a view's internal reactive state: { name: { state: true } } for each name. */
export const internalState = (...names) => Object.fromEntries(names.map((name) => [name, { state: true }]));

export class ViewBase extends LitElement {
  static styles = viewStyles;

  static properties = {
    lab: { attribute: false },
    viewState: { attribute: false },
    _drafts: { state: true },
  };

  constructor() {
    super();
    this._drafts = {}; // field → { text, problem }: text typed into a field and refused
  }

  /**
   * A view that shows the core's numbers defines compute(lab, viewState), which asks the core
   * and returns what the view renders, and may define computeKey(viewState), the part of the
   * view state the numbers depend on (only a change of it asks the core again). Here, before
   * each render that a new core or view state causes, the result goes to `_result`; when the
   * core refuses, `_result` keeps the last good one and `_error` says why (followed by
   * "; <keeps> stays." where the view names what it keeps).
   */
  willUpdate(changed) {
    if (!this.compute || !this.lab || !this.viewState || !(changed.has('lab') || changed.has('viewState'))) return;
    const key = this.computeKey?.(this.viewState);
    if (key !== undefined && key === this._computedKey) return;
    try {
      this._result = this.compute(this.lab, this.viewState);
      this._computedKey = key;
      this._error = null;
    } catch (error) {
      const problem = this.coreProblem(error);
      this._error = this.keeps ? `${problem}; ${this.keeps} stays.` : problem;
    }
  }

  /** Merges `partial` into the view state and tells the host. */
  changeView(partial) {
    // A field given a good value no longer holds refused text.
    const stale = Object.keys(this._drafts).filter((field) => field in partial);
    if (stale.length) this._drafts = Object.fromEntries(Object.entries(this._drafts).filter(([field]) => !stale.includes(field)));
    this.dispatchEvent(new CustomEvent('view-state-change', { detail: { viewState: { ...this.viewState, ...partial } }, bubbles: true, composed: true }));
  }

  /**
   * Text typed into the whole-number field `field`. A whole number within lo…hi goes to
   * `use` (by default into the view state); anything else stays in the field, marked, with a
   * message naming the problem, and the view state keeps the last good value.
   */
  typeWhole(field, text, [lo, hi], label, use = (value) => this.changeView({ [field]: value })) {
    const value = parseWhole(text, lo, hi);
    if (value !== null) return use(value);
    const problem = `${label} must be a whole number from ${lo} to ${hi}, not "${text}"; the last good value, ${this.viewState[field]}, stays.`;
    this._drafts = { ...this._drafts, [field]: { text, problem } };
  }

  /** What `field`'s input shows: refused text being fixed, or the value in the state. */
  fieldText(field) {
    return this._drafts[field]?.text ?? String(this.viewState[field]);
  }

  /** The message about refused text, or null when every field holds a good value. */
  get draftProblem() {
    return Object.values(this._drafts)[0]?.problem ?? null;
  }

  /** The seed field, the same in every view; `use` receives a good seed. */
  seedInput({ disabled = false, use } = {}) {
    const [lo, hi] = SEED_RANGE;
    return html`<label>Seed
      <input data-control="seed" type="number" min=${lo} max=${hi} step="1" .value=${this.fieldText('seed')} ?disabled=${disabled}
        aria-invalid=${this._drafts.seed ? 'true' : 'false'} @change=${(e) => this.typeWhole('seed', e.target.value, SEED_RANGE, 'The seed', use)} />
    </label>`;
  }

  /** The causal checkbox of a view's controls; `also` joins the change (the flash view restarts its walk). */
  causalInput(checked, also = {}) {
    return html`<label><input data-control="causal" type="checkbox" .checked=${checked}
      @change=${(e) => this.changeView({ causal: e.target.checked, ...also })} />Causal</label>`;
  }

  /**
   * The message for a request the core refused (an AttnLabError: bad input, a size limit) or
   * a part of the package that could not load (a LoadError, naming it); any other error is a
   * bug, so it is thrown on rather than shown as the learner's fault.
   */
  coreProblem(error) {
    if (error.name !== 'AttnLabError' && error.name !== 'LoadError') throw error;
    return error.message;
  }

  /** What every view shows before its first result: its heading, and "Loading…" or why not. */
  placeholder(heading, error) {
    return html`<h2>${heading}</h2>${this.messageLine(error ?? 'Loading…')}`;
  }

  /**
   * The view's message line: a problem (announced as an alert) or, with `error` false, a
   * status; empty when there is nothing to say. Names such as d_k get real subscripts.
   */
  messageLine(text, { role = 'view-message', error = Boolean(text) } = {}) {
    return html`<p class="message ${error ? 'error' : ''}" data-role=${role} role=${error ? 'alert' : 'status'}>${subscripted(text ?? '')}</p>`;
  }

  /** Asks the host to load preset `id`, shown in the stepper or, given `view`, in that view. */
  openPreset(id, { view } = {}) {
    this.dispatchEvent(new CustomEvent('open-preset', { detail: { preset: id, view }, bubbles: true, composed: true }));
  }
}

/**
 * Registers a view's element as <attn-ID-view> and returns its entry for the registry
 * (views/index.js): { id, title, normalize(partialViewState), render({ lab, viewState, message,
 * trace, state }) }. A view that reads the host's own trace and state (the tokens view)
 * declares `trace` and `state` properties; the others ignore them.
 * `fields` is the view state's table for normalizeViewState (view-state.js), `renamed` the
 * older names of its fields ({ olderName: name }).
 */
export function defineView({ id, title, element, fields = {}, renamed = {} }) {
  const tag = `attn-${id}-view`;
  if (globalThis.customElements && !customElements.get(tag)) customElements.define(tag, element); // none in Node
  const literal = unsafeStatic(tag); // a fixed tag name, never user text
  return {
    id,
    title,
    normalize: (partial) => normalizeViewState(id, fields, partial, renamed),
    render: ({ lab, viewState, message, trace, state }) =>
      html`${message}<section data-role="view" data-view=${id} part="view"><${literal} .lab=${lab} .viewState=${viewState} .trace=${trace} .state=${state}></${literal}></section>`,
  };
}
