// The base of every teaching view nested in <attn-lab>. The host hands it the loaded core
// (`lab`) and its part of the state (`viewState`); the view asks the core for numbers and
// renders them. A change a learner makes goes back to the host as a `view-state-change`
// event, so the URL and getState() follow it; `open-preset` asks the host to show a preset
// in the stepper.
import { LitElement } from 'lit';

import { viewStyles } from '../styles.js';

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
