// PLACEHOLDER: the softmax view (to be written).
import { html } from 'lit';

import { ViewBase } from './view-base.js';
import { normalizeViewState } from './view-state.js';

const FIELDS = {};

class SoftmaxView extends ViewBase {
  render() {
    return html`<h2>Softmax up close</h2>`;
  }
}

customElements.get('attn-softmax-view') ?? customElements.define('attn-softmax-view', SoftmaxView);

export const softmaxView = {
  id: 'softmax',
  title: 'Softmax up close',
  normalize: (partial) => normalizeViewState('softmax', FIELDS, partial),
  render: ({ lab, viewState }) => html`<attn-softmax-view .lab=${lab} .viewState=${viewState}></attn-softmax-view>`,
};
