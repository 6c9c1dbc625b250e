// The cost chart measured live (issue 37, item 8): exact attention (the flash kernel) against
// the chosen family's long kernel at n = 128 … 4,096, timed by the wasm core in the element's
// Worker (core-worker.js running core-tasks.js's measure task), so the page's thread never
// waits on a kernel. The learner starts a run (seconds on a phone); a change of family or knob
// ends it, and so does the view leaving the page. The FLOPs above are counted; these are timed.
import { html, LitElement, nothing } from 'lit';

import { lineChart } from '../../../shared/chart.js';
import { WorkerRun } from '../../../shared/worker-run.js';
import { causalOf, familyOf } from './families.js';
import { efficientStyles } from './styles.js';

const TIMED_SIZES = [128, 256, 512, 1024, 2048, 4096];
const TIMED_WIDTH = 16; // d: small, so exact attention at 4,096 takes well under a second
const SEED = 1;
const REPEATS = 5; // the fastest of 5: the others paid for a timer tick, the collector or another process
const DECADES = [0.01, 0.1, 1, 10, 100, 1000, 10000];
const count = (n) => n.toLocaleString('en-US');
const ms = (x) => (x < 0.1 ? '< 0.1' : x < 10 ? x.toFixed(2) : x.toFixed(0));

/**
 * What is timed for view state v: exact attention and the family's long kernel where the core
 * has one (linear: elu or relu; retention; the sparse patterns' sliding window), one thread;
 * else the linear kernel for comparison, with a note saying why.
 */
function timedKernels(v) {
  const causal = causalOf(v);
  const exact = { id: 'exact', label: `exact (flash kernel${causal ? ', causal' : ''})`, method: 'flashAttention', options: { causal, threads: 1 } };
  const linear = (featureMap) => ({
    id: 'family',
    label: `linear, φ = ${featureMap === 'elu' ? 'elu + 1' : 'relu'} (long kernel)`,
    method: 'longLinearAttention',
    options: { featureMap, causal, threads: 1 },
  });
  const name = familyOf(v.family).label;
  switch (v.family) {
    case 'linear':
      return { kernels: [exact, linear(v.featureMap)], note: null };
    case 'retention':
      return {
        kernels: [exact, { id: 'family', label: `retention, γ = ${v.decay} (long kernel)`, method: 'longRetention', options: { decay: v.decay, threads: 1 } }],
        note: null,
      };
    case 'bigbird':
    case 'strided': {
      const window = v.family === 'bigbird' ? v.window : v.stride;
      const rest = v.family === 'bigbird' ? 'global and random keys' : 'strided keys';
      return {
        kernels: [exact, { id: 'family', label: `sliding window ${window} (flash kernel)`, method: 'flashAttention', options: { causal, window, threads: 1 } }],
        note: `${name} has no long kernel of its own: timed is its sliding window of ${window}, whose key band the flash kernel keeps to; the ${rest} would add their cells.`,
      };
    }
    default:
      return {
        kernels: [exact, linear('elu')],
        note: `${name} has no long kernel in attnlab (the view's routine builds the n × n weights to show them), so the linear kernel is timed beside exact instead, for the shape of a cost linear in n.`,
      };
  }
}

class EfficientTiming extends LitElement {
  static styles = efficientStyles;

  static properties = { v: { attribute: false }, _rows: { state: true } };

  constructor() {
    super();
    this._rows = [];
    this.run = new WorkerRun(this);
  }

  willUpdate() {
    // Times belong to the kernels they were measured with: another family or knob clears them.
    const key = this.v && JSON.stringify(timedKernels(this.v).kernels);
    if (key === this._key) return;
    if (this._key !== undefined) this.run.cancel(null);
    [this._key, this._rows, this.run.message] = [key, [], null];
  }

  _measure() {
    this._rows = [];
    const { kernels } = timedKernels(this.v);
    return this.run.start(
      async (current) => {
        for (const n of TIMED_SIZES)
          for (const kernel of kernels) {
            const { method, options } = kernel;
            const figures = await this.run.tasks.run('measure', { method, n, d: TIMED_WIDTH, seed: SEED, repeats: REPEATS, options });
            if (!current()) return;
            this._rows = [...this._rows, { n, id: kernel.id, ...figures }];
          }
      },
      (error) => `The measurement stopped: ${error.message}`,
    );
  }

  render() {
    if (!this.v) return nothing;
    const { kernels, note } = timedKernels(this.v);
    const at = (n, id) => this._rows.find((r) => r.n === n && r.id === id);
    const measured = TIMED_SIZES.filter((n) => at(n, 'exact'));
    const times = this._rows.filter((r) => r.ms > 0).map((r) => r.ms);
    const status =
      this.run.message ??
      (this.run.busy ? `Measuring… ${this._rows.length} of ${TIMED_SIZES.length * kernels.length}` : this._rows.length ? 'Measured in this browser.' : '');
    return html`<h4>Time, measured in this browser</h4>
      <p class="note">
        One head of width d = ${TIMED_WIDTH} on random inputs, one thread, timed by the wasm core in a background Worker (the
        page stays responsive): the fastest of ${REPEATS} runs at each n. Times depend on this device
        and on what else it is doing.${note ? ` ${note}` : ''}
      </p>
      ${this.run.workerNote()}
      <div class="controls">
        <button data-action="measure" ?disabled=${this.run.busy} @click=${() => this._measure()}>Measure in this browser</button>
        ${this.run.cancelButton({ action: 'cancel-measure' })}
      </div>
      <p class="message ${this.run.message ? 'error' : ''}" data-role="measure-status" role=${this.run.message ? 'alert' : 'status'}>${status}</p>
      ${
        measured.length
          ? html`<div class="figures">
            <div class="scroll-x"><table class="cost" data-role="measured">
              <caption>Milliseconds per call (d = ${TIMED_WIDTH}, one thread)</caption>
              <thead><tr><th scope="col">n</th>${kernels.map((k) => html`<th scope="col">${k.label}</th>`)}<th scope="col">exact ÷ family</th></tr></thead>
              <tbody>${measured.map((n) => {
                const [exact, family] = [at(n, 'exact'), at(n, 'family')];
                const cell = (r) => (!r ? '…' : r.refused ? 'refused' : ms(r.ms));
                return html`<tr data-n=${n}><th scope="row">${count(n)}</th>
                  <td data-ms=${String(exact.ms ?? '')}>${cell(exact)}</td><td data-ms=${String(family?.ms ?? '')}>${cell(family)}</td>
                  <td>${family?.ms > 0 && exact.ms > 0 ? `${(exact.ms / family.ms).toFixed(1)}×` : '—'}</td></tr>`;
              })}</tbody>
            </table></div>
            ${
              measured.length >= 2 && times.length >= 2
                ? lineChart({
                    title: 'Measured milliseconds against n, log-log',
                    x: { label: 'n (tokens)', domain: [TIMED_SIZES[0], TIMED_SIZES.at(-1)], type: 'log', ticks: TIMED_SIZES, format: count },
                    y: { label: 'ms (measured)', domain: [Math.min(...times), Math.max(...times)], type: 'log', ticks: DECADES, format: String },
                    series: kernels.map((k, i) => ({
                      id: `measured-${k.id}`,
                      label: k.label,
                      dashed: i > 0,
                      points: this._rows.filter((r) => r.id === k.id && r.ms > 0).map((r) => [r.n, r.ms]),
                    })),
                  })
                : nothing
            }
          </div>`
          : nothing
      }`;
  }
}

if (globalThis.customElements && !customElements.get('attn-efficient-timing')) customElements.define('attn-efficient-timing', EfficientTiming);

/** The measured times in the view (an export the body uses, so that no bundler drops this module as unused). */
export const measuredTimes = (v) => html`<attn-efficient-timing .v=${v}></attn-efficient-timing>`;
