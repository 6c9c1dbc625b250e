// In-context learning, shown (issue 38, item 2): a sequence repeated (random tokens from the
// core's induction probe, or the learner's text twice), the loss of each token in the first and
// the second copy, the best induction head's weight from each token of the second copy to the
// token after its earlier occurrence, and the circuit behind it: which earlier head, switched
// off, takes that head's induction score down most (K-composition reads a previous-token
// head's output in the keys). Every number is the core's (loss, forward, headScores); the
// words follow the numbers, so a model without an induction head is told so.
import { html, LitElement, nothing } from 'lit';

import { f2, lossChart, mean, signed, tokenStrip } from './charts.js';
import { headName, visiblePiece } from '../figures.js';
import { bestHead, INDUCTION_CLEAR } from './roles.js';
import { partStyles } from './styles.js';

const DEMO_PERIOD = 20; // the probe's length, as issue 38 measures it

// The induction score of one head's weights for period T: the mean over the repeat's queries
// i = T … 2T − 1 of A[i][i − T + 1], head_scores.hpp's definition (checked against the core by
// the view's test).
const inductionOf = (weights, T) => mean(Array.from({ length: T }, (_, k) => weights[T + k][k + 1]));

/** The repeated sequence, its losses, the best induction head and the earlier heads it reads. */
function inContext(model, ids, T) {
  const loss = model.loss(ids);
  const first = Array.from({ length: T }, (_, k) => (k ? loss[k - 1] : null)); // token 0 has no prediction
  const second = Array.from({ length: T }, (_, k) => loss[T - 1 + k]);
  const scores = model.headScores(ids, T);
  const best = bestHead(scores, 'induction');
  const { blocks } = model.forward(ids);
  const weights = blocks[best.layer].attention[best.head];
  const toNext = Array.from({ length: T }, (_, k) => weights[T + k][k + 1]);
  // Each head of an earlier layer switched off (zero ablation): the best head's induction score then.
  const sources = [];
  for (let layer = 0; layer < best.layer; layer++)
    for (let head = 0; head < model.config.heads; head++) {
      const ablated = model.forward(ids, { ablate: [{ layer, head }] }).blocks[best.layer].attention[best.head];
      sources.push({ layer, head, previousToken: scores[layer][head].previousToken, induction: inductionOf(ablated, T) });
    }
  sources.sort((a, b) => a.induction - b.induction);
  return { ids, T, pieces: model.pieces(ids).map(visiblePiece), first, second, scores, best, toNext, sources };
}

class InContextDemo extends LitElement {
  static styles = partStyles;

  static properties = {
    model: { attribute: false },
    text: { attribute: false },
    _source: { state: true },
    _seed: { state: true },
  };

  constructor() {
    super();
    [this._source, this._seed] = ['probe', 1];
  }

  willUpdate() {
    if (!this.model) return;
    const key = JSON.stringify([this._source, this._seed, this._source === 'text' ? this.text : '']);
    if (key === this._key) return;
    this._key = key;
    try {
      const sequence = this._sequence();
      if (!sequence) [this._result, this._message] = [null, 'Your text needs at least 2 tokens to repeat.'];
      else [this._result, this._message] = [inContext(this.model, ...sequence), null];
    } catch (error) {
      if (error.name !== 'AttnLabError') throw error;
      [this._result, this._message] = [null, `${error.message}.`];
    }
  }

  // The token ids and their period: the probe, or the text's tokens (at most half the context) twice.
  _sequence() {
    if (this._source === 'probe') return [this.model.inductionProbe(DEMO_PERIOD, this._seed), DEMO_PERIOD];
    const once = this.model.tokenize(this.text ?? '').tokenIds.slice(0, Math.floor(this.model.config.contextLength / 2));
    return once.length < 2 ? null : [[...once, ...once], once.length];
  }

  render() {
    return html`<h3>In-context learning: a sequence seen twice</h3>
      <p class="note">
        A model that learns from its context predicts the second copy of a sequence far better than the first: when it sees
        a token again, an <em>induction head</em> looks at the token that followed it last time and copies it forward.
      </p>
      <div class="controls">
        <label>Sequence
          <select data-control="incontext-source" @change=${(e) => (this._source = e.target.value)}>
            <option value="probe" ?selected=${this._source === 'probe'}>${DEMO_PERIOD} random tokens, twice</option>
            <option value="text" ?selected=${this._source === 'text'}>Your text, twice</option>
          </select>
        </label>
        ${this._source === 'probe'
          ? html`<button data-action="incontext-seed" @click=${() => (this._seed += 1)}>Other random tokens (seed ${this._seed})</button>`
          : nothing}
      </div>
      ${this._message ? html`<p class="message error" role="alert">${this._message}</p>` : nothing} ${this._result ? this._renderResult(this._result) : nothing}`;
  }

  _renderResult({ T, pieces, first, second, best, toNext, sources }) {
    const [m1, m2] = [mean(first.slice(1)), mean(second)];
    const copies = best.value >= INDUCTION_CLEAR;
    const name = headName(best.layer, best.head);
    return html`<p data-role="incontext-summary">
        Mean loss: ${f2(m1)} nats per token on the first copy, ${f2(m2)} on the second
        (${m2 < m1 ? `${Math.round((100 * m2) / m1)}% of the first` : 'no lower'}).
        ${copies
          ? html`The model uses its context: ${name} is an induction head (score ${f2(best.value)}).`
          : html`No head here scores above ${INDUCTION_CLEAR} as induction (the best, ${name}, scores ${f2(best.value)}): this model does not copy yet.`}
      </p>
      ${lossChart({
        caption: `The loss of each token (nats): the first copy and the second, by position in the copy (1 … ${T})`,
        xLabel: 'position in the copy',
        series: [
          { id: 'first', label: 'first copy', values: first },
          { id: 'second', label: 'second copy', values: second, dashed: true },
        ],
      })}
      <h4>${name}'s attention to the token after the earlier copy</h4>
      <p class="note">
        Each token of the second copy, with the weight ${name} gives to the token that followed the same token in the first
        copy as a bar (1 would be all of it); the mean is its induction score, ${f2(best.value)}.
      </p>
      ${tokenStrip({ pieces: pieces.slice(T), values: toNext, label: `${name}: weight to the token after the earlier copy`, role: 'induction-weights' })}
      ${this._renderCircuit(best, sources)}`;
  }

  _renderCircuit(best, sources) {
    const name = headName(best.layer, best.head);
    if (!sources.length)
      return html`<p class="note" data-role="circuit">${name} is in layer 1: it has no earlier layer to read, so no circuit of two heads here.</p>`;
    const top = sources[0];
    const drop = best.value - top.induction;
    return html`<h4>The circuit: which earlier head ${name}'s keys read</h4>
      <p class="note" data-role="circuit">
        An induction head finds "the token after the earlier copy" through its keys: a previous-token head in an earlier layer
        writes "the token before me was A" into each position, and the induction head's keys read it (K-composition).
        Switching each earlier head off (zero ablation) and measuring ${name} again:
        ${best.value < INDUCTION_CLEAR
          ? html`with no induction head there is no circuit to find yet; the table shows each earlier head switched off all the same.`
          : drop > 0.01
          ? html`without ${headName(top.layer, top.head)} (previous-token score ${f2(top.previousToken)}) its induction score falls from
              ${f2(best.value)} to ${f2(top.induction)}.`
          : html`no earlier head moves its induction score by more than 0.01 (${f2(best.value)}): there is no such circuit in this model yet.`}
        (Ablation switches off the whole path, keys and queries alike.)
      </p>
      <table class="ranking" data-role="circuit-table">
        <thead>
          <tr><th scope="col">Head off</th><th scope="col">Previous-token score</th><th scope="col">${name}'s induction then</th></tr>
        </thead>
        <tbody>
          ${sources.map(
            (s) => html`<tr data-layer=${s.layer} data-head=${s.head} data-value=${s.induction}>
              <td>${headName(s.layer, s.head)}</td><td>${f2(s.previousToken)}</td><td>${f2(s.induction)} (${signed(s.induction - best.value)})</td>
            </tr>`,
          )}
        </tbody>
      </table>`;
  }
}

if (globalThis.customElements && !customElements.get('attn-model-incontext')) customElements.define('attn-model-incontext', InContextDemo);
