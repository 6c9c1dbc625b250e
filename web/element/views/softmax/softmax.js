// "Softmax up close": one row of scores taken through softmax stage by stage (divide by the
// temperature, subtract the max, exponentiate, divide by the sum), and beside it the same
// row without subtracting the max, where float32 overflows to Infinity and NaN. Every number
// is the core's (lab.softmaxBreakdown); this file only lays them out.
import { html, nothing } from 'lit';

import { parseCell } from '../../shared/editing.js';
import { fmt, fmtWide, sub } from '../../shared/format.js';
import { formula } from '../../shared/formula.js';
import { matrixTable } from '../../shared/matrix-table.js';
import { softmaxStyles } from './styles.js';
import { barChart } from '../../shared/bars.js';
import '../../shared/topic-quiz.js';
import { defineView, ViewBase } from '../../shared/view-base.js';
import { clamp, isNumberIn, isNumberList, round2 } from '../../shared/view-state.js';

const DEFAULT_SCORES = [2, 1, 0.1];
const LARGE_SCORES = [100, 99, 98];
const MAX_SCORES = 12;
const MAX_ABS_SCORE = 1e6; // far from float32's limits even at the lowest temperature
const [MIN_T, MAX_T] = [0.1, 10];

const FIELDS = {
  scores: [
    DEFAULT_SCORES,
    (v) => isNumberList(1, MAX_SCORES)(v) && v.every((x) => Math.abs(x) <= MAX_ABS_SCORE),
    `a list of 1 to ${MAX_SCORES} numbers between −1000000 and 1000000`,
  ],
  temperature: [1, isNumberIn(MIN_T, MAX_T), `a number from ${MIN_T} to ${MAX_T}`],
};

// The slider moves log10(T) (−1…1) so 0.1…1 and 1…10 get the same room; T keeps two decimals.
const sliderOf = (t) => Math.log10(t);
const temperatureOf = (x) => clamp(round2(10 ** x), MIN_T, MAX_T);

/** How a number reads here: Infinity and NaN spelled out (they are the point), tiny and huge values as powers of ten. */
const readable = (v) => (Number.isFinite(v) ? fmtWide(v) : String(v));

// One row of a stage table: its values as cells carrying data-stage/data-index/data-value.
const stageCells = (stage, values) =>
  values.map((v, i) => html`<td data-stage=${stage} data-index=${i} data-value=${String(v)} class=${Number.isFinite(v) ? '' : 'wrong'}>${readable(v)}</td>`);

// [stage id, heading, TeX of what the row holds, the row's single number (m or Σ) if any]
const STAGES = [
  ['scaled', '1. Divide by the temperature', 'z_i = s_i / T'],
  ['shifted', '2. Subtract the max', 'z_i - m,\\quad m = \\max_j z_j', 'max'],
  ['exponentials', '3. Exponentiate', 'e^{z_i - m}'],
  ['weights', '4. Divide by the sum', 'w_i = e^{z_i - m} / \\Sigma,\\quad \\Sigma = \\textstyle\\sum_j e^{z_j - m}', 'sum'],
];
const WITHOUT_MAX_STAGES = [
  ['withoutMax.exponentials', 'exp without the max', 'e^{z_i}'],
  ['withoutMax.weights', 'divide by their sum', 'e^{z_i} / \\textstyle\\sum_j e^{z_j}', 'withoutMax.sum'],
];
const SINGLE_LABEL = { max: 'm', sum: 'Σ', 'withoutMax.sum': 'Σ' };
// A stage's values in the breakdown: 'weights' or 'withoutMax.weights'.
const at = (result, path) => path.split('.').reduce((value, key) => value[key], result);

const HEADING = 'Softmax up close';

class SoftmaxView extends ViewBase {
  static styles = softmaxStyles;

  static properties = { ...ViewBase.properties, _invalid: { state: true } };

  constructor() {
    super();
    this._invalid = new Map(); // "0,i" → { text, message } for score cells that are not numbers
    this.keeps = 'the last good row';
  }

  compute(lab, { scores, temperature }) {
    return { scores, result: lab.softmaxBreakdown({ scores, temperature }) };
  }

  willUpdate(changed) {
    super.willUpdate(changed);
    if (!this.viewState) return;
    const { scores } = this.viewState;
    // Cells past the end of a shorter row have nothing left to fix.
    const stale = [...this._invalid.keys()].filter((key) => Number(key.split(',')[1]) >= scores.length);
    if (stale.length) this._invalid = new Map([...this._invalid].filter(([key]) => !stale.includes(key)));
  }

  _editScore(index, text) {
    const invalid = new Map(this._invalid);
    const value = parseCell(text);
    const problem = value === null ? `"${text}" is not a number` : Math.abs(value) > MAX_ABS_SCORE ? 'keep scores within ±1000000' : null;
    if (problem) {
      invalid.set(`0,${index}`, { text, message: problem });
      this._invalid = invalid;
      return;
    }
    invalid.delete(`0,${index}`);
    this._invalid = invalid;
    this.changeView({ scores: this.viewState.scores.map((s, i) => (i === index ? value : s)) });
  }

  _setScores(scores, extra = {}) {
    this._invalid = new Map();
    this.changeView({ scores, ...extra });
  }

  render() {
    if (!this._result) return this.placeholder(HEADING, this._error);
    const { scores, result } = this._result;
    const labels = scores.map((_, i) => `s${sub(i)}`);
    const message = this._invalid.size
      ? `Score ${[...this._invalid.keys()].map((key) => Number(key.split(',')[1]) + 1).join(', ')}: ${[...this._invalid.values()][0].message}; the last good row stays.`
      : this._error;
    return html`<h2>${HEADING}</h2>
      <p class="lead">
        Softmax turns a row of scores into weights that are positive and add up to 1. It does it in four small steps, shown
        below with the numbers for the row you type. The temperature T divides the scores first: above 1 it evens the
        weights out, below 1 it sharpens them towards the largest score.
      </p>
      ${this._renderControls()}
      ${this.messageLine(message, { role: 'message' })}
      <div class="formula" data-role="formula"
        ${formula('\\operatorname{softmax}(s)_i = \\frac{e^{z_i - m}}{\\sum_j e^{z_j - m}},\\qquad z_i = \\frac{s_i}{T},\\quad m = \\max_j z_j')}></div>
      <div class="figures">
        <section data-role="stable" aria-label="The stable softmax">
          <h3>With the max subtracted (the stable way)</h3>
          ${this._renderStages('stages', 'The four steps for this row', STAGES, result, labels)}
          <figure data-role="weights-chart">
            ${barChart({
              title: `Softmax weights of the row at temperature ${fmt(result.temperature)}`,
              labels,
              series: [{ id: 'weights', label: 'weights (max subtracted)', values: result.weights }],
            })}
          </figure>
        </section>
        ${this._renderNaive(result, labels)}
      </div>
      <p class="lead">
        Why subtracting the max is allowed: every term e<sup>z<sub>i</sub> − m</sup> is e<sup>z<sub>i</sub></sup> times the
        same factor e<sup>−m</sup>, and that factor appears in the sum too, so it cancels in the division. The weights do
        not change; only the sizes of the numbers along the way do. After the shift the largest exponent is 0, so every
        term is at most 1 and the sum is at least 1: nothing can overflow, and the sum can never be 0.
      </p>
      <attn-topic-quiz topic="softmax"></attn-topic-quiz>`;
  }

  // The editor shows the row in the view state, the learner's; the results below show the
  // last row the core accepted.
  _renderControls() {
    const { scores, temperature: t } = this.viewState;
    return html`<div class="controls">
        ${matrixTable({
          name: 'scores',
          caption: `Scores s (1×${scores.length}): type any numbers`,
          values: [scores],
          rowLabels: ['s'],
          colLabels: scores.map((_, i) => `s${sub(i)}`),
          edit: { invalid: this._invalid, label: 'Score', onInput: (_, c, text) => this._editScore(c, text) },
        })}
        <div class="resize">
          <button data-action="add-score" ?disabled=${scores.length >= MAX_SCORES} aria-label="Add a score"
            @click=${() => this._setScores([...scores, 0])}>+ score</button>
          <button data-action="remove-score" ?disabled=${scores.length <= 1} aria-label="Remove the last score"
            @click=${() => this._setScores(scores.slice(0, -1))}>− score</button>
        </div>
      </div>
      <div class="controls">
        <label>Temperature T
          <input data-control="temperature" type="range" min="-1" max="1" step="0.05"
            .value=${String(sliderOf(t))} aria-valuetext=${`T = ${fmt(t)}`}
            @input=${(e) => this.changeView({ temperature: temperatureOf(Number(e.target.value)) })} />
          <output data-role="temperature" data-value=${String(t)}>${fmt(t)}</output>
        </label>
        <button data-action="large-scores" @click=${() => this._setScores(LARGE_SCORES, { temperature: 1 })}>
          Large scores (100, 99, 98)
        </button>
        <button data-action="reset" @click=${() => this._setScores(DEFAULT_SCORES, { temperature: 1 })}>Reset</button>
      </div>`;
  }

  _renderStages(role, caption, stages, result, labels) {
    return html`<figure class="matrix">
      <table data-role=${role}>
        <caption>${caption}</caption>
        <thead>
          <tr>
            <th scope="col">step</th>
            ${labels.map((label) => html`<th scope="col">${label}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${stages.map(
            ([stage, heading, tex, single]) => html`<tr data-role="stage" data-stage=${stage}>
              <th scope="row">
                ${heading}
                <div class="formula" ${formula(tex)}></div>
                ${
                  single
                    ? html`<span data-role=${single} data-value=${String(at(result, single))} class=${Number.isFinite(at(result, single)) ? '' : 'wrong'}
                      >${SINGLE_LABEL[single]} = ${readable(at(result, single))}</span
                    >`
                    : nothing
                }
              </th>
              ${stageCells(stage, at(result, stage))}
            </tr>`,
          )}
        </tbody>
      </table>
    </figure>`;
  }

  _renderNaive(result, labels) {
    const verdict = result.withoutMax.overflowed
      ? html`<p class="wrong" data-role="naive-verdict">
          Overflow.
          ${
            result.withoutMax.termOverflowed
              ? html`e<sup>z</sup> is larger than the largest float32 (about 3.4 × 10<sup>38</sup>) once z passes about 88.72,
                so it becomes Infinity, and so does the sum.`
              : html`Each e<sup>z</sup> still fits in float32, but their sum passes the largest float32 (about 3.4 ×
                10<sup>38</sup>) and becomes Infinity.`
          }
          Infinity ÷ Infinity is NaN and a finite number ÷ Infinity is 0: these "weights" are useless.
        </p>`
      : result.withoutMax.underflowed
        ? html`<p class="wrong" data-role="naive-verdict">
            Underflow. Every e<sup>z</sup> is smaller than the smallest float32 and rounds to 0, so each weight is 0 ÷ 0 =
            NaN.
          </p>`
        : html`<p data-role="naive-verdict">
            These scores are small enough: without the max the weights come out the same, up to rounding. Press "Large
            scores" to see it break.
          </p>`;
    return html`<section data-role="naive" data-overflowed=${String(result.withoutMax.overflowed)}
      data-underflowed=${String(result.withoutMax.underflowed)} aria-label="What goes wrong without subtracting the max">
      <h3>What goes wrong without subtracting the max</h3>
      ${this._renderStages('naive-stages', 'The same row, exponentiated directly (real float32 results)', WITHOUT_MAX_STAGES, result, labels)}
      ${verdict}
    </section>`;
  }
}

export const softmaxView = defineView({ id: 'softmax', title: 'Softmax up close', element: SoftmaxView, fields: FIELDS });
