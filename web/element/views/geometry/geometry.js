// The geometry view: one 2-D query, three 2-D keys and three 2-D values. The row of weights
// is a point on the probability simplex; the output, Σ wᵢ·vᵢ, is a point inside the triangle
// of the values. Dragging the query (or a key or a value) recomputes everything in the core.
import { html } from 'lit';

import { fmt, sub } from '../../shared/format.js';
import { WEIGHT_SCALE } from '../../shared/colors.js';
import { matrixTable } from '../../shared/matrix-table.js';
import { geometryStyles } from './styles.js';
import { LIMIT, planeFigure, planePoint, simplexFigure } from './geometry-figures.js';
import { defineView, ViewBase } from '../../shared/view-base.js';
import { clamp, isNumberIn, normalizeViewState, round2 } from '../../shared/view-state.js';
import '../../shared/topic-quiz.js';

const inPlane = (v) => Array.isArray(v) && v.length === 2 && v.every(isNumberIn(-LIMIT, LIMIT));
const threePoints = (v) => Array.isArray(v) && v.length === 3 && v.every(inPlane);
const PLANE_POINT = `a point [x, y] with x and y between ${-LIMIT} and ${LIMIT}`;

const FIELDS = {
  query: [[1, 0.5], inPlane, PLANE_POINT],
  keys: [
    [
      [2, 0.5],
      [-1, 1.5],
      [-0.5, -2],
    ],
    threePoints,
    `three points [x, y], each coordinate between ${-LIMIT} and ${LIMIT}`,
  ],
  values: [
    [
      [2, 2],
      [-2, 1],
      [0.5, -2],
    ],
    threePoints,
    `three points [x, y], each coordinate between ${-LIMIT} and ${LIMIT}`,
  ],
  scaled: [true, (v) => typeof v === 'boolean', 'true or false'],
  temperature: [1, isNumberIn(0.25, 4), 'a number from 0.25 to 4'],
};

const FIELD_OF = { query: 'query', key: 'keys', value: 'values' };
const STEP = 0.1; // an arrow key's move; Shift moves five times as far
const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };

// A dragged point stays on the plane, its coordinates at two decimals.
const tidy = (v) => clamp(round2(v), -LIMIT, LIMIT);

const HEADING = 'Geometry: where the weights and the output live';

class GeometryView extends ViewBase {
  static styles = geometryStyles;

  constructor() {
    super();
    this._drag = null; // { control, index } while a pointer drags a point
    this._handlers = {
      down: (e, control, index) => this._startDrag(e, control, index),
      move: (e) => this._dragTo(e),
      up: () => {
        this._drag = null;
      },
      key: (e, control, index) => this._onKey(e, control, index),
    };
  }

  compute(lab, { query, keys, values, scaled, temperature }) {
    return lab.attention({ Q: [query], K: keys, V: values, scale: scaled ? undefined : 1, temperature });
  }

  // ---- moving points ----

  _point(control, index) {
    const field = this.viewState[FIELD_OF[control]];
    return control === 'query' ? field : field[index];
  }

  _moveTo(control, index, [x, y]) {
    const point = [tidy(x), tidy(y)];
    const old = this._point(control, index);
    if (point[0] === old[0] && point[1] === old[1]) return;
    const field = FIELD_OF[control];
    const next = control === 'query' ? point : this.viewState[field].map((p, i) => (i === index ? point : p));
    this.changeView({ [field]: next });
  }

  _startDrag(event, control, index) {
    if (event.button !== 0) return;
    event.preventDefault();
    event.currentTarget.focus();
    event.currentTarget.setPointerCapture?.(event.pointerId);
    this._drag = { control, index };
  }

  _dragTo(event) {
    if (!this._drag) return;
    const plane = this.renderRoot.querySelector('[data-role="plane"]');
    const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(plane.getScreenCTM().inverse());
    this._moveTo(this._drag.control, this._drag.index, planePoint(p.x, p.y));
  }

  _onKey(event, control, index) {
    const direction = ARROWS[event.key];
    if (!direction) return;
    event.preventDefault();
    event.stopPropagation();
    const step = event.shiftKey ? 5 * STEP : STEP;
    const [x, y] = this._point(control, index);
    this._moveTo(control, index, [x + direction[0] * step, y + direction[1] * step]);
  }

  // ---- rendering ----

  render() {
    if (!this._result) return this.placeholder(HEADING, this._error);
    return html`<h2>${HEADING}</h2>
      <p class="lead">
        One query q, three keys k₁, k₂, k₃ and three values v₁, v₂, v₃, all in the plane. Drag the query (the ring),
        or focus it with Tab and use the arrow keys; the keys (squares) and the values (dots) move too. The scores, the
        weights and the output below come from the attention core and follow every move.
      </p>
      ${this._renderControls()}
      ${this.messageLine(this._error && `${this._error} (the last good result is shown)`)}
      <div class="figures">
        <figure class="plot-figure">
          ${planeFigure(this.viewState, this._result, this._handlers)}
          <figcaption>Keys decide the weights; values decide where the output lands.</figcaption>
        </figure>
        <figure class="plot-figure">
          ${simplexFigure(this._result)}
          <figcaption>The row of weights as a point: the nearer a corner, the larger that key's weight.</figcaption>
        </figure>
      </div>
      ${this._renderNumbers()} ${this._renderExplanation()}
      <attn-topic-quiz topic="geometry"></attn-topic-quiz>`;
  }

  _renderControls() {
    const { scaled, temperature } = this.viewState;
    return html`<div class="controls">
      <label
        ><input type="checkbox" data-control="scaled" .checked=${scaled} @change=${(e) => this.changeView({ scaled: e.target.checked })} />
        divide the scores by √d<sub>k</sub> = √2</label
      >
      <label
        >temperature
        <input
          type="range"
          data-control="temperature"
          min="0.25"
          max="4"
          step="0.25"
          .value=${String(temperature)}
          aria-valuetext=${fmt(temperature)}
          @input=${(e) => this.changeView({ temperature: Number(e.target.value) })}
        />
        <output>${fmt(temperature)}</output></label
      >
      <button data-control="reset" @click=${() => this.changeView(normalizeViewState('geometry', FIELDS))}>Reset</button>
    </div>`;
  }

  _renderNumbers() {
    const r = this._result;
    const keyLabels = [0, 1, 2].map((i) => `k${sub(i)}`);
    const terms = r.weights[0].map((w, i) => `${fmt(w)}·v${sub(i)}`).join(' + ');
    return html`<div class="matrices" data-role="numbers">
        ${matrixTable({ name: 'scores', caption: 'scores q·kᵢ (1×3)', values: r.scores, rowLabels: ['q'], colLabels: keyLabels })}
        ${matrixTable({ name: 'scaled', caption: `scaled scores, × ${fmt(r.factor)} (1×3)`, values: r.scaled, rowLabels: ['q'], colLabels: keyLabels })}
        ${matrixTable({ name: 'weights', caption: 'weights = softmax (1×3)', values: r.weights, rowLabels: ['q'], colLabels: keyLabels, scale: WEIGHT_SCALE })}
        ${matrixTable({ name: 'output', caption: 'output o (1×2)', values: r.output, rowLabels: ['o'], colLabels: ['x', 'y'] })}
      </div>
      <p class="combination" data-role="combination">o = ${terms} = (${r.output[0].map(fmt).join(', ')})</p>`;
  }

  _renderExplanation() {
    return html`<section class="lead" data-role="explanation">
      <h3>Why the output never leaves the triangle</h3>
      <p>
        Softmax turns the scores into weights that are never negative and always add up to 1. The output is
        w₁·v₁ + w₂·v₂ + w₃·v₃, so it is a weighted average of the values, and an average never lands outside what it
        averages: measured along any direction you like, the output is never further out than the furthest value. A
        point that passes that test in every direction lies inside the triangle whose corners are the values (their
        convex hull). A negative weight, or weights adding up to more than 1, could throw it outside, and softmax never
        produces either. When one weight is close to 1 the output
        sits near that value's corner; equal weights put it at the triangle's centre.
      </p>
      <p>
        The right-hand figure is the same idea before the values come in: every possible row of three weights is a point of
        a triangle, the probability simplex. Its corners are "all the weight on one key". Attention maps that triangle onto
        the values' triangle, corner kᵢ to value vᵢ, so the two points move together.
      </p>
      <h3>Why moving the query towards a key raises its weight</h3>
      <p>
        A score is a dot product, q·kᵢ = |q|·|kᵢ|·cos θ: it grows when q points the same way as kᵢ and when either gets
        longer. Only the differences between the scores matter to softmax, so turning q towards one key raises that key's
        score relative to the others and its weight rises, pulling the output towards its value. Lengthen q (drag it away
        from the origin) and the differences grow, so the weights get sharper; shorten it and they even out. The
        temperature does the same from the outside: above 1 it flattens the weights, below 1 it sharpens them.
      </p>
    </section>`;
  }
}

export const geometryView = defineView({ id: 'geometry', title: 'Geometry', element: GeometryView, fields: FIELDS });
