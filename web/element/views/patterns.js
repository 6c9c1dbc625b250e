// PLACEHOLDER: the patterns view (to be written).
import { html } from 'lit';

import { ViewBase } from './view-base.js';
import { normalizeViewState } from './view-state.js';

const FIELDS = {};

class PatternsView extends ViewBase {
  render() {
    return html`<h2>Patterns</h2>`;
  }
}

customElements.get('attn-patterns-view') ?? customElements.define('attn-patterns-view', PatternsView);

export const patternsView = {
  id: 'patterns',
  title: 'Patterns',
  normalize: (partial) => normalizeViewState('patterns', FIELDS, partial),
  render: ({ lab, viewState }) => html`<attn-patterns-view .lab=${lab} .viewState=${viewState}></attn-patterns-view>`,
};
