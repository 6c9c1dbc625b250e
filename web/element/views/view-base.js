// The base of every teaching view nested in <attn-lab>. The host hands it the loaded core
// (`lab`) and its part of the state (`viewState`); the view asks the core for numbers and
// renders them. A change a learner makes goes back to the host as a `view-state-change`
// event, so the URL and getState() follow it; `open-preset` asks the host to show a preset
// in the stepper.
import { LitElement } from 'lit';
import { html, unsafeStatic } from 'lit/static-html.js';

import { viewStyles } from '../styles.js';
import { normalizeViewState } from './view-state.js';

export class ViewBase extends LitElement {
  static styles = viewStyles;

  static properties = {
    lab: { attribute: false },
    viewState: { attribute: false },
  };

  /** Merges `partial` into the view state and tells the host. */
  changeView(partial) {
    this.dispatchEvent(
      new CustomEvent('view-state-change', { detail: { viewState: { ...this.viewState, ...partial } }, bubbles: true, composed: true }),
    );
  }

  /** Asks the host to load preset `id` into the stepper. */
  openPreset(id) {
    this.dispatchEvent(new CustomEvent('open-preset', { detail: { preset: id }, bubbles: true, composed: true }));
  }
}

/**
 * Registers a view's element as <attn-ID-view> and returns its entry for the registry
 * (views/index.js): { id, title, normalize(partialViewState), render({ lab, viewState }) }.
 * `fields` is the view state's table for normalizeViewState (view-state.js).
 */
export function defineView({ id, title, element, fields = {} }) {
  const tag = `attn-${id}-view`;
  customElements.get(tag) ?? customElements.define(tag, element);
  const literal = unsafeStatic(tag); // a fixed tag name, never user text
  return {
    id,
    title,
    normalize: (partial) => normalizeViewState(id, fields, partial),
    render: ({ lab, viewState }) => html`<${literal} .lab=${lab} .viewState=${viewState}></${literal}>`,
  };
}
