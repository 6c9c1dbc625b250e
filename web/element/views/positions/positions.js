// The positions view: the sinusoidal encoding as a heatmap, and a demonstration that
// self-attention without it is blind to word order (reordering the tokens only reorders the
// output rows), while with it the outputs change. Every number comes from the core:
// lab.sinusoidalEncoding for the heatmap, lab.permutationCheck for the demonstration.
import { html, nothing } from 'lit';

import { fmt, fmtWide } from '../../shared/format.js';
import { formula } from '../../shared/formula.js';
import { matrixTable } from '../../shared/matrix-table.js';
import { positionsStyles } from './styles.js';
import { encodingHeatmap, movedCell } from './encoding-heatmap.js';
import { D_HEAD, permutationRequest, SENTENCE, shuffledOrder } from './positions-demo.js';
import { defineView, ViewBase } from '../../shared/view-base.js';
import { nextSeed, SEED_FIELD, wholeField } from '../../shared/view-state.js';
import '../../shared/topic-quiz.js';

const isPermutation = (v) => Array.isArray(v) && v.length === SENTENCE.length && [...v].sort((a, b) => a - b).every((x, i) => x === i);

const FIELDS = {
  positions: wholeField(24, 1, 64),
  width: wholeField(16, 2, 64),
  positional: [false, (v) => typeof v === 'boolean', 'true or false'],
  // order[i] is the original position of the word now at position i: "a man bit the dog".
  order: [[0, 4, 2, 3, 1], isPermutation, `a permutation of 0…${SENTENCE.length - 1}, e.g. [0, 4, 2, 3, 1]`],
  seed: SEED_FIELD,
};

const sentenceOf = (order) => order.map((i) => SENTENCE[i]);
const dimensionLabels = Array.from({ length: D_HEAD }, (_, c) => `o${c}`);

const HEADING = 'Positions: how attention learns word order';

class PositionsView extends ViewBase {
  static styles = positionsStyles;

  constructor() {
    super();
    this._cell = { row: 3, col: 2 }; // the explained heatmap cell
    this._focusCell = false; // move keyboard focus to _cell after the next render
    this._swap = [1, 4];
    this._row = null; // { table, row } of the hovered output cell
  }

  compute(lab, viewState) {
    return {
      encoding: lab.sinusoidalEncoding({ positions: viewState.positions, width: viewState.width }),
      check: lab.permutationCheck(permutationRequest(viewState), viewState.order),
    };
  }

  willUpdate(changed) {
    super.willUpdate(changed);
    if (this._result) {
      const rows = this._result.encoding.length;
      const cols = this._result.encoding[0].length;
      this._cell = { row: Math.min(this._cell.row, rows - 1), col: Math.min(this._cell.col, cols - 1) };
    }
  }

  updated() {
    if (!this._focusCell) return;
    this._focusCell = false;
    const { row, col } = this._cell;
    this.renderRoot.querySelector(`table.encoding td[data-row="${row}"][data-col="${col}"]`)?.focus();
  }

  _onHeatmapKey(event) {
    const next = movedCell(event.key, this._cell, this._result.encoding.length, this._result.encoding[0].length);
    if (!next) return;
    event.preventDefault();
    event.stopPropagation();
    this._cell = next;
    this._focusCell = true;
    this.requestUpdate();
  }

  _shuffle(seed) {
    this.changeView({ seed, order: shuffledOrder(seed) });
  }

  _swapTokens() {
    const [a, b] = this._swap;
    const order = [...this.viewState.order];
    [order[a], order[b]] = [order[b], order[a]];
    this.changeView({ order });
  }

  // ---- rendering ----

  render() {
    if (!this._result) return this.placeholder(HEADING, this._error);
    return html`<h2>${HEADING}</h2>
      <p class="lead">
        Attention compares every token with every other token, but nothing in QKᵀ or in the weighted sum of the values
        says which token came first. Left alone, it treats a sentence as a bag of words. Transformers fix this by adding
        a position signal to each token's embedding before the projections: X ← X + PE.
      </p>
      ${this.messageLine(this.draftProblem ?? (this._error && `${this._error} (the last good result is shown)`))}
      ${this._renderEncoding()} ${this._renderPermutation()}
      <attn-topic-quiz topic="positions"></attn-topic-quiz>`;
  }

  _renderEncoding() {
    const { positions, width } = this.viewState;
    return html`<section data-role="encoding">
      <h3>The sinusoidal encoding</h3>
      <div class="controls" role="group" aria-label="Size of the encoding">
        <label
          >Positions
          <input data-control="positions" type="range" min="1" max="64" .value=${String(positions)}
            @input=${(e) => this.changeView({ positions: Number(e.target.value) })} />
          <output>${positions}</output></label
        >
        <label
          >Dimensions
          <input data-control="width" type="range" min="2" max="64" .value=${String(width)}
            @input=${(e) => this.changeView({ width: Number(e.target.value) })} />
          <output>${width}</output></label
        >
      </div>
      <div class="figures">
        ${encodingHeatmap({
          values: this._result.encoding,
          cell: this._cell,
          onCell: (cell) => {
            this._cell = cell;
            this.requestUpdate();
          },
          onKey: (e) => this._onHeatmapKey(e),
        })}
        <div class="lead">
          ${this._renderCell()}
          <p>
            Each row is the vector added to the token at that position. Read a column downwards: dimension 0 is sin(p), a
            wave that repeats about every 6.3 positions; dimension 1 is the cosine of the same angle. Further right the
            waves slow down: each pair of columns (2i, 2i + 1) divides the position by 10000<sup>2i/d</sup>, so the
            last pairs barely change across the whole table.
          </p>
          <p>
            Why every position gets its own pattern: the fast columns tell nearby positions apart, the slow ones tell far
            apart positions apart, like the second hand and the hour hand of a clock. Two positions would need to agree
            on every wave at once to look the same, and with waves of so many different lengths that does not happen
            within the range a model sees. Because sine and cosine come in pairs, moving k positions along is the same
            rotation of each pair wherever you start, which makes relative offsets easy for the projections to pick up.
          </p>
        </div>
      </div>
    </section>`;
  }

  _renderCell() {
    const { row: p, col: c } = this._cell;
    const { width } = this.viewState;
    const value = this._result.encoding[p][c];
    const even = c % 2 === 0;
    const pairStart = c - (c % 2); // 2i: the first column of this column's pair
    const fn = even ? '\\sin' : '\\cos';
    const tex = `PE_{${p},${c}} = ${fn}\\left(\\frac{${p}}{10000^{${pairStart}/${width}}}\\right) = ${fmt(value)}`;
    return html`<div class="explanation" data-role="cell-explanation" data-row=${p} data-col=${c} data-value=${String(value)} aria-live="polite">
      <div>
        Position <strong>${p}</strong>, dimension <strong>${c}</strong>: value <strong>${fmt(value)}</strong>.
        ${even ? 'An even dimension uses the sine' : 'An odd dimension uses the cosine'} of the angle
        p / 10000<sup>${pairStart}/${width}</sup>, shared with dimension ${even ? c + 1 : c - 1}${even && c + 1 >= width ? ' (beyond this width)' : ''}.
        Its wavelength, 2π · 10000<sup>${pairStart}/${width}</sup> positions, grows with the dimension.
      </div>
      <div class="formula" ${formula(tex)}></div>
    </div>`;
  }

  _renderPermutation() {
    const { positional, order, seed } = this.viewState;
    const check = this._result.check;
    const reordered = sentenceOf(order);
    const identity = order.every((v, i) => v === i);
    const rowLabels = { original: SENTENCE, permuted: reordered, predicted: reordered };
    // Hovering a row of any table marks the same token's row in the other two.
    const hlRows = (table) => {
      if (!this._row) return undefined;
      const token = this._row.table === 'original' ? this._row.row : order[this._row.row];
      return [table === 'original' ? token : order.indexOf(token)];
    };
    const table = (name, caption, values) =>
      matrixTable({
        name,
        caption,
        values,
        rowLabels: rowLabels[name],
        colLabels: dimensionLabels,
        highlight: { rows: hlRows(name) },
        onFocusCell: (row) => {
          this._row = { table: name, row };
          this.requestUpdate();
        },
        onLeave: () => {
          this._row = null;
          this.requestUpdate();
        },
      });
    // The difference is often ~1e-7: fmtWide's powers of ten say how small.
    return html`<section data-role="permutation">
      <h3>Shuffle the words</h3>
      <p class="lead">
        “A dog bit the man” and “a man bit the dog” use the same words. Below, each word has a random embedding (a row of
        X, 8 numbers) and one attention head projects them with random W<sub>Q</sub>, W<sub>K</sub>, W<sub>V</sub>
        (8 × 4). Reorder the words and compare the head's output for the new order with the original output, its rows
        moved the same way.
      </p>
      <div class="controls" role="group" aria-label="Word order and positions">
        <label
          ><input data-control="positional" type="checkbox" .checked=${positional}
            @change=${(e) => this.changeView({ positional: e.target.checked })} />Add the sinusoidal positions to X</label
        >
        ${this.seedInput({ use: (next) => this._shuffle(next) })}
        <button data-action="shuffle" @click=${() => this._shuffle(nextSeed(seed))}>Shuffle</button>
        <button data-action="reverse" @click=${() => this.changeView({ order: [...order].reverse() })}>Reverse</button>
        <button data-action="reset-order" @click=${() => this.changeView({ order: SENTENCE.map((_, i) => i) })}>Original order</button>
        <span>
          <label
            >Swap position
            <select data-control="swap-a" @change=${(e) => (this._swap = [Number(e.target.value), this._swap[1]])}>
              ${reordered.map((w, i) => html`<option value=${i} ?selected=${i === this._swap[0]}>${i}: ${w}</option>`)}
            </select></label
          >
          <label
            >with
            <select data-control="swap-b" @change=${(e) => (this._swap = [this._swap[0], Number(e.target.value)])}>
              ${reordered.map((w, i) => html`<option value=${i} ?selected=${i === this._swap[1]}>${i}: ${w}</option>`)}
            </select></label
          >
          <button data-action="swap" @click=${() => this._swapTokens()}>Swap</button>
        </span>
      </div>
      <p>Original: ${this._sentence(
        SENTENCE.map((_, i) => i),
        'original',
      )}</p>
      <p>Reordered: ${this._sentence(order, 'reordered')}</p>
      <div class="figures" data-role="outputs">
        ${table('original', 'Output for the original order', check.original)}
        ${table('permuted', 'Output for the reordered words', check.permuted)}
        ${table('predicted', 'Prediction: the original rows, reordered', check.predicted)}
      </div>
      <p
        class="verdict ${check.reorderedOnly ? 'correct' : 'wrong'}"
        data-role="verdict"
        data-verdict=${check.reorderedOnly ? 'reordered' : 'changed'}
        role="status"
      >
        ${check.reorderedOnly ? 'The same rows, just reordered.' : 'The outputs changed.'}
        <span data-role="difference" data-value=${String(check.maxDifference)} data-tolerance=${String(check.tolerance)}>
          Largest difference between the second and third tables:
          ${fmtWide(check.maxDifference, 1)}${check.reorderedOnly ? ` (float rounding, under ${fmtWide(check.tolerance, 1)})` : ''}.
        </span>
        ${identity ? html`<span>(This is the original order, so nothing moved.)</span>` : nothing}
      </p>
      ${this._verdictExplanation(check.reorderedOnly, positional, identity)}
      <p class="lead">
        A causal mask breaks the symmetry as well: it lets token i look only at tokens 0…i, a rule about positions, so
        moving a word changes what it may see. Without positions and without a mask, attention is
        <em>permutation-equivariant</em>: permuting the input rows permutes the output rows, and that is all.
      </p>
    </section>`;
  }

  _sentence(order, role) {
    return html`<ol class="sentence" data-role=${`sentence-${role}`} data-order=${order.join(',')} aria-label="${role} sentence">
      ${order.map((token, i) => html`<li data-token=${token} class=${token !== i ? 'moved' : ''}>${SENTENCE[token]}</li>`)}
    </ol>`;
  }

  _verdictExplanation(reorderedOnly, positional, identity) {
    if (identity) return html`<p class="lead">Pick another order to see the comparison do some work.</p>`;
    if (reorderedOnly) {
      return html`<p class="lead">
        Without positions each word's output depends only on its own embedding and on the set of all words, not on
        where anything sits: moving a word moves its output row and changes nothing else. To this head “a dog bit the
        man” and “a man bit the dog” are the same sentence. Tick “Add the sinusoidal positions” to change that.
      </p>`;
    }
    return html`<p class="lead">
      ${
        positional
          ? 'With positions, a word that moves gets a different position vector added to its embedding, so its query, key and value change, and so do its scores with every other word. Even the words that stayed put get new outputs, because they attend to the words that moved. The outputs are no longer the old rows in a new order: the head now sees the order.'
          : 'The outputs changed even without positions.'
      }
    </p>`;
  }
}

export const positionsView = defineView({ id: 'positions', title: 'Positions', element: PositionsView, fields: FIELDS, renamed: { tokens: 'positions' } });
