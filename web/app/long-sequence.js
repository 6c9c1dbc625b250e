// <attn-long-sequence>: attention for up to 16,384 tokens, on the learner's GPU (WebGPU)
// where there is one and in wasm otherwise. The tiled kernels never form the n×n weights,
// so the view shows a sampled block of them, computed exactly by the core.
import { createAttnLab } from 'attnlab';
import { html, LitElement, nothing } from 'lit';

import { fmt } from '../element/shared/format.js';
import { matrixTable } from '../element/shared/matrix-table.js';
import { normalMatrix, seededRandom } from '../element/shared/random.js';
import { styles } from '../element/styles.js';
import { createGpuAttention } from '../webgpu/gpu-attention.js';

const SIZES = [256, 1024, 4096, 16384];
const WIDTHS = [32, 64, 128];
const SAMPLES = 12; // rows and columns of the sampled block of weights

// `count` indices spread evenly over 0 … size − 1.
const spread = (size, count) =>
  [...new Set(Array.from({ length: Math.min(count, size) }, (_, i) => Math.round((i * (size - 1)) / Math.max(1, count - 1))))];

class AttnLongSequence extends LitElement {
  static styles = styles;

  static properties = {
    _n: { state: true },
    _d: { state: true },
    _causal: { state: true },
    _seed: { state: true },
    _busy: { state: true },
    _runs: { state: true },
    _agreement: { state: true },
    _sample: { state: true },
    _gpuNote: { state: true },
    _message: { state: true },
    _explanation: { state: true },
  };

  constructor() {
    super();
    this._n = 1024;
    this._d = 64;
    this._causal = true;
    this._seed = 1;
    this._busy = false;
    this._runs = [];
    this._agreement = null;
    this._sample = null;
    this._gpuNote = 'Looking for WebGPU…';
    this._message = null;
    this._explanation = null;
  }

  connectedCallback() {
    super.connectedCallback();
    this._ready = this._start();
  }

  async _start() {
    this._lab = await createAttnLab();
    try {
      this._gpu = await createGpuAttention();
      this._gpuNote = 'WebGPU is available: runs use your GPU.';
    } catch (error) {
      this._gpuNote = `${error.message}; runs use WebAssembly instead.`;
    }
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this._gpu?.destroy();
  }

  _inputs() {
    const random = seededRandom(this._seed);
    const [Q, K, V] = [0, 1, 2].map(() => normalMatrix(this._n, this._d, random));
    return { Q, K, V, causal: this._causal };
  }

  async _time(backend, request) {
    // A one-token run first, so the timing leaves out compiling the shader for this d.
    if (backend === 'webgpu') {
      const one = normalMatrix(1, this._d, seededRandom(0));
      await this._gpu.attention({ Q: one, K: one, V: one });
    }
    const start = performance.now();
    const result = backend === 'webgpu' ? await this._gpu.attention(request) : this._lab.flashAttention(request);
    const ms = performance.now() - start;
    // 4·n²·d floating-point operations, half of them when causal.
    const flops = 4 * this._n * this._n * this._d * (this._causal ? 0.5 : 1);
    return { backend, ms, gflops: flops / ms / 1e6, output: result.output.data };
  }

  async _run(compare) {
    await this._ready;
    this._busy = true;
    this._message = null;
    await new Promise((done) => requestAnimationFrame(done)); // show "busy" before the work
    try {
      const request = this._inputs();
      const backends = compare && this._gpu ? ['webgpu', 'wasm'] : [this._gpu ? 'webgpu' : 'wasm'];
      const runs = [];
      for (const backend of backends) runs.push(await this._time(backend, request));
      this._agreement = runs.length === 2 ? this._maxDifference(runs[0].output, runs[1].output) : null;
      this._runs = runs.map(({ output, ...figures }) => figures);
      const rows = spread(this._n, SAMPLES);
      const cols = this._causal ? rows : spread(this._n, SAMPLES);
      this._sample = { rows, cols, weights: this._lab.sampledWeights({ ...request, rows, cols }) };
      if (compare && !this._gpu) this._message = 'Without WebGPU there is only the wasm run to show.';
    } catch (error) {
      this._message = error.message;
    } finally {
      this._busy = false;
    }
  }

  // Largest |a − b|: how far apart the two backends' outputs are.
  _maxDifference(a, b) {
    let max = 0;
    for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
    return max;
  }

  render() {
    const option = (value, current) => html`<option value=${value} ?selected=${value === current}>${value}</option>`;
    return html`<section aria-label="Long sequences">
      <h2>Long sequences</h2>
      <p>
        A tiled kernel walks the keys a block at a time and keeps a running softmax, so it never
        stores the n×n weights: memory grows with n, not n². <span data-role="gpu-status">${this._gpuNote}</span>
      </p>
      <div class="controls" role="group" aria-label="Long-sequence options">
        <label>Tokens n <select data-control="n" @change=${(e) => (this._n = Number(e.target.value))}>${SIZES.map((n) => option(n, this._n))}</select></label>
        <label>Head width d <select data-control="d" @change=${(e) => (this._d = Number(e.target.value))}>${WIDTHS.map((d) => option(d, this._d))}</select></label>
        <label><input data-control="causal" type="checkbox" .checked=${this._causal} @change=${(e) => (this._causal = e.target.checked)} />Causal</label>
        <label>Seed <input data-control="seed" type="number" .value=${String(this._seed)} @change=${(e) => (this._seed = Number(e.target.value) || 0)} /></label>
        <button data-action="run" ?disabled=${this._busy} @click=${() => this._run(false)}>Run</button>
        <button data-action="compare" ?disabled=${this._busy} @click=${() => this._run(true)}>Run on both and compare</button>
      </div>
      <p class="message ${this._message ? 'error' : ''}" data-role="message" role="status">
        ${this._busy ? `Computing attention for ${this._n} tokens…` : (this._message ?? '')}
      </p>
      ${this._runs.length ? this._renderRuns() : nothing} ${this._sample ? this._renderSample() : nothing}
      ${this._sample ? html`<p class="explanation" data-role="explanation">${this._explanation ?? 'Hover over or focus a weight to read it.'}</p>` : nothing}
    </section>`;
  }

  _renderRuns() {
    return html`<table data-role="runs">
        <caption>n = ${this._n}, d = ${this._d}${this._causal ? ', causal' : ''}</caption>
        <thead><tr><th scope="col">backend</th><th scope="col">time (ms)</th><th scope="col">GFLOP/s</th></tr></thead>
        <tbody>
          ${this._runs.map(
            (r) => html`<tr data-backend=${r.backend}><th scope="row">${r.backend === 'webgpu' ? 'WebGPU' : 'WebAssembly'}</th><td data-ms=${r.ms}>${r.ms.toFixed(1)}</td><td>${r.gflops.toFixed(2)}</td></tr>`,
          )}
        </tbody>
      </table>
      ${this._agreement === null
        ? nothing
        : html`<p data-role="agreement" data-value=${this._agreement}>
            The two backends agree: the largest difference between their outputs is ${this._agreement.toExponential(1)}.
          </p>`}`;
  }

  _renderSample() {
    const { rows, cols, weights } = this._sample;
    return matrixTable({
      name: 'sampled-weights',
      caption: `Weights A for ${rows.length} of the ${this._n} queries and ${cols.length} of the keys (each row still sums to 1 over all keys)`,
      values: weights,
      rowLabels: rows.map((i) => `q${i + 1}`),
      colLabels: cols.map((j) => `k${j + 1}`),
      heat: true,
      onFocusCell: (r, c) => (this._explanation = `A(${rows[r] + 1}, ${cols[c] + 1}) = ${fmt(weights[r][c])}`),
    });
  }
}

customElements.get('attn-long-sequence') ?? customElements.define('attn-long-sequence', AttnLongSequence);
