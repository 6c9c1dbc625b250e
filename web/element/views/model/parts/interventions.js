// Interventions (issue 38, item 3): switch heads off (zero or mean ablation, model.forward's and
// model.loss's `ablate`) and see what changes: the next-token bars, the loss of each token of
// the text, the loss on a small held-out sample; and every head ranked by what switching it off
// costs, beside its attention score: attention weights are not causal importance, shown with
// this model's numbers. The ranking is lazy (one head per frame, with progress): 12 heads are
// 12 forward passes of the text and of the sample.
import { html, LitElement, nothing } from 'lit';

import { f2, lossChart, mean, signed } from './charts.js';
import { headName, nextTokenBars, roleName } from '../figures.js';
import { SENTENCES } from '../sentences.js';
import { partStyles } from './styles.js';

const TOP = 10;
const key = ({ layer, head }) => `${layer},${head}`;

/** The mean loss per token of the held-out sample (every next token of the example sentences, pooled). */
export function sampleLoss(model, options) {
  const losses = SENTENCES.flatMap(([, s]) => model.loss(model.tokenize(s).tokenIds, options));
  return { mean: mean(losses), tokens: losses.length };
}

class Interventions extends LitElement {
  static styles = partStyles;

  static properties = {
    model: { attribute: false },
    tokenIds: { attribute: false },
    scores: { attribute: false },
    sampling: { attribute: false }, // { temperature, topK } of the view's bars
    _ablate: { state: true },
    _ablation: { state: true },
    _ranking: { state: true },
  };

  constructor() {
    super();
    [this._ablate, this._ablation, this._ranking] = [[], 'zero', null];
  }

  willUpdate(changed) {
    if (!this.model || !this.tokenIds) return;
    if (changed.has('tokenIds') || changed.has('_ablation')) [this._ranking, this._run] = [null, null]; // measured on another text or ablation
    const id = JSON.stringify([this.tokenIds, this._ablate, this._ablation, this.sampling]);
    if (id === this._id) return;
    this._id = id;
    const m = this.model;
    const options = { ablate: this._ablate, ablation: this._ablation };
    this._baseSample ??= sampleLoss(m);
    const logits = m.forward(this.tokenIds, options).logits.at(-1);
    const next = m.nextTokenDistribution(logits, this.sampling);
    const top = next.tokenIds.slice(0, TOP);
    this._result = {
      next: { tokenIds: top, probabilities: next.probabilities.slice(0, TOP), pieces: m.pieces(top) },
      base: this.tokenIds.length >= 2 ? m.loss(this.tokenIds) : null,
      loss: this.tokenIds.length >= 2 ? m.loss(this.tokenIds, options) : null,
      sample: this._ablate.length ? sampleLoss(m, options) : this._baseSample,
    };
  }

  _toggle(layer, head, on) {
    const rest = this._ablate.filter((a) => key(a) !== key({ layer, head }));
    this._ablate = on ? [...rest, { layer, head }].sort((a, b) => a.layer - b.layer || a.head - b.head) : rest;
  }

  // Each head alone switched off, one per frame so the page stays responsive; a newer text or
  // ablation (this._run replaced) stops the run.
  async _rank() {
    const m = this.model;
    const { layers, heads } = m.config;
    const run = { rows: [], total: layers * heads, ablation: this._ablation };
    [this._run, this._ranking] = [run, run];
    const base = mean(m.loss(this.tokenIds));
    for (let layer = 0; layer < layers; layer++)
      for (let head = 0; head < heads; head++) {
        await new Promise((done) => setTimeout(done, 0));
        if (this._run !== run) return;
        const options = { ablate: [{ layer, head }], ablation: run.ablation };
        const s = this.scores[layer][head];
        run.rows.push({
          layer,
          head,
          role: s.role,
          attention: Math.max(s.previousToken, s.firstToken),
          text: mean(m.loss(this.tokenIds, options)) - base,
          sample: sampleLoss(m, options).mean - this._baseSample.mean,
        });
        this._ranking = { ...run, rows: [...run.rows] };
      }
  }

  render() {
    if (!this._result) return nothing;
    const { layers, heads } = this.model.config;
    const r = this._result;
    const off = this._ablate.length;
    return html`<h3>Interventions: switch heads off</h3>
      <p class="note">
        Tick heads to switch them off: each one's output is replaced by zeros, or by its mean over the text's positions
        (mean ablation keeps what the head adds on average and removes only what depends on the tokens).
      </p>
      <div class="controls" role="group" aria-label="Heads to switch off">
        ${Array.from({ length: layers }, (_, l) =>
          Array.from(
            { length: heads },
            (_, h) => html`<label class="ablate"><input type="checkbox" data-control="ablate" data-layer=${l} data-head=${h}
                .checked=${this._ablate.some((a) => a.layer === l && a.head === h)} @change=${(e) => this._toggle(l, h, e.target.checked)} />${headName(l, h)}</label>`,
          ),
        )}
      </div>
      <div class="controls">
        <label>Ablation
          <select data-control="ablation" @change=${(e) => (this._ablation = e.target.value)}>
            <option value="zero" ?selected=${this._ablation === 'zero'}>zero</option>
            <option value="mean" ?selected=${this._ablation === 'mean'}>mean</option>
          </select>
        </label>
        <button data-action="ablate-none" ?disabled=${!off} @click=${() => (this._ablate = [])}>Switch all back on</button>
      </div>
      <p data-role="ablation-summary">
        ${off ? `With ${this._ablate.map((a) => headName(a.layer, a.head)).join(', ')} off (${this._ablation} ablation)` : 'With every head on'}:
        ${r.loss ? html`the text's mean loss is <span data-role="text-loss" data-value=${mean(r.loss)}>${f2(mean(r.loss))}</span> nats per token
            (${signed(mean(r.loss) - mean(r.base))});` : nothing}
        on the held-out sample (the ${SENTENCES.length} example sentences from addresses the model never saw, ${r.sample.tokens} tokens: a small
        sample, not the whole held-out split) it is
        <span data-role="sample-loss" data-value=${r.sample.mean}>${f2(r.sample.mean)}</span> (${signed(r.sample.mean - this._baseSample.mean)}).
      </p>
      <div data-role="ablated-next">${nextTokenBars(r.next, 'ablated-next-tokens')}</div>
      ${r.loss
        ? lossChart({
            caption: "The loss of each next token of the text (nats), every head on and with the heads ticked off",
            xLabel: 'token of the text',
            series: [
              { id: 'base', label: 'every head on', values: r.base },
              { id: 'ablated', label: off ? 'heads off' : 'heads off (none ticked)', values: r.loss, dashed: true },
            ],
          })
        : nothing}
      ${this._renderRanking()}`;
  }

  _renderRanking() {
    const run = this._ranking;
    const done = run && run.rows.length === run.total;
    const rows = run ? [...run.rows].sort((a, b) => b.text - a.text) : [];
    return html`<h4>Which heads matter? Attention is not importance</h4>
      <p class="note">
        A head that puts a lot of weight somewhere is not necessarily one the prediction needs. Switch each head off alone
        (${this._ablation} ablation) and rank them by how much the text's loss rises, beside their largest attention score.
      </p>
      <button data-action="rank" ?disabled=${run && !done} @click=${() => this._rank()}>
        ${run && !done ? `Measuring… ${run.rows.length} of ${run.total} heads` : 'Rank every head by ablation effect'}</button>
      ${run
        ? html`<table class="ranking" data-role="ranking">
            <thead>
              <tr><th scope="col">Head</th><th scope="col">Role, attention score</th><th scope="col">Text loss change</th><th scope="col">Held-out sample change</th></tr>
            </thead>
            <tbody>
              ${rows.map(
                (row) => html`<tr data-layer=${row.layer} data-head=${row.head} data-value=${row.text}>
                  <td>${headName(row.layer, row.head)}</td><td>${roleName(row.role)} ${f2(row.attention)}</td><td>${signed(row.text)}</td><td>${signed(row.sample)}</td>
                </tr>`,
              )}
            </tbody>
          </table>
          ${done ? html`<p data-role="ranking-summary">${this._caution(rows)}</p>` : nothing}`
        : nothing}`;
  }

  // The tutorials' caution in this model's numbers: where the most attentive head ranks by effect.
  _caution(rows) {
    const attentive = rows.reduce((a, b) => (b.attention > a.attention ? b : a));
    const rank = rows.indexOf(attentive) + 1;
    const top = rows[0];
    return `${headName(attentive.layer, attentive.head)} has the largest attention score (${f2(attentive.attention)}) and ranks ${rank} of ${rows.length} by effect (${signed(attentive.text)} nats); switching off ${headName(top.layer, top.head)} costs the most (${signed(top.text)} nats) with an attention score of ${f2(top.attention)}.`;
  }
}

if (globalThis.customElements && !customElements.get('attn-model-interventions')) customElements.define('attn-model-interventions', Interventions);
