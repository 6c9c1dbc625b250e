// PLACEHOLDER: the cost view (to be written).
import { html } from 'lit';

import { ViewBase } from './view-base.js';
import { normalizeViewState } from './view-state.js';

const FIELDS = {};

class CostView extends ViewBase {
  render() {
    return html`<h2>Cost</h2>`;
  }
}

customElements.get('attn-cost-view') ?? customElements.define('attn-cost-view', CostView);

export const costView = {
  id: 'cost',
  title: 'Cost',
  normalize: (partial) => normalizeViewState('cost', FIELDS, partial),
  render: ({ lab, viewState }) => html`<attn-cost-view .lab=${lab} .viewState=${viewState}></attn-cost-view>`,
};
