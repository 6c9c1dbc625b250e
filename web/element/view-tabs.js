// The tab bar of <attn-lab tabs>: the stepper and every teaching view, in the WAI-ARIA tabs
// pattern. The list is one Tab stop (the selected tab); ←/→ (wrapping), Home and End move
// between the tabs and show the view reached, and stop there: on a tab they never change the
// step, which the host's own ←/→ do elsewhere in the element.
import { html } from 'lit';

import { VIEWS } from './views/index.js';

/** The tab list for `host` (the element) with view `current` selected. */
export function viewTabs(host, current) {
  // .tabs holds the strip's scroll cue on a narrow element (styles.js): a tablist owns only tabs.
  return html`<div class="tabs"><div role="tablist" aria-label="Views" part="tabs" @keydown=${(event) => onTabKey(host, current, event)}>
    ${VIEWS.map(
      ({ id, title }) =>
        html`<button role="tab" data-view=${id} aria-selected=${id === current ? 'true' : 'false'} tabindex=${id === current ? '0' : '-1'}
          @click=${() => host.showView(id)}>${title}</button>`,
    )}
  </div></div>`;
}

function onTabKey(host, current, event) {
  const ids = VIEWS.map((v) => v.id);
  const index = ids.indexOf(current);
  const target = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: ids.length - 1 }[event.key];
  if (target === undefined) return;
  event.preventDefault();
  event.stopPropagation(); // the step keys are the stepper's, not the tabs'
  const id = ids[(target + ids.length) % ids.length];
  if (!host.showView(id)) return;
  host.updateComplete.then(() => host.renderRoot.querySelector(`[role="tab"][data-view="${id}"]`)?.focus());
}
