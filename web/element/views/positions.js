// PLACEHOLDER: the positions view (to be written).
import { html } from 'lit';

import { ViewBase } from './view-base.js';
import { normalizeViewState } from './view-state.js';

const FIELDS = {};

class PositionsView extends ViewBase {
  render() {
    return html`<h2>Positions</h2>`;
  }
}

customElements.get('attn-positions-view') ?? customElements.define('attn-positions-view', PositionsView);

export const positionsView = {
  id: 'positions',
  title: 'Positions',
  normalize: (partial) => normalizeViewState('positions', FIELDS, partial),
  render: ({ lab, viewState }) => html`<attn-positions-view .lab=${lab} .viewState=${viewState}></attn-positions-view>`,
};
