// The stepper's options bar and input editors. Each edit becomes a new state handed to the
// host (<attn-lab>), which asks the core for its trace and keeps the last good one.
import { html, nothing } from 'lit';

import { inputNames, MAX_EDIT_SIZE, parseCell, resize, setCell } from '../shared/editing.js';
import { fmt, shape } from '../shared/format.js';
import { matrixTable, WINDOW_AT } from '../shared/matrix-table.js';
import { randomMatrix, seededRandom } from '../shared/random.js';
import { PRESETS, presetState, STEPPER_PRESET_IDS } from '../presets.js';
import { tokenLabels } from '../steps/panels.js';

// FAVOR+'s random features in the stepper, unless the state already names them: m and the seed
// that draws them (the efficient view's defaults).
const FAVOR_FEATURES = 16;
const FAVOR_SEED = 1;

// The families the stepper offers (trace()'s family, with linear's feature map), and the one a
// state is in.
const FAMILY_CHOICES = [
  ['softmax', 'softmax'],
  ['linear', 'linear, φ = elu + 1'],
  ['linear:relu', 'linear, φ = relu'],
  ['linear:favor', 'linear, φ = FAVOR+ random features'],
  ['retention', 'retention (decay γ)'],
];
const familyChoice = (s) => (s.family === 'linear' && s.featureMap && s.featureMap !== 'elu' ? `linear:${s.featureMap}` : (s.family ?? 'softmax'));

const INPUT_CAPTIONS = { X: 'X (tokens)', Wq: 'W_Q', Wk: 'W_K', Wv: 'W_V', Wo: 'W_O', Q: 'Q', K: 'K', V: 'V' };

/**
 * The learner's edits of the stepper's inputs and options. `host` is the <attn-lab> element:
 * `host.draft` is the state being edited, `host.invalid` the cells holding text that is not
 * a number, `host.presetId` the preset the inputs still are; `host.apply(state)` asks the
 * core and returns whether it accepted.
 */
export class InputEditor {
  constructor(host) {
    this.host = host;
    this.seed = 1; // the seed "Randomise" uses
  }

  change(partial) {
    this.host.apply({ ...this.host.draft, ...partial });
  }

  // A new state from an edit of the inputs themselves: refused cells and the preset go.
  _replace(state) {
    this.host.invalid = new Map();
    this.host.presetId = null;
    this.host.apply(state);
  }

  editCell(name, row, col, text) {
    const host = this.host;
    const key = `${name}|${row},${col}`;
    const value = parseCell(text);
    const invalid = new Map(host.invalid);
    if (value === null) {
      invalid.set(key, { text, message: `"${text}" is not a number` });
      host.invalid = invalid;
      host.showMessage(`${INPUT_CAPTIONS[name]} row ${row + 1}, column ${col + 1}: "${text}" is not a number; the last good result stays.`);
      return;
    }
    invalid.delete(key);
    host.invalid = invalid;
    host.presetId = null;
    host.apply(setCell(host.draft, name, row, col, value));
  }

  resize(name, axis, delta) {
    const next = resize(this.host.draft, name, axis, delta);
    if (next) this._replace(next);
  }

  randomize() {
    const random = seededRandom(this.seed);
    const next = structuredClone(this.host.draft);
    for (const name of inputNames(next)) next[name] = randomMatrix(next[name].length, next[name][0].length, random);
    this._replace(next);
  }

  setMode(mode) {
    const { causal, temperature, scale, predict } = this.host.draft;
    this.host.invalid = new Map();
    this.host.apply({ ...presetState(mode === 'x' ? 'self' : 'tiny'), causal, temperature, scale, predict });
  }

  // The attention each head computes (trace()'s family; linear's feature map rides along as
  // 'linear:relu' or 'linear:favor'). The families take no temperature; retention needs its
  // decay γ (0.9 unless the state already has one), FAVOR+ its features and seed, and no other
  // family takes them.
  setFamily(choice) {
    const [family, featureMap] = choice.split(':');
    const { decay, featureMap: _map, features, seed, ...draft } = this.host.draft;
    this.host.apply({
      ...draft,
      family,
      ...(featureMap && { featureMap }),
      ...(featureMap === 'favor' && { features: features ?? FAVOR_FEATURES, seed: seed ?? FAVOR_SEED }),
      ...(family === 'retention' && { decay: decay ?? 0.9 }),
      ...(family !== 'softmax' && { temperature: 1 }),
    });
  }

  toggleOutputProjection(on) {
    const width = this.host.draft.Wv[0].length;
    const identity = () => Array.from({ length: width }, (_, i) => Array.from({ length: width }, (_, j) => (i === j ? 1 : 0)));
    this.change({ Wo: on ? identity() : null });
  }

  togglePadding(key) {
    this.change({ keyPadding: this.host.draft.keyPadding.map((padded, j) => (j === key ? !padded : padded)) });
  }

  changeHeads(text) {
    const heads = Number(text);
    if (!Number.isInteger(heads) || heads < 1) {
      this.host.showMessage(`Heads must be a whole number of at least 1, not "${text}".`);
      return;
    }
    this.change({ heads });
  }

  setToken(index, text) {
    const draft = this.host.draft;
    const tokens = Array.from({ length: Math.max(draft.tokens.length, index + 1) }, (_, i) => draft.tokens[i] ?? '');
    tokens[index] = text;
    this.change({ tokens });
  }

  renderControls() {
    const { draft: s, editable, presetId } = this.host;
    return html`<div class="controls" role="group" aria-label="Options" part="controls">
      <label
        >Preset
        <select data-control="preset" @change=${(e) => this.host.applyPreset(e.target.value)}>
          <option value="" disabled .selected=${!PRESETS[presetId]}>${s.origin ? `From the ${s.origin.label}` : 'Your own inputs'}</option>
          ${STEPPER_PRESET_IDS.map((id) => html`<option value=${id} .selected=${id === presetId}>${PRESETS[id].name}</option>`)}
        </select></label
      >
      <label
        >Input
        <select data-control="mode" ?disabled=${!editable} @change=${(e) => this.setMode(e.target.value)}>
          <option value="x" ?selected=${s.mode === 'x'}>tokens X and weights</option>
          <option value="qkv" ?selected=${s.mode === 'qkv'}>Q, K, V directly</option>
        </select></label
      >
      <label
        >Heads
        <input data-control="heads" type="number" min="1" max=${MAX_EDIT_SIZE} .value=${String(s.heads)}
          @change=${(e) => this.changeHeads(e.target.value)} /></label>
      <label
        >Attention
        <select data-control="family" @change=${(e) => this.setFamily(e.target.value)}>
          ${FAMILY_CHOICES.map(([value, text]) => html`<option value=${value} ?selected=${value === familyChoice(s)}>${text}</option>`)}
        </select></label
      >
      <label><input data-control="causal" type="checkbox" .checked=${s.causal} @change=${(e) => this.change({ causal: e.target.checked })} />Causal mask</label>
      ${
        this.host.noPredict
          ? nothing
          : html`<label><input data-control="predict" type="checkbox" .checked=${s.predict} @change=${(e) => this.change({ predict: e.target.checked })} />Predict, then reveal</label>`
      }
      <label><input data-control="backward" type="checkbox" .checked=${Boolean(s.backward)} @change=${(e) => this.change({ backward: e.target.checked })} />Backward pass</label>
      <label><input data-control="scaling" type="checkbox" .checked=${s.scale !== false} @change=${(e) => this.change({ scale: e.target.checked })} /><span>Scale by 1/√d<sub>k</sub></span></label>
      <label
        >Temperature
        <input data-control="temperature" type="range" min="0.1" max="4" step="0.1" .value=${String(s.temperature)}
          @input=${(e) => this.change({ temperature: Number(e.target.value) })} />
        <output>${fmt(s.temperature)}</output></label
      >
      ${
        s.mode === 'x'
          ? html`<label><input data-control="positional" type="checkbox" .checked=${s.positional === 'sinusoidal'}
              @change=${(e) => this.change({ positional: e.target.checked ? 'sinusoidal' : 'none' })} />Sinusoidal positions</label>
            <label><input data-control="wo" type="checkbox" .checked=${s.Wo != null} ?disabled=${!editable}
              @change=${(e) => this.toggleOutputProjection(e.target.checked)} /><span>Output projection W<sub>O</sub></span></label>`
          : nothing
      }
      ${
        editable
          ? html`<label>Seed <input data-control="seed" type="number" .value=${String(this.seed)} @change=${(e) => (this.seed = Number(e.target.value) || 0)} /></label>
            <button data-action="randomize" @click=${() => this.randomize()}>Randomise</button>
            <button data-action="reset" @click=${() => this.host.reset()}>Reset</button>`
          : nothing
      }
    </div>`;
  }

  renderInputs() {
    const s = this.host.draft;
    const { queries, keys } = tokenLabels(s);
    const rowLabels = (name) => (name === 'K' || name === 'V' ? keys : name === 'X' || name === 'Q' ? queries : null);
    return html`<section data-role="inputs" aria-label="Inputs" part="inputs">
      <h2>Inputs</h2>
      ${this._renderTokens(keys)}
      <div class="matrices">${inputNames(s).map((name) => this._renderEditor(name, rowLabels(name)))}</div>
    </section>`;
  }

  _renderTokens(keys) {
    const s = this.host.draft;
    const label = s.mode === 'x' ? 'Tokens' : 'Keys';
    // Many tokens (as many rows as make a matrix a scrolling window): their labels and padding
    // wait behind a disclosure, drawn once it is open and then in a box of their own, so 512
    // tokens are not 1,024 controls (and Tab stops) on every render.
    if (keys.length > WINDOW_AT) {
      return html`<details class="many-tokens" data-role="many-tokens" @toggle=${(e) => this._showTokens(e.target.open)} .open=${Boolean(this.tokensOpen)}>
        <summary>${label}: ${keys.length} labels, each with its padding switch</summary>
        ${this.tokensOpen ? this._renderTokenRow(keys, label) : nothing}
      </details>`;
    }
    return this._renderTokenRow(keys, label);
  }

  _showTokens(open) {
    if (open === Boolean(this.tokensOpen)) return;
    this.tokensOpen = open;
    this.host.requestUpdate();
  }

  _renderTokenRow(keys, label) {
    const s = this.host.draft;
    return html`<div class="tokens controls" role="group" aria-label=${label}>
      <span>${label}:</span>
      ${keys.map(
        (name, j) => html`<span>
          ${
            this.host.editable
              ? html`<input data-token=${j} aria-label="Label of token ${j + 1}" .value=${s.tokens[j] ?? ''}
                @input=${(e) => this.setToken(j, e.target.value)} />`
              : html`<span>${name}</span>`
          }
          <button data-action="pad-key" data-key=${j} aria-pressed=${s.keyPadding[j] ? 'true' : 'false'}
            title="Treat this key as padding: no query attends to it" @click=${() => this.togglePadding(j)}>
            pad
          </button>
        </span>`,
      )}
    </div>`;
  }

  _renderEditor(name, rowLabels) {
    const values = this.host.draft[name];
    const invalid = new Map();
    for (const [key, bad] of this.host.invalid) if (key.startsWith(`${name}|`)) invalid.set(key.slice(name.length + 1), bad);
    const editable = this.host.editable;
    const table = matrixTable({
      name,
      caption: `${INPUT_CAPTIONS[name]} (${shape(values.length, values[0].length)})`,
      values,
      rowLabels: rowLabels ?? values.map((_, i) => String(i + 1)),
      colLabels: values[0].map((_, j) => String(j + 1)),
      edit: editable ? { invalid, label: INPUT_CAPTIONS[name], onInput: (r, c, text) => this.editCell(name, r, c, text) } : undefined,
    });
    if (!editable) return table;
    const button = (action, axis, delta, text) =>
      html`<button data-action=${action} data-target=${name} aria-label="${text} of ${INPUT_CAPTIONS[name]}" @click=${() => this.resize(name, axis, delta)}>${text}</button>`;
    return html`<div>
      ${table}
      <div class="resize">
        ${button('add-row', 'row', 1, '+ row')} ${button('remove-row', 'row', -1, '− row')} ${button('add-col', 'col', 1, '+ col')}
        ${button('remove-col', 'col', -1, '− col')}
      </div>
    </div>`;
  }
}
