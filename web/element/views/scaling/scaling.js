// "Why 1/√d_k": random queries and keys with unit-variance entries, their raw dot products
// spreading like √d_k, and softmax collapsing to one-hot without the scaling but staying soft
// with it. The statistics are the core's (lab.scalingStudy); this file draws them.
import { html } from 'lit';

import { fmt, sub } from '../../shared/format.js';
import { matrixTable } from '../../shared/matrix-table.js';
import { scalingStyles } from './styles.js';
import { barChart } from '../../shared/bars.js';
import { lineChart } from '../../shared/chart.js';
import '../../shared/topic-quiz.js';
import { LIMITS } from '../../../lib/core-lists.js'; // the core's limits, generated from it
import { defineView, ViewBase } from '../../shared/view-base.js';
import { nextSeed, SEED_FIELD, wholeField } from '../../shared/view-state.js';

const MAX_DK = LIMITS.scalingMaxDk;
const POWERS = Array.from({ length: Math.floor(Math.log2(MAX_DK)) + 1 }, (_, i) => 2 ** i); // 1 … MAX_DK

const FIELDS = {
  headWidth: wholeField(64, 1, MAX_DK),
  seed: SEED_FIELD,
};

const D_K_AXIS = { label: 'dₖ (log scale)', domain: [1, MAX_DK], type: 'log', format: (v) => String(v) };
const series = (id, label, points, key, extra = {}) => ({ id, label, points: points.map((p) => [p.dk, p[key]]), ...extra });

const HEADING = html`Why divide by √d<sub>k</sub>`;

class ScalingView extends ViewBase {
  static styles = scalingStyles;

  constructor() {
    super();
    this._studies = new Map(); // seed → the study over POWERS (the same numbers every time)
    this.keeps = 'the last good study';
  }

  compute(lab, { headWidth: dk, seed }) {
    if (!this._studies.has(seed)) {
      this._studies.clear(); // one seed at a time is all the view shows
      this._studies.set(seed, lab.scalingStudy({ dims: POWERS, seed }));
    }
    const study = this._studies.get(seed);
    // A d_k's draws depend only on d_k and the seed, so asking for it alone gives the same numbers.
    const point = study.points.find((p) => p.dk === dk) ?? lab.scalingStudy({ dims: [dk], seed }).points[0];
    return { study, point };
  }

  render() {
    if (!this._result) return this.placeholder(HEADING, this._error);
    const { study, point } = this._result;
    const message = this.draftProblem ?? this._error;
    return html`<h2>${HEADING}</h2>
      <p class="lead">
        A score is a dot product q·k = q<sub>1</sub>k<sub>1</sub> + … + q<sub>d</sub>k<sub>d</sub>, a sum of d<sub>k</sub>
        products. Here every entry of q and k is drawn at random with mean 0 and variance 1, the way trained vectors
        roughly look. Each product then has mean 0 and variance 1, and variances of independent terms add up: the sum has
        variance d<sub>k</sub>, so its typical size (standard deviation) is √d<sub>k</sub>. At d<sub>k</sub> = 512 scores
        of ±20 or more are normal.
      </p>
      ${this._renderControls()}
      ${this.messageLine(message, { role: 'message' })}
      ${this._renderSummary(study, point)}
      <div class="figures">
        <figure data-role="spread-chart">
          ${lineChart({
            title: 'Spread of the raw scores q·k against dₖ, with the √dₖ curve',
            x: D_K_AXIS,
            y: { label: 'standard deviation of q·k', domain: [0, Math.max(...study.points.map((p) => Math.max(p.scoreStd, p.sqrtDk))) * 1.05] },
            series: [
              series('score-std', 'measured spread of q·k', study.points, 'scoreStd'),
              series('sqrt-dk', '√dₖ', study.points, 'sqrtDk', { dashed: true }),
            ],
          })}
        </figure>
        <figure data-role="max-weight-chart">
          ${lineChart({
            title: 'Average largest softmax weight against dₖ, scaled and unscaled',
            x: D_K_AXIS,
            y: { label: 'largest weight in a row', domain: [0, 1] },
            series: [
              series('max-weight-scaled', 'softmax(q·k / √dₖ)', study.points, 'maxWeightScaled'),
              series('max-weight-unscaled', 'softmax(q·k), unscaled', study.points, 'maxWeightUnscaled'),
            ],
          })}
        </figure>
        <figure data-role="entropy-chart">
          ${lineChart({
            title: 'Average entropy of the softmax rows against dₖ, scaled and unscaled, with its maximum ln(keys)',
            x: D_K_AXIS,
            y: { label: 'entropy (nats)', domain: [0, study.maxEntropy * 1.05] },
            series: [
              series('entropy-scaled', 'softmax(q·k / √dₖ)', study.points, 'entropyScaled'),
              series('entropy-unscaled', 'softmax(q·k), unscaled', study.points, 'entropyUnscaled'),
              {
                id: 'max-entropy',
                label: `ln ${study.keys}: all weights equal`,
                points: [
                  [1, study.maxEntropy],
                  [MAX_DK, study.maxEntropy],
                ],
                dashed: true,
              },
            ],
          })}
        </figure>
        <figure data-role="example-chart">
          ${barChart({
            title: `One query's weights over ${study.keys} keys at dₖ = ${point.dk}, scaled and unscaled`,
            labels: point.exampleScores.map((_, i) => `k${sub(i)}`),
            series: [
              { id: 'scaled', label: 'softmax(q·k / √dₖ)', values: point.exampleWeightsScaled },
              { id: 'unscaled', label: 'softmax(q·k), unscaled', values: point.exampleWeightsUnscaled },
            ],
          })}
        </figure>
      </div>
      ${matrixTable({
        // One row per key: 16 keys as columns were wider than a 1280 px screen.
        name: 'example',
        caption: `One query against ${study.keys} keys at dₖ = ${point.dk}`,
        values: point.exampleScores.map((score, i) => [score, point.exampleWeightsScaled[i], point.exampleWeightsUnscaled[i]]),
        rowLabels: point.exampleScores.map((_, i) => `k${sub(i)}`),
        colLabels: ['q·k', 'weight, ÷√dₖ', 'weight, unscaled'],
      })}
      <p class="lead">
        Softmax only cares about the gaps between scores: a gap of g makes one weight e<sup>g</sup> times another. With
        a spread of 20, the best key usually beats the runner-up by several units, e<sup>10</sup> is about 22,000, and
        the row is practically one-hot: the query looks at a single key, and in training the gradients through the other
        weights all but vanish. Dividing every score by √d<sub>k</sub> divides the spread by √d<sub>k</sub>, which brings it
        back to about 1 whatever d<sub>k</sub> is. The weights then stay soft (the entropy stays near the same level) at
        every width, so a wider model does not change how sharply attention chooses.
      </p>
      <attn-topic-quiz topic="scaling"></attn-topic-quiz>`;
  }

  _renderControls() {
    const { headWidth: dk, seed } = this.viewState;
    const power = Math.min(POWERS.length - 1, Math.floor(Math.log2(dk)));
    return html`<div class="controls">
      <label>d<sub>k</sub> (powers of two)
        <input data-control="dk-power" type="range" min="0" max=${POWERS.length - 1} step="1" .value=${String(power)}
          aria-valuetext=${`dₖ = ${POWERS[power]}`} @input=${(e) => this.changeView({ headWidth: POWERS[Number(e.target.value)] })} />
      </label>
      <label>d<sub>k</sub>
        <input data-control="headWidth" type="number" min="1" max=${MAX_DK} step="1" .value=${this.fieldText('headWidth')}
          aria-invalid=${this._drafts.headWidth ? 'true' : 'false'} @change=${(e) => this.typeWhole('headWidth', e.target.value, [1, MAX_DK], 'dₖ')} />
      </label>
      ${this.seedInput()}
      <button data-action="new-seed" @click=${() => this.changeView({ seed: nextSeed(seed) })}>New random draw</button>
      ${this._good ? html`<span class="shapes">${this._good.study.samples} queries × ${this._good.study.keys} keys per d<sub>k</sub></span>` : ''}
    </div>`;
  }

  _renderSummary(study, p) {
    return html`<dl class="summary" data-role="summary" data-dk=${p.dk} data-score-std=${String(p.scoreStd)} data-sqrt-dk=${String(p.sqrtDk)}
      data-max-weight-scaled=${String(p.maxWeightScaled)} data-max-weight-unscaled=${String(p.maxWeightUnscaled)}
      data-entropy-scaled=${String(p.entropyScaled)} data-entropy-unscaled=${String(p.entropyUnscaled)} data-max-entropy=${String(study.maxEntropy)}>
      <dt>Spread of q·k at d<sub>k</sub> = ${p.dk}</dt>
      <dd>${fmt(p.scoreStd)} (√d<sub>k</sub> = ${fmt(p.sqrtDk)})</dd>
      <dt>Largest weight, on average</dt>
      <dd>${fmt(p.maxWeightScaled)} scaled, ${fmt(p.maxWeightUnscaled)} unscaled</dd>
      <dt>Entropy, on average</dt>
      <dd>${fmt(p.entropyScaled)} scaled, ${fmt(p.entropyUnscaled)} unscaled (at most ln ${study.keys} = ${fmt(study.maxEntropy)} nats)</dd>
    </dl>`;
  }
}

export const scalingView = defineView({ id: 'scaling', title: 'Why 1/√dₖ', element: ScalingView, fields: FIELDS, renamed: { dk: 'headWidth' } });
