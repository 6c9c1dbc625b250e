// The efficient view's body, loaded when the view first opens (efficient.js): the requests'
// results as the view draws them. Every matrix is the core's (families.js makes the
// requests); this draws and compares them.
import { html, nothing } from 'lit';

import { WEIGHT_SCALE, scoreScale } from '../../../shared/colors.js';
import { fmtWide, shape, sub } from '../../../shared/format.js';
import { formula } from '../../../shared/formula.js';
import { matrixTable } from '../../../shared/matrix-table.js';
import { tokenLabels } from '../../../steps/panels.js';
import { causalOf, computeFamily, FAMILIES, familyOf, isRecurrent, outputErrors, recurrentStep, rowErrors } from './families.js';
import { HEADING, MAX_TOKENS } from '../fields.js';
import { modelPanel } from './consequence.js';
import { measuredTimes } from './measured.js';
import { renderCost, renderRecurrent, renderSentences } from './parts.js';
import '../../../shared/topic-quiz.js';

export { efficientStyles } from './styles.js';

// Q, K and V: rows of lab.normalMatrix (random), or the stepper's (all its columns, as one head).
function inputsOf(view, lab, v) {
  if (v.source === 'stepper') {
    if (!view.trace || !view.state) throw Object.assign(new Error('the stepper has no trace yet'), { name: 'AttnLabError' });
    const of = (m) => (view.state.mode === 'x' ? view.trace.steps.find((s) => s.id === `project-${m.toLowerCase()}`).values : view.state[m]);
    const { queries, keys } = tokenLabels(view.state);
    return { Q: of('Q'), K: of('K'), V: of('V'), queries, keys };
  }
  const { n, width: d, seed } = v;
  const { data } = lab.normalMatrix({ rows: 3 * n, cols: d, seed });
  const block = (b) => Array.from({ length: n }, (_, i) => Array.from(data.subarray((b * n + i) * d, (b * n + i + 1) * d)));
  const labels = Array.from({ length: n }, (_, i) => `t${sub(i)}`);
  return { Q: block(0), K: block(1), V: block(2), queries: labels, keys: labels };
}

/** The core's numbers for view state v (efficient.js calls it as the view's compute). */
export function compute(view, lab, v) {
  const inputs = inputsOf(view, lab, v);
  const result = computeFamily(lab, v, inputs);
  const n = inputs.Q.length;
  const token = Math.min(v.token, n - 1);
  return {
    ...result,
    v,
    inputs,
    // A row of linear attention whose normaliser is 0 is all zeros: no distribution, no KL.
    rowErrors: rowErrors(result.weights, result.exact.weights, result.distribution).map((e, i) =>
      result.linear?.zeroNormalizerRows.includes(i) ? { ...e, kl: null } : e,
    ),
    outputErrors: outputErrors(result.output, result.exact.output),
    step: isRecurrent(v) ? { token, ...recurrentStep(lab, v, inputs, token) } : null,
    kvBytesPerToken: lab.kvCacheBytes({ layers: 1, kvHeads: 1, headWidth: inputs.K[0].length, bytesPerValue: 4 }),
  };
}

/** The view's content once it has a result. */
export function render(view) {
  const r = view._result;
  const v = r.v; // the view state these numbers were computed for (a refused change keeps them)
  return html`<h2>${HEADING}</h2>
    <p class="lead">
      Exact attention compares every query with every key: n² scores. Each family below avoids some of that work. Pick one
      and its knob, and compare its weights and output with softmax's on the same Q, K and V, all computed by the core.
    </p>
    ${renderControls(view)} ${view.messageLine(view.draftProblem ?? view._error)}
    <div class="formulas" data-role="formula">${FORMULAS[v.family](v).map((tex) => html`<div class="formula" ${formula(tex)}></div>`)}</div>
    ${renderSentences(v, r)} ${renderWeights(view)} ${renderErrors(view)} ${renderCost(v, r)}
    ${measuredTimes(v)}
    ${r.step ? renderRecurrent({ v, r, onToken: (token) => view.changeView({ token }) }) : nothing}
    ${modelPanel(view.lab, v)}
    <attn-topic-quiz topic="efficient"></attn-topic-quiz>`;
}

function renderControls(view) {
  const v = view.viewState;
  const n = v.source === 'random' ? v.n : view._result.inputs.Q.length;
  const range = (field, label, min, max, step = 1) =>
    html`<label>${label}
      <input data-control=${field} type="range" min=${min} max=${max} step=${step} .value=${String(v[field])}
        @input=${(e) => view.changeView({ [field]: Number(e.target.value) })} />
      <output>${v[field]}</output></label>`;
  const family = familyOf(v.family);
  return html`<fieldset class="controls" data-role="controls">
    <legend>Example and family</legend>
    <label>Inputs
      <select data-control="source" @change=${(e) => view.changeView({ source: e.target.value })}>
        <option value="random" ?selected=${v.source === 'random'}>random, seeded</option>
        <option value="stepper" ?selected=${v.source === 'stepper'}>the stepper's Q, K, V</option>
      </select></label>
    ${v.source === 'random' ? html`${range('n', 'n', 2, MAX_TOKENS)}${range('width', 'd', 1, 16)}` : nothing}
    ${view.seedInput()}
    <label>Family
      <select data-control="family" @change=${(e) => view.changeView({ family: e.target.value })}>
        ${FAMILIES.map((f) => html`<option value=${f.id} ?selected=${f.id === v.family}>${f.label}</option>`)}
      </select></label>
    ${
      family.causal === true
        ? html`<label><input data-control="causal" type="checkbox" .checked=${v.causal} @change=${(e) => view.changeView({ causal: e.target.checked })} /> causal</label>`
        : nothing
    }
    ${
      v.family === 'linear'
        ? html`<label>φ
          <select data-control="featureMap" @change=${(e) => view.changeView({ featureMap: e.target.value })}>
            <option value="elu" ?selected=${v.featureMap === 'elu'}>elu(x) + 1</option>
            <option value="relu" ?selected=${v.featureMap === 'relu'}>relu(x)</option>
          </select></label>`
        : nothing
    }
    ${v.family === 'favor' ? range('features', 'm features', 1, 1024) : nothing}
    ${v.family === 'retention' ? range('decay', 'γ', 0.05, 1, 0.05) : nothing}
    ${v.family === 'svd' || v.family === 'linformer' ? range('rank', 'k', 1, n) : nothing}
    ${v.family === 'bigbird' ? html`${range('window', 'window', 1, n)}${range('globals', 'global', 0, n)}${range('random', 'random', 0, n)}` : nothing}
    ${v.family === 'strided' ? range('stride', 'stride s', 1, n) : nothing}
  </fieldset>`;
}

function renderWeights(view) {
  const r = view._result;
  const v = r.v;
  const { queries, keys } = r.inputs;
  const causal = causalOf(v);
  const hidden = (allowed) => r.exact.weights.map((row, i) => row.map((_, j) => !allowed(i, j)));
  const causalBlocked = causal ? hidden((i, j) => j <= i) : undefined;
  // A_k of a causal A is not causal (it puts weight on later keys): nothing of it is hidden.
  const familyBlocked = r.pattern ? hidden((i, j) => r.pattern.mask[i][j] && (!causal || j <= i)) : v.family === 'svd' ? undefined : causalBlocked;
  const probabilities = v.family !== 'retention';
  const caption = {
    linear: 'linear attention’s weights φ(qᵢ)·φ(kⱼ) / normaliser',
    favor: `FAVOR+ weights, m = ${v.features}`,
    retention: 'retention’s Q·Kᵀ ⊙ D: decay-weighted scores, not probabilities',
    svd: `Aₖ, the rank-${v.rank} approximation of A`,
    linformer: `Linformer’s implied weights, k = ${v.rank}`,
    bigbird: 'softmax under the BigBird pattern (hatched: hidden)',
    strided: 'softmax under the strided pattern (hatched: hidden)',
  }[v.family];
  const n = r.weights.length;
  return html`<section data-role="weights">
    <h3>Weights, side by side</h3>
    <div class="matrices">
      ${matrixTable({ name: 'exact-weights', caption: `exact softmax weights${causal ? ', causal' : ''} (${shape(n, keys.length)})`, values: r.exact.weights, rowLabels: queries, colLabels: keys, scale: WEIGHT_SCALE, blocked: causalBlocked })}
      ${matrixTable({ name: 'family-weights', caption: `${caption} (${shape(n, keys.length)})`, values: r.weights, rowLabels: queries, colLabels: keys, scale: probabilities && v.family !== 'svd' && v.family !== 'linformer' ? WEIGHT_SCALE : scoreScale([r.weights], 1, probabilities ? 'weights' : 'decayed scores'), blocked: familyBlocked })}
    </div>
  </section>`;
}

function renderErrors(view) {
  const r = view._result;
  const v = r.v;
  const compare = v.family !== 'retention';
  return html`<section data-role="errors">
    <h3>Error per row</h3>
    <div class="scroll-x"><table class="errors">
      <thead><tr><th scope="col">query</th>${compare ? html`<th scope="col">max |Δ weight|</th>` : nothing}${r.distribution ? html`<th scope="col">KL(family ‖ softmax), nats</th>` : nothing}<th scope="col">max |Δ output|</th></tr></thead>
      <tbody>
        ${r.rowErrors.map(
          (e, i) => html`<tr data-row=${i}><th scope="row">${r.inputs.queries[i]}</th>
          ${compare ? html`<td data-value=${String(e.maxAbs)}>${fmtWide(e.maxAbs)}</td>` : nothing}
          ${r.distribution ? html`<td data-kl=${String(e.kl)}>${e.kl === null ? '—' : fmtWide(e.kl)}</td>` : nothing}
          <td data-output=${String(r.outputErrors.rows[i])}>${fmtWide(r.outputErrors.rows[i])}</td></tr>`,
        )}
      </tbody>
    </table></div>
    <p data-role="output-error" data-value=${String(r.outputErrors.frobenius)}>Output error ‖O − O${html`<sub>exact</sub>`}‖ (Frobenius) = ${fmtWide(r.outputErrors.frobenius)}${r.lowRank ? html` (the core’s outputError: ${fmtWide(r.lowRank.outputError)})` : nothing}.</p>
  </section>`;
}

// Each family's rule as its paper writes it (TeX, drawn by KaTeX), in parts that wrap on a narrow
// screen.
const FORMULAS = {
  linear: (v) => [
    `o_i = \\frac{\\phi(q_i)^\\top \\sum_{j${causalOf(v) ? '\\le i' : ''}} \\phi(k_j) v_j^\\top}{\\phi(q_i)^\\top \\sum_{j${causalOf(v) ? '\\le i' : ''}} \\phi(k_j)},`,
    `\\phi(x) = ${v.featureMap === 'elu' ? '\\mathrm{elu}(x) + 1' : '\\max(x, 0)'}`,
  ],
  favor: () => [
    '\\phi(x) = \\tfrac{1}{\\sqrt m}\\exp\\!\\left(Wx - \\tfrac{\\lVert x\\rVert^2}{2}\\right),',
    '\\mathbb{E}[\\phi(q)^\\top\\phi(k)] = \\exp(q^\\top k \\cdot s)',
  ],
  retention: () => ['O = (QK^\\top \\odot D)V,', 'D_{ij} = \\gamma^{\\,i-j}\\ (j \\le i),', 'S_t = \\gamma S_{t-1} + k_t^\\top v_t'],
  svd: () => ['A_k = \\sum_{i \\le k} \\sigma_i u_i v_i^\\top,', '\\lVert A - A_k \\rVert_F = \\sqrt{\\textstyle\\sum_{i>k} \\sigma_i^2}'],
  linformer: () => ['O = \\mathrm{softmax}\\!\\left(Q (EK)^\\top s\\right) (FV),', 'E, F \\in \\mathbb{R}^{k \\times n}'],
  bigbird: () => ['O = \\mathrm{softmax}(QK^\\top s + M)V,', 'M_{ij} = 0 \\text{ in window, global or random}, -\\infty \\text{ else}'],
  strided: () => ['M_{ij} = 0 \\text{ when } |i - j| < s \\text{ or } s \\mid (i - j), -\\infty \\text{ else}'],
};
