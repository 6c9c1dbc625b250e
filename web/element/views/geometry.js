// PLACEHOLDER: the geometry view (to be written).
import { html } from 'lit';

import { ViewBase } from './view-base.js';
import { normalizeViewState } from './view-state.js';

const FIELDS = {};

class GeometryView extends ViewBase {
  render() {
    return html`<h2>Geometry</h2>`;
  }
}

customElements.get('attn-geometry-view') ?? customElements.define('attn-geometry-view', GeometryView);

export const geometryView = {
  id: 'geometry',
  title: 'Geometry',
  normalize: (partial) => normalizeViewState('geometry', FIELDS, partial),
  render: ({ lab, viewState }) => html`<attn-geometry-view .lab=${lab} .viewState=${viewState}></attn-geometry-view>`,
};
