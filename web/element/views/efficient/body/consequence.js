// The consequence for a real model (issue 37, item 6): the little language model with one head,
// or every head, computed by the family and knob picked above (model.loss's and
// model.forward's `replace`), beside the model as trained: the text's mean loss per token, the
// loss on the held-out sample, each token's loss and the next-token bars. The model loads when
// the learner asks (about 1.5 MB), shared with the model view; its numbers are the core's.
import { css, html, LitElement, nothing } from 'lit';

import { headName, nextTokenBars } from '../../model/figures.js';
import { sharedModel } from '../../model/model.js';
import { f2, lossChart, mean, signed } from '../../model/parts/charts.js';
import { sampleLoss } from '../../model/parts/interventions.js';
import { partStyles } from '../../model/parts/styles.js';
import { SENTENCES } from '../../model/sentences.js';
import { patternRequest } from './families.js';

const TOP = 10;
const TYPING_PAUSE_MS = 150; // as the model view: the panel follows the text after a pause

/**
 * model.loss's and forward's `replace` (less `heads`) for view state v, on texts of at least n
 * tokens: the view's knobs as the model's families take them. Linformer: null (no causal form).
 */
function replacementOf(v, n) {
  switch (v.family) {
    case 'linear':
      return { family: 'linear', featureMap: v.featureMap };
    case 'favor':
      return { family: 'linear', featureMap: 'favor', features: v.features, seed: v.seed };
    case 'retention':
      return { family: 'retention', decay: v.decay };
    case 'svd':
      return { family: 'lowRank', rank: Math.min(v.rank, n) };
    case 'bigbird':
    case 'strided': {
      const { queries, headWidth, ...pattern } = patternRequest(v, n, 1);
      return { family: 'sparse', ...pattern };
    }
    default:
      return null;
  }
}

const NAMES = {
  linear: 'linear attention',
  favor: 'FAVOR+',
  retention: 'retention',
  svd: 'the SVD of its weights',
  bigbird: 'the BigBird pattern',
  strided: 'the strided pattern',
};

/** The family and its knob in words. */
function settingOf(v, replace) {
  const knob = {
    linear: `φ = ${v.featureMap === 'elu' ? 'elu + 1' : 'relu'}`,
    favor: `m = ${v.features}`,
    retention: `γ = ${v.decay}`,
    svd: `k = ${replace?.rank}${replace?.rank < v.rank ? ` (the shortest text's length)` : ''}`,
    bigbird: `window ${v.window}, ${replace?.globalTokens?.length ?? 0} global, ${v.random} random`,
    strided: `stride ${v.stride}`,
  }[v.family];
  return `${NAMES[v.family]}${knob ? ` (${knob})` : ''}`;
}

// A refusal of the core (bad input, a limit, a file that would not load) is the learner's to
// read; anything else is a bug and is thrown on.
function problem(error) {
  if (error.name !== 'AttnLabError' && error.name !== 'LoadError') throw error;
  return error.message;
}

class EfficientModel extends LitElement {
  static styles = [
    partStyles,
    css`
      .side {
        display: flex;
        flex-wrap: wrap;
        gap: 8px 24px;
      }
      [data-role='model-message'] {
        min-height: 1.4em; /* "Computing…" comes and goes without moving the figures */
      }
      .side > div {
        flex: 1 1 16rem;
        min-width: 0;
      }
    `,
  ];

  static properties = {
    lab: { attribute: false },
    v: { attribute: false },
    _model: { state: true },
    _loading: { state: true },
    _message: { state: true },
    _result: { state: true },
    _scope: { state: true },
    _at: { state: true },
    _text: { state: true },
  };

  constructor() {
    super();
    [this._model, this._loading, this._message, this._result, this._computing] = [null, false, null, null, false];
    [this._scope, this._at, this._text] = ['all', { layer: 0, head: 0 }, SENTENCES[0][1]];
  }

  async _load() {
    this._loading = true;
    try {
      this._model = await sharedModel(this.lab);
    } catch (error) {
      this._message = `The model could not load: ${problem(error)}`;
    } finally {
      this._loading = false;
    }
  }

  willUpdate() {
    if (!this._model || !this.v) return;
    // Only what the replacement reads: another n or token of the view's example changes nothing here.
    const key = JSON.stringify([this.v.family, replacementOf(this.v, Infinity), this._scope, this._at, this._text]);
    if (key === this._key) return;
    this._key = key;
    // After the view has drawn the family's change (the model's passes take a few hundred ms
    // with every head replaced): the next frame, then a task. A newer key makes this one moot.
    this._computing = true;
    requestAnimationFrame(() => setTimeout(() => this._compute(key)));
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this._key = undefined; // shown again: computed again
    clearTimeout(this._typing);
  }

  _compute(key) {
    if (key !== this._key) return;
    this._computing = false;
    try {
      this._result = this._numbers();
      this._message = null;
    } catch (error) {
      this._message = `${problem(error)}. The last good numbers stay.`;
    }
  }

  // Everything the panel shows, from the core; throws its AttnLabError.
  _numbers() {
    const m = this._model;
    const heads = this._scope === 'all' ? 'all' : [this._at];
    if (!replacementOf(this.v, Infinity)) return { heads, unavailable: true }; // whatever the text
    const { tokenIds } = m.tokenize(this._text);
    if (tokenIds.length < 2) throw Object.assign(new Error('The text needs at least 2 tokens'), { name: 'AttnLabError' });
    const shortest = Math.min(tokenIds.length, ...SENTENCES.map(([, s]) => m.tokenize(s).tokenIds.length));
    const replace = replacementOf(this.v, shortest);
    const setting = settingOf(this.v, replace);
    const exact = this._exact?.text === this._text ? this._exact : { text: this._text, loss: m.loss(tokenIds), next: this._next(tokenIds) };
    this._baseSample ??= sampleLoss(m);
    this._exact = exact;
    const options = { replace: { ...replace, heads } };
    return { exact, setting, heads, loss: m.loss(tokenIds, options), next: this._next(tokenIds, options), sample: sampleLoss(m, options) };
  }

  // The likeliest tokens after the text's last, with `options`' heads replaced.
  _next(tokenIds, options) {
    const m = this._model;
    const { tokenIds: ids, probabilities } = m.nextTokenDistribution(m.forward(tokenIds, options).logits.at(-1));
    const top = ids.slice(0, TOP);
    return { tokenIds: top, probabilities: probabilities.slice(0, TOP), pieces: m.pieces(top) };
  }

  _typed(textarea) {
    clearTimeout(this._typing);
    this._typing = setTimeout(() => (this._text = textarea.value), TYPING_PAUSE_MS);
  }

  render() {
    return html`<h3>The consequence for a real model</h3>
      <p class="note">
        The little language model of the model view, trained with softmax attention on the State of the Union addresses,
        with one head or every head computed by the family above (its knob as set there) on that head's own Q, K and V,
        causal as the model is; the rest runs as trained. It never trained with the family: this is what swapping costs.
      </p>
      ${this._model ? this._renderPanel() : this._renderLoad()}`;
  }

  _renderLoad() {
    return html`<button data-action="load-model" ?disabled=${this._loading} @click=${() => this._load()}>Load the little model (about 1.5 MB)</button>
      <p class="message ${this._message ? 'error' : ''}" data-role="model-message" role=${this._message ? 'alert' : 'status'}>
        ${this._message ?? (this._loading ? 'Loading the model…' : '')}</p>`;
  }

  _renderPanel() {
    const { layers, heads } = this._model.config;
    const r = this._result;
    const select = (control, label, count, value, use) =>
      html`<label>${label}
        <select data-control=${control} @change=${(e) => use(Number(e.target.value))}>
          ${Array.from({ length: count }, (_, i) => html`<option value=${i} ?selected=${i === value}>${i + 1}</option>`)}
        </select></label>`;
    return html`<div class="controls" role="group" aria-label="Heads replaced">
        <label>Replace
          <select data-control="replace-scope" @change=${(e) => (this._scope = e.target.value)}>
            <option value="all" ?selected=${this._scope === 'all'}>every head (${layers * heads})</option>
            <option value="one" ?selected=${this._scope === 'one'}>one head</option>
          </select></label>
        ${
          this._scope === 'one'
            ? html`${select('replace-layer', 'layer', layers, this._at.layer, (layer) => (this._at = { ...this._at, layer }))}
            ${select('replace-head', 'head', heads, this._at.head, (head) => (this._at = { ...this._at, head }))}`
            : nothing
        }
      </div>
      <label class="text-field">Text
        <textarea data-control="model-text" rows="3" .value=${this._text} @input=${(e) => this._typed(e.target)}
          @change=${(e) => (this._text = e.target.value)}></textarea>
      </label>
      <p class="message ${this._message ? 'error' : ''}" data-role="model-message" role=${this._message ? 'alert' : 'status'}>${this._message ?? (this._computing ? 'Computing…' : '')}</p>
      ${r ? this._renderResult(r) : nothing}`;
  }

  _renderResult(r) {
    const { exact } = r;
    const who = r.heads === 'all' ? 'every head' : headName(r.heads[0].layer, r.heads[0].head);
    if (r.unavailable)
      return html`<p data-role="replace-summary">
        Linformer has no causal form: its projections E and F mix every position, later ones too, so it cannot stand in for a
        head of this causal model. Pick another family above.</p>`;
    const [base, replaced] = [mean(exact.loss), mean(r.loss)];
    return html`<p data-role="replace-summary" data-exact=${base} data-replaced=${replaced}>
        With ${who} computed by ${r.setting}: the text's mean loss is <strong>${f2(replaced)}</strong> nats per token against
        ${f2(base)} as trained (${signed(replaced - base)}); on the held-out sample (the ${SENTENCES.length} example sentences, from
        addresses the model never saw, ${r.sample.tokens} tokens) it is <span data-role="sample-loss" data-value=${r.sample.mean}>${f2(r.sample.mean)}</span>
        against ${f2(this._baseSample.mean)} (${signed(r.sample.mean - this._baseSample.mean)}).
      </p>
      <div class="side">
        <div><h4>As trained</h4>${nextTokenBars(exact.next, 'exact-next-tokens')}</div>
        <div><h4>${who === 'every head' ? 'Every head' : who} replaced</h4>${nextTokenBars(r.next, 'replaced-next-tokens')}</div>
      </div>
      ${lossChart({
        caption: 'The loss of each next token of the text (nats), as trained and with the heads replaced',
        xLabel: 'token of the text',
        series: [
          { id: 'exact', label: 'as trained', values: exact.loss },
          { id: 'replaced', label: `${who} replaced`, values: r.loss, dashed: true },
        ],
      })}`;
  }
}

if (globalThis.customElements && !customElements.get('attn-efficient-model')) customElements.define('attn-efficient-model', EfficientModel);

/** The panel in the view (an export the body uses, so that no bundler drops this module as unused). */
export const modelPanel = (lab, v) => html`<section data-role="consequence"><attn-efficient-model .lab=${lab} .v=${v}></attn-efficient-model></section>`;
