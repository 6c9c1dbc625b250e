// The long-sequence view: the flash kernel at up to 16,384 tokens, on the learner's GPU
// (WebGPU, attnlab/webgpu) where there is one and in WebAssembly otherwise, with the two
// backends' outputs compared. The kernel never forms the n×n weights, so the view shows a
// sampled block of them, computed exactly by the core (lab.sampledWeights).
// Unlike the cost view (naive against flash, time and memory against n, in wasm), this view
// is about one kernel at lengths where the naive one no longer fits, and about the GPU.
//
// Inputs: Q, K and V are rows 1…n, n+1…2n and 2n+1…3n of
// lab.normalMatrix({ rows: 3n, cols: d, seed }) (shared/random-inputs.js).
// The wasm work (inputs, the kernel, the sample) runs in a Worker (shared/worker-view.js);
// the WebGPU kernel runs from the page, whose thread only waits for the GPU.
import { html, nothing } from 'lit';

import { matrixTable } from '../../shared/matrix-table.js';
import { LIMITS } from '../../../lib/core-lists.js'; // the core's limits, generated from it
import { defineView, internalState } from '../../shared/view-base.js';
import { SEED_FIELD } from '../../shared/view-state.js';
import { WorkerViewBase } from '../../shared/worker-view.js';

const SIZES = [256, 1024, 4096, 16384];
// Beyond this the processor's kernel refuses (n·n scores past the core's limits().flashScores
// for one head): such sizes are offered as the graphics card's only, and not at all once this
// browser turns out to have none.
const WASM_MAX = Math.floor(Math.sqrt(LIMITS.flashScores));
const WIDTHS = [32, 64, 128];
const SAMPLES = 12; // rows and columns of the sampled block of weights

const FIELDS = {
  n: [1024, (v) => SIZES.includes(v), `one of ${SIZES.join(', ')}`],
  headWidth: [64, (v) => WIDTHS.includes(v), `one of ${WIDTHS.join(', ')}`],
  causal: [true, (v) => typeof v === 'boolean', 'true or false'],
  seed: SEED_FIELD,
};

// The sample's colour scale. At n = 16,384 every weight is near 1/n, so a 0-to-1 scale paints
// them all the darkest colour. Instead each weight is compared with the even share, what it
// would be if its query spread its attention evenly over the keys it may see (1/visibleKeys,
// as the core counts them), on a log scale from SPAN times less to SPAN times more.
const SPAN = 8;

// A sampled weight as a multiple of its query's even share; null where the core's rules hide the key.
function ratioToEven({ weights, hidden, visibleKeys }, r, c) {
  return hidden[r][c] ? null : weights[r][c] * visibleKeys[r];
}

function evenShareScale(sample) {
  return {
    kind: 'even-share',
    range: [1 / SPAN, SPAN],
    ends: [`÷${SPAN}`, `×${SPAN}`],
    label: 'weight compared with the even share, log scale',
    level: (v, r, c) => {
      const ratio = ratioToEven(sample, r, c);
      if (ratio === null) return null;
      if (!(ratio > 0)) return 0;
      return Math.min(1, Math.max(0, (Math.log2(ratio) + Math.log2(SPAN)) / (2 * Math.log2(SPAN))));
    },
  };
}

const GPU_NOTES = {
  before: 'Nothing has run yet. A run uses your graphics card where this browser allows it (WebGPU), and the processor (WebAssembly) otherwise.',
  gpu: 'Runs use your graphics card: this browser offers WebGPU.',
  none: 'This browser gives no access to a graphics card (no WebGPU), so runs use the processor instead (WebAssembly).',
};

// A number to `digits` significant digits, without trailing zeros: 0.000969, 4.3, 12.
const sig = (value, digits) => String(Number(value.toPrecision(digits)));

// `count` indices spread evenly over 0 … size − 1.
const spread = (size, count) => [...new Set(Array.from({ length: Math.min(count, size) }, (_, i) => Math.round((i * (size - 1)) / Math.max(1, count - 1))))];

// Largest |a − b|: how far apart the two backends' outputs are.
function maxDifference(a, b) {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}

class LongSequenceView extends WorkerViewBase {
  static properties = { ...WorkerViewBase.properties, ...internalState('_runs', '_agreement', '_sample', '_gpuNote', '_focus', '_info') };

  constructor() {
    super();
    this._runs = []; // { backend, ms, gflops } of the last run
    this._agreement = null;
    this._sample = null; // { n, causal, rows, cols, weights, hidden, visibleKeys }
    this._gpuNote = GPU_NOTES.before;
    this._gpuReady = null; // the WebGPU probe, started by the first run
    this._focus = null; // { row, col } of the sampled weight hovered or focused
    this._info = null; // what the last run could not do, said as information (not an error)
    this._noGpu = false; // the probe found no WebGPU
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this._gpuReady?.then((gpu) => gpu?.destroy());
    this._gpuReady = null;
  }

  // The WebGPU module loads, and asks for a GPU, only when the learner first runs: a page
  // that never runs this view makes no WebGPU request (and gets no console warning).
  async _findGpu() {
    try {
      const { createGpuAttention } = await import('attnlab/webgpu');
      const gpu = await createGpuAttention();
      this._gpuNote = GPU_NOTES.gpu;
      return gpu;
    } catch {
      this._gpuNote = GPU_NOTES.none;
      this._noGpu = true;
      return null;
    }
  }

  clearFigures() {
    [this._runs, this._agreement, this._sample, this._info] = [[], null, null, null];
  }

  // The WebGPU kernel on inputs from the worker: { ms, output }, or null once the run is cancelled.
  async _timeGpu(gpu, current) {
    const { n, headWidth: d, causal, seed } = this.viewState;
    const inputs = await this.run.tasks.run('inputs', { n, d, seed });
    if (!current()) return null;
    // A one-token run first, so the timing leaves out compiling the shader for this d.
    const one = this.lab.normalMatrix({ rows: 1, cols: d, seed: 0 });
    await gpu.attention({ Q: one, K: one, V: one });
    const start = performance.now();
    const { output } = await gpu.attention({ ...inputs, causal });
    return { ms: performance.now() - start, output: output.data };
  }

  // On the GPU where there is one, in wasm where there is none or to compare; the sampled
  // weights always come from the wasm core.
  _run(compare) {
    this._info = null;
    return this.run.start(async (current) => {
      const { n, headWidth: d, causal, seed } = this.viewState;
      this._gpuReady ??= this._findGpu();
      const gpu = await this._gpuReady;
      if (!current()) return;
      const onGpu = gpu ? await this._timeGpu(gpu, current) : null;
      if (!current()) return;
      const onWasm = (!gpu || compare) && n <= WASM_MAX;
      const rows = spread(n, SAMPLES);
      const cols = causal ? rows : spread(n, SAMPLES);
      const settings = { n, d, causal, seed, rows, cols, kernel: onWasm, keepOutput: Boolean(onGpu) && onWasm };
      const { ms, output, refused, weights, hidden, visibleKeys } = await this.run.tasks.run('longSequence', settings);
      if (!current()) return;
      if (refused) this.run.message = `${refused}. The sample of weights below is still exact.`;
      // 4·n²·d floating-point operations, half of them when causal.
      const figures = (backend, time) => ({ backend, ms: time, gflops: (4 * n * n * d * (causal ? 0.5 : 1)) / time / 1e6 });
      this._runs = [...(onGpu ? [figures('webgpu', onGpu.ms)] : []), ...(onWasm && !refused ? [figures('wasm', ms)] : [])];
      this._agreement = output ? maxDifference(onGpu.output, output) : null;
      this._sample = { n, causal, rows, cols, weights, hidden, visibleKeys };
      const tooLong = `${n.toLocaleString('en')} tokens run on a graphics card only: the processor takes up to ${WASM_MAX.toLocaleString('en')}.`;
      if (!gpu && n > WASM_MAX) this._info = `${tooLong} This browser offers no graphics card (WebGPU), so only the exact sample of weights is shown.`;
      else if (compare && n > WASM_MAX) this._info = `${tooLong} There is only the graphics card's run to show.`;
      else if (compare && !gpu) this._info = "Without a graphics card there is only the processor's run to show.";
    });
  }

  render() {
    const { n, headWidth: d, causal } = this.viewState;
    const select = (control, label, values, current) =>
      html`<label>${label}
        <select data-control=${control} @change=${(e) => this.changeView({ [control]: Number(e.target.value) })}>
          ${values.map((v) => html`<option value=${v} ?selected=${v === current} ?disabled=${control === 'n' && v > WASM_MAX && this._noGpu}>${control === 'n' && v > WASM_MAX ? `${v} (graphics card only)` : v}</option>`)}
        </select></label>`;
    const problem = this.draftProblem ?? this.run.message;
    const busy = `Working out attention for ${n} tokens… (Cancel stops it.)`;
    return html`<h2>Long sequences: the flash kernel on WebGPU and in WebAssembly</h2>
      <p class="lead">
        The flash kernel walks the keys a block at a time and keeps a running softmax, so it never stores the n×n weights:
        its memory grows with n, not n². Here it runs at up to 16,384 tokens on your GPU through WebGPU, and up to 4,096
        in WebAssembly (the core keeps one call within a couple of seconds), and the two outputs are compared; a sampled block of the exact weights shows what the kernel never
        writes down. (The Cost view is the other half: the naive and the flash kernel side by side, time and memory
        against n, in WebAssembly.) <span data-role="gpu-status">${this._gpuNote}</span>
      </p>
      ${this.run.workerNote()}
      <div class="controls" role="group" aria-label="Long-sequence options">
        ${select('n', 'Tokens n', SIZES, n)} ${select('headWidth', 'Head width d', WIDTHS, d)}
        ${this.causalInput(causal)}
        ${this.seedInput()}
        <button data-action="run" @click=${() => this._run(false)}>Run</button>
        <button data-action="compare" @click=${() => this._run(true)}>Run on both and compare</button>
        ${this.run.cancelButton()}
      </div>
      ${this.messageLine(this.run.busy ? busy : (problem ?? this.run.status ?? this._info), { role: 'message', error: !this.run.busy && Boolean(problem) })}
      ${this._runs.length ? this._renderRuns() : nothing} ${this._sample ? this._renderSample() : nothing}
      ${this._sample ? html`<p class="explanation" data-role="explanation">${this._explain() ?? 'Hover over or focus a weight to read it.'}</p>` : nothing}`;
  }

  _renderRuns() {
    const { n, headWidth: d, causal } = this.viewState;
    return html`<table data-role="runs">
        <caption>n = ${n}, d = ${d}${causal ? ', causal' : ''}</caption>
        <thead><tr><th scope="col">backend</th><th scope="col">time (ms)</th><th scope="col">billion operations per second</th></tr></thead>
        <tbody>
          ${this._runs.map(
            (r) =>
              html`<tr data-backend=${r.backend}><th scope="row">${r.backend === 'webgpu' ? 'WebGPU' : 'WebAssembly'}</th><td data-ms=${r.ms}>${r.ms.toFixed(1)}</td><td>${r.gflops.toFixed(2)}</td></tr>`,
          )}
        </tbody>
      </table>
      ${
        this._agreement === null
          ? nothing
          : html`<p data-role="agreement" data-value=${this._agreement}>
            The graphics card and the processor agree: their outputs differ by at most ${this._agreement.toExponential(1)}.
          </p>`
      }`;
  }

  _renderSample() {
    const { n, causal, rows, cols, weights } = this._sample;
    const focus = this._focus;
    return html`<p class="lead" data-role="even-share">
        If a query spread its attention evenly, each key it may see would get the even share 1/n
        (${causal ? 'with the causal mask, query i sees i keys, so 1/i' : `here 1/${n.toLocaleString('en')} ≈ ${sig(1 / n, 2)}`}); the
        colours compare each weight with that share, from ${SPAN} times less (dark) to ${SPAN} times more (bright), so the
        middle colour means exactly even and the picture shows which keys a query favours.
      </p>
      ${matrixTable({
        name: 'sampled-weights',
        caption: `Weights A for ${rows.length} of the ${n} queries and ${cols.length} of the keys, each written as a multiple of the even share (each row still sums to 1 over all keys; hover for the weight itself)`,
        values: weights,
        format: (v, r, c) => {
          const ratio = ratioToEven(this._sample, r, c);
          return ratio === null ? '0' : `${sig(ratio, 2)}×`;
        },
        rowLabels: rows.map((i) => `q${i + 1}`),
        colLabels: cols.map((j) => `k${j + 1}`),
        scale: evenShareScale(this._sample),
        highlight: focus ? { cell: [focus.row, focus.col] } : undefined,
        onFocusCell: (row, col) => (this._focus = { row, col }),
      })}`;
  }

  // The hovered or focused weight, read from the sample on view (so a rerun updates it).
  _explain() {
    if (!this._focus || !this._sample) return null;
    const { rows, cols, weights, visibleKeys } = this._sample;
    const { row, col } = this._focus;
    const [i, j] = [rows[row] + 1, cols[col] + 1];
    const ratio = ratioToEven(this._sample, row, col);
    if (ratio === null) return `A(${i}, ${j}) = 0: key ${j} comes after query ${i}, so the causal mask hides it`;
    return `A(${i}, ${j}) = ${sig(weights[row][col], 3)}: ${sig(ratio, 2)} times the even share 1/${visibleKeys[row]}`;
  }
}

export const longSequenceView = defineView({
  id: 'long-sequence',
  title: 'Long sequences',
  element: LongSequenceView,
  fields: FIELDS,
  renamed: { d: 'headWidth' },
});
