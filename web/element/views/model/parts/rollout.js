// Attention rollout (Abnar & Zuidema 2020) beside raw attention, for the last prediction: which
// input tokens reach the last position after every layer (model.rollout(), the core's), against
// where the last layer's heads look on average. Numbers from the core; the words name the
// largest of each.
import { html, LitElement } from 'lit';

import { f2, tokenStrip } from './charts.js';
import { partStyles } from './styles.js';


// The k largest entries of a row as "“piece” 0.42", largest first.
const largest = (row, pieces, k = 3) =>
  row
    .map((value, j) => [value, j])
    .sort((a, b) => b[0] - a[0])
    .slice(0, k)
    .map(([value, j]) => `“${pieces[j]}” ${f2(value)}`)
    .join(', ');

/** rollout: model.rollout(ids) ([layer] n × n); attention: forward's blocks[layer].attention ([head] n × n); pieces as shown. */
function rolloutFigure({ rollout, attention, pieces }) {
  const n = pieces.length;
  const last = attention.at(-1);
  const raw = Array.from({ length: n }, (_, j) => last.reduce((sum, head) => sum + head[n - 1][j], 0) / last.length);
  const rolled = rollout.at(-1)[n - 1];
  return html`<h3>Which tokens reach the last prediction? Rollout beside raw attention</h3>
    <p class="note">
      Raw attention is one layer's weights: where the last token looks in layer ${attention.length} (the mean of its heads). But
      each position already mixed in other tokens in earlier layers, and the residual stream carries every token forward too.
      Attention rollout (Abnar and Zuidema, 2020) follows both through all ${attention.length} layers: each layer's mean
      weights, averaged with the identity for the residual stream, multiplied together. Its row for the last token says how
      much of each input token reaches the prediction (it sums to 1). Neither is causal importance: the interventions above measure that.
    </p>
    <p class="note">Raw attention, layer ${attention.length}: ${largest(raw, pieces)}.</p>
    ${tokenStrip({ pieces, values: raw, label: `Raw attention of the last token, layer ${attention.length}`, role: 'raw-attention' })}
    <p class="note">Rollout through all layers: ${largest(rolled, pieces)}.</p>
    ${tokenStrip({ pieces, values: rolled, label: 'Attention rollout of the last token, all layers', role: 'rollout' })}`;
}

class RolloutFigure extends LitElement {
  static styles = partStyles;
  static properties = { rollout: { attribute: false }, attention: { attribute: false }, pieces: { attribute: false } };

  render() {
    return this.rollout ? rolloutFigure(this) : '';
  }
}

if (globalThis.customElements && !customElements.get('attn-model-rollout')) customElements.define('attn-model-rollout', RolloutFigure);
