// Where the shown state came from, when a view opened it (the model view's head: state.origin):
// a caption naming it ("little model · layer 2 · head 3 · “the text”") and Back to that view,
// which works inside an embed too (no tabs needed).
import { html, nothing } from 'lit';

import { DEFAULT_PRESET, presetState } from '../presets.js';

/** The origin's caption and Back button for `host` (<attn-lab>), or nothing. */
export function originBar(host) {
  const origin = host.good?.state.origin;
  if (!origin) return nothing;
  const back = () => {
    // The stepper's inputs were the head's; back on the default example, the view where it was.
    if (host.apply({ ...presetState(DEFAULT_PRESET), view: origin.view, viewState: origin.viewState })) host.presetId = DEFAULT_PRESET;
  };
  return html`<p class="origin" data-role="origin">
    <button data-action="back" @click=${back}>← Back to the ${origin.view} view</button>
    <span data-role="origin-label">${origin.label}</span>
  </p>`;
}
