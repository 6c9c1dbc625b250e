// PLACEHOLDER: the scaling view (to be written).
import { html } from 'lit';

import { ViewBase } from './view-base.js';
import { normalizeViewState } from './view-state.js';

const FIELDS = {};

class ScalingView extends ViewBase {
  render() {
    return html`<h2>Why 1/√d_k</h2>`;
  }
}

customElements.get('attn-scaling-view') ?? customElements.define('attn-scaling-view', ScalingView);

export const scalingView = {
  id: 'scaling',
  title: 'Why 1/√d_k',
  normalize: (partial) => normalizeViewState('scaling', FIELDS, partial),
  render: ({ lab, viewState }) => html`<attn-scaling-view .lab=${lab} .viewState=${viewState}></attn-scaling-view>`,
};
