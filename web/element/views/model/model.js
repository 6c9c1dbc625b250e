// The model view: a real little language model (model/README.md), every number from the core.
// The learner types or picks a sentence and sees its tokens, the next token's likeliest
// candidates, generation token by token (temperature, top-k, seed, through the core's KV
// cache), and every layer × head's attention on the text with the core's name for what the
// head does. A head opens in the stepper on its real inputs (its block's LayerNorm output as X,
// its columns of W_Q, W_K, W_V) or in the tokens view. The model and its files load on the
// view's first showing (lab.loadModel()), once per page. Below: each role explained (roles.js),
// in-context learning on a repeated sequence (incontext.js), heads switched off
// (interventions.js) and attention rollout (rollout.js), loaded with the model (extras.js).
import { html, nothing } from 'lit';

import { defineView, ViewBase } from '../../shared/view-base.js';
import { isNumberIn, SEED_FIELD, wholeField } from '../../shared/view-state.js';
import { drawThumbnails, headGrid, headName, nextTokenBars, tokenBoxes, visiblePiece } from './figures.js';
import '../../shared/topic-quiz.js';
import './import.js';
import { SENTENCES } from './sentences.js';
import { modelStyles } from './styles.js';

export { SENTENCES };

const MAX_TEXT = 2000; // characters; the model's context length (128 tokens) is the core's check
const TOP = 10; // next-token candidates shown
const PROBE = { period: 32, seed: 1 }; // the induction probe: 32 random tokens, twice
const MORE = 10; // tokens one press of "+10" generates
const TYPING_PAUSE_MS = 150; // the view follows the text this long after the learner stops typing

const FIELDS = {
  text: [SENTENCES[0][1], (v) => typeof v === 'string' && v.length <= MAX_TEXT, `a string of at most ${MAX_TEXT} characters`],
  generated: wholeField(0, 0, 512), // tokens generated after the text (the core refuses past the context length)
  temperature: [1, isNumberIn(0, 5), 'a number from 0 to 5'],
  topK: wholeField(0, 0, 65536), // 0: every token (the core refuses more than the vocabulary)
  seed: SEED_FIELD,
};

const HEADING = 'A little language model';

// One model per page: the first model view loads it, every later one (and the efficient
// view's model panel) shares it.
let loading;
export const sharedModel = (lab) =>
  (loading ??= lab.loadModel().catch((error) => {
    loading = undefined; // a later showing tries again
    throw error;
  }));

class ModelView extends ViewBase {
  static styles = modelStyles;

  static properties = {
    ...ViewBase.properties,
    _result: { state: true },
    _message: { state: true },
  };

  constructor() {
    super();
    [this._model, this._result, this._message, this._probe] = [null, null, null, null];
  }

  connectedCallback() {
    super.connectedCallback();
    if (this.lab && !this._model) this._load();
  }

  willUpdate(changed) {
    if (changed.has('lab') && this.lab && !this._model) this._load();
    // Each view state the host gives is shown once (a failure is not retried on every render).
    if (this._model && this.viewState && this._key(this.viewState) !== this._shownKey) this._show(this.viewState);
  }

  updated() {
    drawThumbnails(this.renderRoot);
  }

  async _load() {
    try {
      [this._model, this._extras] = await Promise.all([sharedModel(this.lab), import('./parts/extras.js')]);
      const probe = this._model.inductionProbe(PROBE.period, PROBE.seed);
      this._probe = this._model.headScores(probe, PROBE.period);
      if (this.viewState) this._show(this.viewState);
    } catch (error) {
      this._message = `The model could not load: ${this.coreProblem(error)}`;
    }
  }

  _key = ({ text, generated, temperature, topK, seed }) => JSON.stringify([text, generated, temperature, topK, seed]);

  // Everything the view shows for a view state, from the core; throws its AttnLabError.
  _compute(viewState) {
    const m = this._model;
    const { text, generated, temperature, topK, seed } = viewState;
    const prompt = m.tokenize(text);
    const extra = generated ? m.generate(prompt.tokenIds, { count: generated, temperature, topK, seed }) : [];
    const tokenIds = [...prompt.tokenIds, ...extra];
    const forward = m.forward(tokenIds);
    const next = m.nextTokenDistribution(forward.logits.at(-1), { temperature, topK });
    const top = { tokenIds: next.tokenIds.slice(0, TOP), probabilities: next.probabilities.slice(0, TOP) };
    return {
      tokenIds,
      pieces: [...prompt.pieces, ...m.pieces(extra)],
      promptLength: prompt.tokenIds.length,
      forward,
      next: { ...top, pieces: m.pieces(top.tokenIds) },
      scores: tokenIds.length >= 2 ? m.headScores(tokenIds) : null,
      rollout: m.rollout(tokenIds),
    };
  }

  // Shows a view state: its result, or the core's message with the last good result kept.
  _show(viewState) {
    this._shownKey = this._key(viewState);
    try {
      this._result = this._compute(viewState);
      this._message = null;
      return true;
    } catch (error) {
      this._message = `${this.coreProblem(error)}. The last good text stays.`;
      return false;
    }
  }

  // A change the learner makes: kept only if the view state's table and the core accept it.
  _try(partial) {
    let next;
    try {
      next = modelView.normalize({ ...this.viewState, ...partial });
    } catch (error) {
      if (error.name !== 'StateError') throw error;
      this._message = `${error.message.replace(/^the/, 'The')}; the last good value stays.`;
      return;
    }
    const shown = this._shownKey;
    if (this._show(next)) this.changeView(partial);
    else this._shownKey = shown; // the host's view state is still the one on show
  }

  // Layer l's head h as the stepper's state: its LayerNorm output as X and its W_Q, W_K, W_V.
  _open(layer, head, view) {
    const { forward, pieces } = this._result;
    const X = forward.blocks[layer].norm1;
    const text = this.viewState.text.length > 40 ? `${this.viewState.text.slice(0, 40)}…` : this.viewState.text;
    const state = {
      mode: 'x',
      X,
      ...this._model.headWeights(layer, head),
      Wo: null,
      heads: 1,
      tokens: pieces.map(visiblePiece),
      keyPadding: X.map(() => false),
      causal: true,
      positional: 'none',
      view,
      step: 'softmax',
      origin: {
        label: `little model · layer ${layer + 1} · head ${head + 1} · “${text}”`,
        view: 'model',
        viewState: this.viewState,
        heads: [headName(layer, head)],
      },
    };
    const host = this.getRootNode().host;
    this.dispatchEvent(new CustomEvent('open-state', { detail: { state }, bubbles: true, composed: true }));
    // The step opens at its top, not where the head's card was.
    host?.updateComplete.then(() => host.scrollIntoView?.({ block: 'start' }));
  }

  render() {
    // Loading is a status, not an alert: the download takes a moment on a slow line.
    if (!this.viewState || (!this._result && !this._message)) return html`<h2>${HEADING}</h2>${this.messageLine('Loading the model (about 1.5 MB)…', { error: false })}`;
    const { text, temperature, topK } = this.viewState;
    const r = this._result;
    const config = this._model?.config;
    return html`<h2>${HEADING}</h2>
      <p class="lead">
        A GPT-style model with ${config ? `${config.layers} layers of ${config.heads} attention heads` : 'a few layers of attention heads'}, trained by attnlab's
        core on the State of the Union addresses. The sentences to pick from are from addresses it never saw. Every number below is
        the core's: the tokens, the next token's probabilities, the generated text and each head's weights.
      </p>
      <div class="controls">
        <label>Example
          <select data-control="sentence" @change=${(e) => e.target.value && this._try({ text: e.target.value, generated: 0 })}>
            <option value="" ?selected=${!SENTENCES.some(([, s]) => s === text)}>Your own text</option>
            ${SENTENCES.map(([source, s]) => html`<option value=${s} ?selected=${s === text}>${source}</option>`)}
          </select>
        </label>
      </div>
      <label class="text-field">Text
        <textarea data-control="text" rows="3" maxlength=${MAX_TEXT} .value=${text} @input=${(e) => this._typed(e.target)}
          @change=${(e) => this._commitText(e.target)}></textarea>
      </label>
      ${this.messageLine(this.draftProblem ?? this._message)}
      ${r ? this._renderResult(r, temperature, topK) : nothing}
      <attn-attention-import .lab=${this.lab}></attn-attention-import>
      <attn-topic-quiz topic="model"></attn-topic-quiz>`;
  }

  // Typing: the view follows a moment after the learner pauses (no blur needed).
  _typed(textarea) {
    clearTimeout(this._typing);
    this._typing = setTimeout(() => this._commitText(textarea), TYPING_PAUSE_MS);
  }

  _commitText(textarea) {
    clearTimeout(this._typing);
    if (textarea.value !== this.viewState.text) this._try({ text: textarea.value, generated: 0 });
  }

  _renderResult(r, temperature, topK) {
    const { generated } = this.viewState;
    const x = this._extras;
    return html`<h3>Tokens</h3>
      <p class="note">${r.tokenIds.length} tokens of the byte-pair vocabulary (each box one token; ␣ is a space)${generated ? html`, the last ${generated} generated (dashed)` : nothing}.</p>
      ${tokenBoxes(r.pieces, r.tokenIds, r.promptLength)}
      <h3>The next token</h3>
      <div class="controls" role="group" aria-label="Sampling">
        <label>Temperature
          <input data-control="temperature" type="number" min="0" max="5" step="0.1" .value=${String(temperature)}
            @change=${(e) => this._number(e.target, 'temperature')} />
        </label>
        <label>Top-k
          <input data-control="top-k" type="number" min="0" step="1" .value=${String(topK)} @change=${(e) => this._number(e.target, 'topK')} />
        </label>
        ${this.seedInput({ use: (seed) => this._try({ seed }) })}
      </div>
      <p class="note">Temperature divides the scores before softmax (0 takes the likeliest token); top-k keeps the k likeliest (0 keeps all).</p>
      ${nextTokenBars(r.next)}
      <div class="controls" role="group" aria-label="Generation">
        <button data-action="next-token" @click=${() => this._try({ generated: generated + 1 })}>Generate the next token</button>
        <button data-action="more-tokens" @click=${() => this._try({ generated: generated + MORE })}>+${MORE} tokens</button>
        <button data-action="clear-generated" ?disabled=${!generated} @click=${() => this._try({ generated: 0 })}>Back to the text</button>
      </div>
      <h3>Every head's attention on this text</h3>
      <p class="note">
        Each thumbnail is one head's weights (rows: the query token, columns: the key token; causal, so nothing above the
        diagonal; dark 0, yellow 1). Below it, the core's name for what the head does on this text: the score that stands
        furthest above what spreading the weight evenly would give, if at least twice that, else "spread"; its scores; and
        its induction score on a repeated random sequence. Open a head in the stepper to follow its numbers step by step.
      </p>
      ${r.scores
        ? headGrid({
            attention: r.forward.blocks.map((b) => b.attention),
            scores: r.scores,
            probe: this._probe,
            onOpen: (l, h) => this._open(l, h, 'stepper'),
            onTokens: (l, h) => this._open(l, h, 'tokens'),
            sentence: (l, h) => x.headSentence(r.scores[l][h], r.tokenIds.length, this._probe?.[l][h]),
          })
        : html`<p class="note">A head's scores need at least 2 tokens.</p>`}
      ${r.scores ? html`<attn-model-roles .scores=${r.scores} .probe=${this._probe} .n=${r.tokenIds.length} .period=${PROBE.period}></attn-model-roles>` : nothing}
      <attn-model-incontext .model=${this._model} .text=${this.viewState.text}></attn-model-incontext>
      ${r.scores
        ? html`<attn-model-interventions .model=${this._model} .tokenIds=${r.tokenIds} .scores=${r.scores} .sampling=${{ temperature, topK }}></attn-model-interventions>`
        : nothing}
      <attn-model-rollout .rollout=${r.rollout} .attention=${r.forward.blocks.map((b) => b.attention)} .pieces=${r.pieces.map(visiblePiece)}></attn-model-rollout>`;
  }

  // A number typed into temperature or top-k: the core checks it (with the rest of the state).
  _number(input, field) {
    const value = Number(input.value);
    if (input.value.trim() === '' || !Number.isFinite(value)) {
      this._message = `${field === 'topK' ? 'Top-k' : 'The temperature'} must be a number, not "${input.value}"; the last good value stays.`;
      return;
    }
    this._try({ [field]: value });
  }
}

export const modelView = defineView({ id: 'model', title: 'Model', element: ModelView, fields: FIELDS });
