// The cost view: how time and memory grow with the sequence length n for the naive kernel
// (which stores every n×n score matrix) and the flash one (which walks the keys a block at
// a time), both measured live in this browser by the wasm core. Memory is what the core
// itself held at its peak during the call (memoryStats().peakTrackedBytes). The kernels run
// in a Worker with its own core (shared/worker-view.js), so the page stays responsive.
import { html, nothing } from 'lit';

import { fmt } from '../../shared/format.js';
import { lineChart } from '../../shared/chart.js';
import '../../shared/topic-quiz.js';
import { defineView, internalState } from '../../shared/view-base.js';
import { SEED_FIELD } from '../../shared/view-state.js';
import { WorkerViewBase } from '../../shared/worker-view.js';

const WIDTHS = [32, 64, 128];
const LARGEST = [256, 512, 1024, 2048, 4096];
const SMALLEST = 64;
const KERNELS = [
  ['naive', 'naiveAttention', 'naive (stores n×n scores)'],
  ['flash', 'flashAttention', 'flash (tiled, FlashAttention-style)'],
];
const FLOAT_BYTES = 4;
const BYTE_TICKS = Array.from({ length: 8 }, (_, i) => 1024 * 4 ** i); // 1 KiB, 4 KiB, … 16 GiB
const FAR_SIZES = [4096, 32768, 131072, 1048576]; // sequence lengths of real models

const FIELDS = {
  headWidth: [64, (v) => WIDTHS.includes(v), `one of ${WIDTHS.join(', ')}`],
  causal: [false, (v) => typeof v === 'boolean', 'true or false'],
  maxN: [1024, (v) => LARGEST.includes(v), `one of ${LARGEST.join(', ')}`],
  seed: SEED_FIELD,
};

/** Sizes from SMALLEST doubling up to maxN. */
function costSizes(maxN) {
  const sizes = [];
  for (let n = SMALLEST; n <= maxN; n *= 2) sizes.push(n);
  return sizes;
}

function bytes(value) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) [value, unit] = [value / 1024, unit + 1];
  return `${Number(value.toPrecision(3))} ${units[unit]}`;
}

class CostView extends WorkerViewBase {
  static properties = { ...WorkerViewBase.properties, ...internalState('_runs', '_refused') };

  constructor() {
    super();
    this._runs = []; // { n, kernel, ms, peakBytes }, in the order measured
  }

  clearFigures() {
    [this._runs, this._refused] = [[], null];
  }

  // Each size is timed on random inputs from the core, smaller sizes a few times (the fastest
  // run counts). The figures appear as they come; Stop ends the kernel under way.
  _measure() {
    const { headWidth: d, causal, maxN, seed } = this.viewState;
    this._runs = [];
    this._refused = null; // the first size the core refuses for one call, if any
    return this.run.start(
      async (current) => {
        for (const n of costSizes(maxN)) {
          for (const [kernel, method] of KERNELS) {
            const repeats = n <= 256 ? 5 : n <= 1024 ? 2 : 1;
            const figures = await this.run.tasks.run('measure', { method, n, d, causal, seed, repeats });
            if (!current()) return;
            if (figures.refused) this._refused ??= { n, kernel, message: figures.refused };
            else this._runs = [...this._runs, { n, kernel, ...figures }];
          }
        }
      },
      (error) => `The measurement stopped: ${error.message}`,
    );
  }

  render() {
    const { headWidth: d, causal, maxN } = this.viewState;
    const select = (control, label, values, current, parse = Number) =>
      html`<label>${label}
        <select data-control=${control} @change=${(e) => this.changeView({ [control]: parse(e.target.value) })}>
          ${values.map((v) => html`<option value=${v} ?selected=${v === current}>${v}</option>`)}
        </select></label>`;
    return html`
      <h2>Cost: time and memory against the sequence length n</h2>
      <p class="lead">
        Every query is compared with every key, so a sequence of n tokens has n × n scores per head. The naive kernel
        stores them all before the softmax, which costs n² numbers of memory. The flash kernel computes exactly the same
        output but handles the keys a block at a time, keeping only a running maximum and a running sum per query, so its
        memory grows like n. Both still do about n² × d multiply-adds: tiling saves memory and memory traffic, not
        arithmetic. Measure both here, in your browser.
      </p>
      <p class="lead">
        This view compares the two kernels, time and memory against n, in WebAssembly. The Long sequences view takes
        the flash kernel alone to 16,384 tokens on your GPU through WebGPU (4,096 in WebAssembly), with a sampled block of
        the exact weights.
      </p>
      ${this.run.workerNote()}
      <div class="controls" role="group" aria-label="Cost options">
        ${select('headWidth', 'Head width d', WIDTHS, d)} ${select('maxN', 'Largest n', LARGEST, maxN)}
        ${this.causalInput(causal)}
        ${this.seedInput()}
        <button data-action="measure" @click=${() => this._measure()}>Measure</button>
        ${this.run.cancelButton({ action: 'stop', label: 'Stop', status: () => `Stopped after ${this._runs.length} of ${this._total()} runs.` })}
      </div>
      ${this._renderStatus()}
      ${this._refused ? html`<p class="note" data-role="cost-refused">The ${this._refused.kernel} kernel stops before n = ${this._refused.n}: ${this._refused.message}.</p>` : nothing}
      ${this._runs.length ? this._renderFigures() : nothing} ${this._renderFarSizes()}
      <attn-topic-quiz topic="cost"></attn-topic-quiz>
    `;
  }

  // Runs in a measurement: each size, each kernel.
  _total() {
    return KERNELS.length * costSizes(this.viewState.maxN).length;
  }

  // A problem, else the progress of a measurement or how it ended, else what to do.
  _renderStatus() {
    const problem = this.draftProblem ?? this.run.message;
    const progress = this.run.busy
      ? `Measuring… ${this._runs.length} of ${this._total()} runs done.`
      : (this.run.status ?? (this._runs.length ? '' : 'Press Measure: it takes a few seconds.'));
    return this.messageLine(problem ?? progress, { role: 'cost-status', error: Boolean(problem) });
  }

  _series(kernel, field) {
    return this._runs.filter((r) => r.kernel === kernel).map((r) => [r.n, r[field]]);
  }

  _renderFigures() {
    const naive = this._series('naive', 'ms');
    const sizes = [...new Set(this._runs.map((r) => r.n))];
    const domainX = [sizes[0] / 1.2, sizes.at(-1) * 1.2];
    // The n² guide passes through the naive kernel's largest measurement.
    const [lastN, lastMs] = naive.at(-1) ?? [sizes[0], 1];
    const squareGuide = sizes.map((n) => [n, lastMs * (n / lastN) ** 2]);
    const times = this._runs.map((r) => r.ms).concat(squareGuide.map(([, ms]) => ms));
    const memory = sizes.map((n) => [n, FLOAT_BYTES * n * n]);
    const allBytes = this._runs.map((r) => r.peakBytes).concat(memory.map(([, b]) => b));
    const positive = (values) => [Math.max(Math.min(...values.filter((v) => v > 0)) / 1.5, 1e-3), Math.max(...values) * 1.5];
    return html`<div class="figures">
        ${lineChart({
          title: 'Time against n, log-log',
          x: { label: 'sequence length n', domain: domainX, type: 'log', ticks: sizes, format: String },
          y: { label: 'time (ms)', domain: positive(times), type: 'log' },
          series: [
            ...KERNELS.map(([kernel, , label]) => ({ id: `time-${kernel}`, label, points: this._series(kernel, 'ms') })),
            { id: 'time-n-squared', label: 'grows like n² (through the last naive point)', points: squareGuide, dashed: true },
          ],
        })}
        ${lineChart({
          title: 'Peak memory held by the core against n, log-log',
          x: { label: 'sequence length n', domain: domainX, type: 'log', ticks: sizes, format: String },
          y: { label: 'peak memory', domain: positive(allBytes), type: 'log', ticks: BYTE_TICKS, format: bytes },
          series: [
            ...KERNELS.map(([kernel, , label]) => ({ id: `memory-${kernel}`, label, points: this._series(kernel, 'peakBytes') })),
            { id: 'memory-n-by-n', label: 'one n×n float32 matrix: 4n² bytes', points: memory, dashed: true },
          ],
        })}
      </div>
      ${this._renderTable(sizes)}
      ${this._renderConclusion(sizes)}`;
  }

  // What the measurements say, in their own numbers: the largest n both kernels reached, and
  // how each figure grew over the last doubling of n (an n×n matrix grows ×4).
  _renderConclusion(sizes) {
    const run = (n, kernel) => this._run(n, kernel);
    const both = sizes.filter((n) => run(n, 'naive') && run(n, 'flash'));
    if (!both.length) return nothing;
    const n = both.at(-1);
    const [naive, flash] = [run(n, 'naive'), run(n, 'flash')];
    const figures = (r) => html`<span data-kernel=${r.kernel} data-ms=${r.ms} data-bytes=${r.peakBytes}>${fmt(r.ms)} ms and held ${bytes(r.peakBytes)}</span>`;
    const half = both.includes(n / 2) ? n / 2 : null;
    const growth = (kernel, field) => {
      const before = run(half, kernel)[field];
      return before > 0 ? html`<span data-kernel=${kernel} data-growth=${field}>×${(run(n, kernel)[field] / before).toFixed(1)}</span>` : 'from 0';
    };
    return html`<p class="explanation" data-role="cost-conclusion" data-n=${n}>
      At n = ${n}, the naive kernel took ${figures(naive)}; the flash kernel took ${figures(flash)}.
      ${
        half
          ? html`From n = ${half} to n = ${n}, the naive kernel's memory grew ${growth('naive', 'peakBytes')} and its time
            ${growth('naive', 'ms')}; the flash kernel's memory grew ${growth('flash', 'peakBytes')} and its time ${growth('flash', 'ms')}.
            Doubling n makes an n × n matrix four times as large.`
          : nothing
      }
      The naive kernel keeps the scores, their exponentials and the weights, each n × n; the flash kernel keeps the
      inputs and the output, n × d each, and small tiles whose size does not depend on n.
    </p>`;
  }

  _run(n, kernel) {
    return this._runs.find((r) => r.n === n && r.kernel === kernel);
  }

  _renderTable(sizes) {
    const run = (n, kernel) => this._run(n, kernel);
    const cells = (r) =>
      r
        ? html`<td data-kernel=${r.kernel} data-ms=${r.ms}>${fmt(r.ms)}</td><td data-kernel=${r.kernel} data-bytes=${r.peakBytes}>${bytes(r.peakBytes)}</td>`
        : html`<td></td><td></td>`;
    // Scrollable on a phone: focusable and named, so a keyboard can scroll it too.
    return html`<div class="scroll-x" tabindex="0" role="region" aria-label="Measured runs (scrolls sideways on a narrow screen)"><table data-role="cost-runs">
      <caption>Measured in this browser (d = ${this.viewState.headWidth}${this.viewState.causal ? ', causal' : ''}; the fastest of a few runs for small n)</caption>
      <thead>
        <tr><th scope="col">n</th><th scope="col">naive time (ms)</th><th scope="col">naive peak memory</th>
          <th scope="col">flash time (ms)</th><th scope="col">flash peak memory</th><th scope="col">n×n matrix (4n² B)</th></tr>
      </thead>
      <tbody>
        ${sizes.map((n) => html`<tr data-n=${n}><th scope="row">${n}</th>${cells(run(n, 'naive'))}${cells(run(n, 'flash'))}<td>${bytes(FLOAT_BYTES * n * n)}</td></tr>`)}
      </tbody>
    </table></div>`;
  }

  _renderFarSizes() {
    return html`<details data-role="far-sizes">
      <summary>What one n×n matrix of float32 needs at the lengths real models use</summary>
      <table>
        <thead><tr><th scope="col">n</th><th scope="col">4n² bytes, per head and per layer</th></tr></thead>
        <tbody>
          ${FAR_SIZES.map((n) => html`<tr><th scope="row">${n.toLocaleString('en')}</th><td data-bytes=${FLOAT_BYTES * n * n}>${bytes(FLOAT_BYTES * n * n)}</td></tr>`)}
        </tbody>
      </table>
      <p>
        A model has many heads and layers, so the naive approach runs out of memory long before the arithmetic becomes
        the problem; that is why long-context models use tiled kernels such as flash.
      </p>
    </details>`;
  }
}

export const costView = defineView({ id: 'cost', title: 'Cost', element: CostView, fields: FIELDS, renamed: { d: 'headWidth' } });
