// The flash view: the FlashAttention tile walk, one event at a time. A query block visits
// the key tiles one by one: the tile's scores, the running max m, the rescale factor
// exp(m_old − m_new), the running sum l and the accumulator; at the end of the block its
// output rows are acc / l. The n×n score matrix is drawn only as a grid of tiles, since
// the walk never forms it. Every number is the core's (lab.flashWalk, lab.tilePlan).
import { html, nothing } from 'lit';

import { fmt, sub, subscripted } from '../../shared/format.js';
import { nestedMatrix } from '../../../lib/nested.js';
import { matrixTable } from '../../shared/matrix-table.js';
import { defineView, ViewBase } from '../../shared/view-base.js';
import { SEED_FIELD, wholeField } from '../../shared/view-state.js';
import { flashStyles } from './styles.js';
import '../../shared/topic-quiz.js';

const WIDTH = 2; // d and d_v: two numbers per row keep every tile readable
const FIELDS = {
  n: wholeField(8, 4, 16),
  queryRows: wholeField(2, 1, 4),
  keyRows: wholeField(2, 1, 4),
  causal: [false, (v) => typeof v === 'boolean', 'true or false'],
  seed: SEED_FIELD,
  event: wholeField(0, 0, 1000), // which step of the walk is on view
};

const HEADING = 'FlashAttention: the tile walk';

class FlashView extends ViewBase {
  static styles = flashStyles;

  // Only the walk's inputs ask the core again; a new event on view does not.
  computeKey({ n, queryRows, keyRows, causal, seed }) {
    return JSON.stringify([n, queryRows, keyRows, causal, seed]);
  }

  compute(lab, { n, queryRows, keyRows, causal, seed }) {
    const [Q, K, V] = [0, 1, 2].map((i) => nestedMatrix(lab.normalMatrix({ rows: n, cols: WIDTH, seed: seed * 3 + i })));
    return {
      walk: lab.flashWalk({ Q, K, V, causal, queryRows, keyRows }),
      inputs: { Q, K, V },
      attentionOutput: lab.attention({ Q, K, V, causal }).output, // the stepper's O, shown beside the walk's
      plan: lab.tilePlan({ headWidth: 64 }),
    };
  }

  render() {
    if (!this._result) return this.placeholder(HEADING, this._error);
    const events = this._result.walk.events;
    const index = Math.min(this.viewState.event, events.length - 1);
    const event = events[index];
    return html`<h2>${HEADING}</h2>
      <p class="lead">
        Plain attention forms the whole n×n matrix of scores. FlashAttention never does: it takes a block of queries,
        brings in one tile of keys and values at a time, and keeps per query only a running max m, a running sum l and an
        unnormalised output. When a new tile raises the max, what was summed so far is rescaled by exp(m<sub>old</sub> −
        m<sub>new</sub>), so the result is exactly softmax(QKᵀ/√d)·V.
      </p>
      ${this._renderControls(index, events.length)} ${this.messageLine(this.draftProblem ?? this._error)}
      <div class="walk">
        ${this._renderGrid(event, index)}
        <div class="event" data-role="event" data-kind=${event.kind} aria-live="polite">${event.kind === 'tile' ? this._renderTile(event) : this._renderFinish(event, index === events.length - 1)}</div>
      </div>
      ${this._renderMemory()}
      <attn-topic-quiz topic="flash"></attn-topic-quiz>`;
  }

  _renderControls(index, count) {
    const { n, queryRows, keyRows, causal } = this.viewState;
    const go = (event) => this.changeView({ event: Math.max(0, Math.min(count - 1, event)) });
    const select = (field, label, values, value) => html`<label>${label}
      <select data-control=${field} @change=${(e) => this.changeView({ [field]: Number(e.target.value), event: 0 })}>
        ${values.map((v) => html`<option value=${v} ?selected=${v === value}>${v}</option>`)}
      </select></label>`;
    return html`<div class="controls">
        ${select('n', 'Tokens n', [4, 6, 8, 12, 16], n)} ${select('queryRows', 'Query block Br', [1, 2, 3, 4], queryRows)}
        ${select('keyRows', 'Key tile Bc', [1, 2, 3, 4], keyRows)}
        ${this.causalInput(causal, { event: 0 })}
        ${this.seedInput({ use: (seed) => this.changeView({ seed, event: 0 }) })}
      </div>
      <div class="controls" role="group" aria-label="Walk">
        <button data-action="first" ?disabled=${index === 0} @click=${() => go(0)}>« First</button>
        <button data-action="prev" ?disabled=${index === 0} @click=${() => go(index - 1)}>◀ Prev</button>
        <button data-action="next" ?disabled=${index === count - 1} @click=${() => go(index + 1)}>Next ▶</button>
        <button data-action="last" ?disabled=${index === count - 1} @click=${() => go(count - 1)}>Last »</button>
        <span data-role="position">Event ${index + 1} of ${count}</span>
      </div>`;
  }

  // The score matrix as tiles: the one on view, those already visited, and those a causal
  // block skips. Only positions are drawn: the walk holds one tile of numbers at a time.
  _renderGrid(event, index) {
    const { n, queryRows, keyRows } = this.viewState;
    const visited = new Set(
      this._result.walk.events
        .slice(0, index + 1)
        .filter((e) => e.kind === 'tile')
        .map((e) => `${e.queryBlock},${e.keyBlock}`),
    );
    const all = new Set(this._result.walk.events.filter((e) => e.kind === 'tile').map((e) => `${e.queryBlock},${e.keyBlock}`));
    const blocks = Math.ceil(n / queryRows);
    const tiles = Math.ceil(n / keyRows);
    const state = (b, t) => {
      const id = `${b},${t}`;
      if (event.kind === 'tile' && event.queryBlock === b && event.keyBlock === t) return 'current';
      if (!all.has(id)) return 'skipped';
      return visited.has(id) ? 'visited' : 'ahead';
    };
    return html`<figure class="grid" data-role="tile-grid">
      <table aria-label="The n×n scores as tiles">
        <tr><th></th>${Array.from({ length: tiles }, (_, t) => html`<th scope="col">K${sub(t)}</th>`)}</tr>
        ${Array.from(
          { length: blocks },
          (_, b) => html`<tr><th scope="row" class=${event.queryBlock === b ? 'active' : ''}>Q${sub(b)}</th>
          ${Array.from({ length: tiles }, (_, t) => html`<td data-block=${b} data-tile=${t} data-state=${state(b, t)}></td>`)}</tr>`,
        )}
      </table>
      <figcaption>Blocks of ${queryRows} queries (rows) against tiles of ${keyRows} keys (columns). Dark: on view; tinted: visited; striped: skipped by the causal mask.</figcaption>
    </figure>`;
  }

  _rowLabels(event) {
    return Array.from({ length: event.queries }, (_, r) => `q${sub(event.firstQuery + r)}`);
  }

  _renderTile(event) {
    const rows = this._rowLabels(event);
    const keys = Array.from({ length: event.keys }, (_, c) => `k${sub(event.firstKey + c)}`);
    const perRow = (name, caption, label, values, format) =>
      matrixTable({ name, caption, values: values.map((v) => [v]), rowLabels: rows, colLabels: [label], format });
    // A row whose m was −∞ held nothing (l = 0, acc = 0): exp(−∞ − m) = 0 scales nothing, so
    // the core leaves its factor at 1 and the table says so in words.
    const fresh = (r) => event.oldMax[r] === -Infinity;
    const factor = (v, r) => (fresh(r) ? 'nothing held yet' : fmt(v));
    return html`<h3>Block Q${sub(event.queryBlock)} visits tile K${sub(event.keyBlock)}</h3>
      <p data-role="why">${tileWhy(event)}</p>
      <div class="matrices">
        ${matrixTable({ name: 'tile-scores', caption: `scores of the tile (${event.queries}×${event.keys})`, values: event.scores, rowLabels: rows, colLabels: keys })}
        ${perRow('old-max', 'm before', 'm', event.oldMax)} ${perRow('new-max', 'm after', 'm', event.newMax)}
        ${perRow('rescale', 'exp(m_old − m_new)', 'factor', event.rescale, factor)} ${perRow('sum', 'l after', 'l', event.sum)}
        ${matrixTable({ name: 'acc', caption: `acc after (${event.queries}×${WIDTH})`, values: event.acc, rowLabels: rows, colLabels: ['1', '2'] })}
      </div>`;
  }

  _renderFinish(event, last) {
    const rows = this._rowLabels(event);
    return html`<h3>Block Q${sub(event.queryBlock)} is done</h3>
      <p data-role="why">Every key has been seen, so each row's output is its accumulator divided by its sum l: O = acc / l.</p>
      <div class="matrices">
        ${matrixTable({ name: 'sum', caption: 'l', values: event.sum.map((v) => [v]), rowLabels: rows, colLabels: ['l'] })}
        ${matrixTable({ name: 'block-output', caption: `O, these rows (${event.queries}×${WIDTH})`, values: event.output, rowLabels: rows, colLabels: ['1', '2'] })}
      </div>
      ${last ? this._renderOutput() : nothing}`;
  }

  // The whole output, beside the stepper's O for the same inputs (lab.attention).
  _renderOutput() {
    const { Q } = this._result.inputs;
    const stepper = this._result.attentionOutput;
    const labels = Q.map((_, i) => `q${sub(i)}`);
    return html`<div class="matrices" data-role="outputs">
      ${matrixTable({ name: 'walk-output', caption: `O from the tiles (${Q.length}×${WIDTH})`, values: this._result.walk.output, rowLabels: labels, colLabels: ['1', '2'] })}
      ${matrixTable({ name: 'attention-output', caption: `O from attention(), the stepper's (${Q.length}×${WIDTH})`, values: stepper, rowLabels: labels, colLabels: ['1', '2'] })}
    </div>`;
  }

  _renderMemory() {
    const { tileFloats, matrixFloats } = this._result.walk;
    const plan = this._result.plan;
    return html`<section data-role="memory">
      <h3>What fast memory holds</h3>
      <p>
        At any moment the walk holds <span data-value=${String(tileFloats)}>${tileFloats}</span> floats: the Q block, one K and V
        tile, the tile's scores, and m, l and the accumulator of each query. The score matrix it never forms would hold
        <span data-value=${String(matrixFloats)}>${matrixFloats}</span>, and that grows with n², the tiles only with the block sizes.
      </p>
      <p data-role="gpu-mapping">
        On a GPU the same walk runs with bigger tiles. For a head width of d = ${plan.headWidth}, the WebGPU shader gives each
        workgroup a block of Br = ${plan.queryRows} queries, one invocation per query row, and stages K and V tiles of
        Bc = ${plan.keyRows} keys in ${fmt(plan.workgroupStorageBytes / 1024)} KB of workgroup memory; each invocation keeps its
        own m, l and accumulator in registers.
      </p>
    </section>`;
  }
}

// What a tile does to each of its rows, read off the event's numbers: a row that held
// nothing (m was −∞), one whose max rose (rescaled), one whose max stayed (factor 1), and
// one whose keys in this tile are all masked (nothing added). One sentence per kind present.
function tileWhy(event) {
  const kinds = { fresh: 0, raised: 0, kept: 0, masked: 0 };
  event.scores.forEach((scores, r) => {
    if (!scores.some(Number.isFinite)) kinds.masked += 1;
    else if (event.oldMax[r] === -Infinity) kinds.fresh += 1;
    else if (event.newMax[r] > event.oldMax[r]) kinds.raised += 1;
    else kinds.kept += 1;
  });
  const rows = (count) => (count === event.queries ? (count === 1 ? 'its row' : `all ${count} rows`) : `${count} of ${event.queries} rows`);
  const parts = [`The tile's scores are computed, ÷√d, and ${event.keys} keys' worth of K and V sit in fast memory.`];
  if (kinds.fresh) {
    parts.push(
      `This is the first tile for ${rows(kinds.fresh)}: the running max m starts at −∞ and nothing is held yet (l = 0, acc = 0), ` +
        `so there is nothing to rescale; m becomes the tile's largest score and its exponentials start the sum.`,
    );
  }
  if (kinds.raised)
    parts.push(`The max rose in ${rows(kinds.raised)}, so their sum and accumulator shrink by exp(m_old − m_new) before this tile's exponentials are added.`);
  if (kinds.kept) parts.push(`In ${rows(kinds.kept)} no score beat m, so the factor is 1: this tile's exponentials are simply added.`);
  if (kinds.masked) parts.push(`In ${rows(kinds.masked)} every key of this tile comes later (the causal mask): nothing is added and m, l and acc stay.`);
  return subscripted(parts.join(' '));
}

export const flashView = defineView({ id: 'flash', title: 'Flash tiles', element: FlashView, fields: FIELDS });
