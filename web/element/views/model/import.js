// Bring your own attention: a real model's weights (the Hugging Face `output_attentions`
// layout, as JSON pasted or loaded from a file) in the model view's thumbnail grid and the
// tokens view's lines. lab.importAttention() reads the JSON and the core checks it and scores
// every head; a bad import gets the core's message and the last good import stays.
import { css, html, LitElement, nothing } from 'lit';

import { tokenLines } from '../tokens/token-lines.js';
import { tokensStyles } from '../tokens/styles.js';
import { drawThumbnails, headGrid, visiblePiece } from './figures.js';
import { modelStyles } from './styles.js';

const MAX_FILE_BYTES = 64 * 1024 * 1024; // read no further: the core's limits are far below

const PYTHON = `import json
from transformers import AutoModel, AutoTokenizer
tok = AutoTokenizer.from_pretrained("gpt2")
model = AutoModel.from_pretrained("gpt2", attn_implementation="eager")
inputs = tok("The cat sat on the mat because it was tired.", return_tensors="pt")
out = model(**inputs, output_attentions=True)
json.dump({"tokens": tok.convert_ids_to_tokens(inputs["input_ids"][0]),
           "attentions": [layer.tolist() for layer in out.attentions]},
          open("attention.json", "w"))`;

class AttentionImport extends LitElement {
  static styles = [modelStyles, tokensStyles, css`
    :host {
      display: block;
      margin-top: 1em;
    }
  `];

  static properties = {
    lab: { attribute: false },
    _imported: { state: true },
    _message: { state: true },
    _head: { state: true },
    _focus: { state: true },
  };

  constructor() {
    super();
    [this._imported, this._message, this._head, this._focus] = [null, null, [0, 0], 0];
  }

  updated() {
    drawThumbnails(this.renderRoot);
  }

  async _import(text, source) {
    let json;
    try {
      json = JSON.parse(text);
    } catch (error) {
      this._message = `${source} is not JSON (${error.message}); the last good attention stays.`;
      return;
    }
    // Busy while the core checks it (the model module may load first): said to assistive tech,
    // and what a test waits for.
    this.setAttribute('aria-busy', 'true');
    try {
      this._imported = await this.lab.importAttention(json);
      [this._head, this._focus, this._message] = [[0, 0], 0, null];
    } catch (error) {
      if (error.name !== 'AttnLabError' && error.name !== 'LoadError') throw error;
      this._message = `${source} was not imported: ${error.message}. The last good attention stays.`;
    } finally {
      this.removeAttribute('aria-busy');
    }
  }

  async _loadFile(input) {
    const [file] = input.files;
    input.value = ''; // the same file again is a new choice
    if (!file) return;
    if (file.size > MAX_FILE_BYTES) {
      this._message = `${file.name} is ${file.size} bytes, more than the ${MAX_FILE_BYTES} this page reads; the last good attention stays.`;
      return;
    }
    await this._import(await file.text(), file.name);
  }

  render() {
    return html`<h3>Bring your own attention</h3>
      <p class="note">
        Paste or load a real model's attention as JSON in the Hugging Face <code>output_attentions</code> layout:
        <code>{ "tokens": [...], "attentions": [layer][batch][head][query][key] }</code> (a batch of one sentence), or one layer as
        <code>{ "tokens": [...], "attention": [head][query][key] }</code>. The core checks it (shapes, weights in 0 … 1, each row
        summing to 1) and names each head's role as for the little model.
      </p>
      <details>
        <summary>Write that JSON from Python with transformers</summary>
        <pre data-role="python">${PYTHON}</pre>
      </details>
      <label class="text-field">Attention JSON
        <textarea data-control="import-text" placeholder='{ "tokens": ["The", " cat"], "attention": [[[1, 0], [0.5, 0.5]]] }'></textarea>
      </label>
      <div class="controls">
        <button data-action="import" @click=${() => this._import(this.renderRoot.querySelector('[data-control="import-text"]').value, 'The pasted text')}>Show this attention</button>
        <label>Or load a file <input data-control="import-file" type="file" accept=".json,application/json" @change=${(e) => this._loadFile(e.target)} /></label>
      </div>
      <p class="message ${this._message ? 'error' : ''}" data-role="import-message" role=${this._message ? 'alert' : 'status'}>${this._message ?? ''}</p>
      ${this._imported ? this._renderImported(this._imported) : nothing}`;
  }

  _renderImported({ tokens, attention, scores }) {
    const labels = tokens.map(visiblePiece);
    const [layer, head] = this._head;
    const weights = attention[layer][head];
    return html`<p class="note" data-role="import-summary">${attention.length} layers × ${attention[0].length} heads over ${tokens.length} tokens. Pick a head for its lines.</p>
      <div data-role="imported">${headGrid({ attention, scores, onOpen: (l, h) => (this._head = [l, h]), openLabel: 'Show its lines below' })}</div>
      <label class="note">Query token
        <select data-control="import-query" @change=${(e) => (this._focus = Number(e.target.value))}>
          ${labels.map((label, i) => html`<option value=${i} ?selected=${i === this._focus}>${i + 1}: ${label}</option>`)}
        </select>
      </label>
      <figure data-role="import-lines">
        <figcaption>Layer ${layer + 1}, head ${head + 1}: where “${labels[this._focus]}” looks</figcaption>
        ${tokenLines({ queries: labels, keys: labels, weights, focus: this._focus, onFocus: (i) => (this._focus = i) })}
      </figure>`;
  }
}

if (globalThis.customElements && !customElements.get('attn-attention-import')) customElements.define('attn-attention-import', AttentionImport);
