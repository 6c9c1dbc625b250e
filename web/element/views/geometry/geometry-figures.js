// The geometry view's two SVG figures: the plane (keys, values, the values' triangle, the
// output and the query) and the probability simplex (the weights as a point). They map the
// core's numbers to pixels; they compute no attention math.
import { scaleLinear } from 'd3-scale';
import { svg } from 'lit';

import { fmt, sub } from '../../shared/format.js';

/** The plane shows [-LIMIT, LIMIT]² and points stay inside it. */
export const LIMIT = 3;

const SIZE = 320;
const PAD = 22;
const X = scaleLinear()
  .domain([-LIMIT, LIMIT])
  .range([PAD, SIZE - PAD]);
const Y = scaleLinear()
  .domain([-LIMIT, LIMIT])
  .range([SIZE - PAD, PAD]);
const TICKS = [-3, -2, -1, 1, 2, 3];

const pair = ([x, y]) => `(${fmt(x)}, ${fmt(y)})`;
const pixel = ([x, y]) => [X(x), Y(y)];

/** Plane coordinates of a point given in the plane svg's user units (the inverse of pixel). */
export const planePoint = (px, py) => [X.invert(px), Y.invert(py)];

// A draggable point: focusable, moved by a pointer drag or the arrow keys (handlers from the view).
function handle({ control, index, point, label, description, shape, on }) {
  const [px, py] = pixel(point);
  return svg`<g
    class="handle ${control}"
    data-control=${control}
    data-index=${index}
    data-x=${String(point[0])}
    data-y=${String(point[1])}
    transform="translate(${px} ${py})"
    tabindex="0"
    role="slider"
    aria-label=${`${description}: drag it, or use the arrow keys (Shift for bigger steps)`}
    aria-valuemin=${-LIMIT}
    aria-valuemax=${LIMIT}
    aria-valuenow=${point[0]}
    aria-valuetext=${`${label} at ${pair(point)}`}
    @pointerdown=${(e) => on.down(e, control, index)}
    @pointermove=${on.move}
    @pointerup=${on.up}
    @pointercancel=${on.up}
    @keydown=${(e) => on.key(e, control, index)}
  >
    ${shape}
    <text x="9" y="-8">${label}</text>
  </g>`;
}

/**
 * The plane. `state` holds query, keys and values; `result` is the core's lab.attention
 * result for them; `on` the view's pointer and key handlers.
 */
export function planeFigure({ query, keys, values }, result, on) {
  const weights = result.weights[0];
  const output = result.output[0];
  const [ox, oy] = pixel(output);
  const hull = values.map((v) => pixel(v).join(',')).join(' ');
  const [zx, zy] = pixel([0, 0]);
  const arrow = (point, cls) => {
    const [px, py] = pixel(point);
    return svg`<line class=${cls} x1=${zx} y1=${zy} x2=${px} y2=${py}></line>`;
  };
  return svg`<svg
    class="plot geometry-plane"
    data-role="plane"
    viewBox="0 0 ${SIZE} ${SIZE}"
    role="group"
    aria-label=${`The plane. Query q at ${pair(query)}; keys ${keys.map(pair).join(', ')}; values ${values.map(pair).join(', ')}; the output o at ${pair(output)} lies inside the triangle of the values.`}
  >
    <g class="axis" aria-hidden="true">
      <line x1=${PAD} x2=${SIZE - PAD} y1=${zy} y2=${zy}></line>
      <line x1=${zx} x2=${zx} y1=${PAD} y2=${SIZE - PAD}></line>
      ${TICKS.map((t) => svg`<line x1=${X(t)} x2=${X(t)} y1=${zy - 3} y2=${zy + 3}></line><line x1=${zx - 3} x2=${zx + 3} y1=${Y(t)} y2=${Y(t)}></line>`)}
      <!-- The numbers along the plot's bottom and left edges, where no point, label or the
           values' triangle can sit on them (points stay inside ±LIMIT). -->
      ${TICKS.map((t) => svg`<text class="tick" x=${X(t)} y=${SIZE - PAD + 15} text-anchor="middle">${fmt(t)}</text><text class="tick" x=${PAD - 4} y=${Y(t) + 4} text-anchor="end">${fmt(t)}</text>`)}
    </g>
    <polygon class="hull" data-role="hull" points=${hull} aria-hidden="true"></polygon>
    <g aria-hidden="true">
      ${keys.map((k) => arrow(k, 'key-vector'))} ${arrow(query, 'query-vector')}
      ${values.map((v, i) => {
        const [vx, vy] = pixel(v);
        // The pull of each value on the output: thicker for a larger weight.
        return svg`<line class="pull" x1=${ox} y1=${oy} x2=${vx} y2=${vy} stroke-width=${0.5 + 6 * weights[i]}></line>`;
      })}
    </g>
    ${values.map((v, i) =>
      handle({ control: 'value', index: i, point: v, label: `v${sub(i)}`, description: `value v${sub(i)}`, shape: svg`<circle r="7"></circle>`, on }),
    )}
    ${keys.map((k, i) =>
      handle({
        control: 'key',
        index: i,
        point: k,
        label: `k${sub(i)}`,
        description: `key k${sub(i)}`,
        shape: svg`<rect x="-6" y="-6" width="12" height="12"></rect>`,
        on,
      }),
    )}
    <g class="output" data-role="output-point" data-x=${String(output[0])} data-y=${String(output[1])} transform="translate(${ox} ${oy})" aria-hidden="true">
      <path d="M0,-9 L2.6,-2.6 L9,0 L2.6,2.6 L0,9 L-2.6,2.6 L-9,0 L-2.6,-2.6 Z"></path>
      <text x="9" y="14">o</text>
    </g>
    ${handle({ control: 'query', index: 0, point: query, label: 'q', description: 'query q', shape: svg`<circle r="9"></circle><circle class="dot" r="2.5"></circle>`, on })}
  </svg>`;
}

// The simplex: k₁ at the top, k₂ bottom left, k₃ bottom right.
const CORNERS = [
  [150, 26],
  [28, 238],
  [272, 238],
];

/** The drawing position of weights w: w₁·corner₁ + w₂·corner₂ + w₃·corner₃ (barycentric). */
const simplexPixel = (w) => [0, 1].map((axis) => CORNERS.reduce((acc, corner, i) => acc + w[i] * corner[axis], 0));

export function simplexFigure(result) {
  const weights = result.weights[0];
  const [px, py] = simplexPixel(weights);
  const [cx, cy] = simplexPixel([1 / 3, 1 / 3, 1 / 3]);
  const labelAt = [
    [0, -10, 'middle'],
    [-4, 20, 'start'],
    [4, 20, 'end'],
  ];
  return svg`<svg
    class="plot geometry-simplex"
    data-role="simplex"
    viewBox="0 0 300 270"
    role="img"
    aria-label=${`The probability simplex: the weights (${weights.map(fmt).join(', ')}) as a point in the triangle whose corners are all weight on k₁, on k₂ and on k₃.`}
  >
    <polygon class="simplex" points=${CORNERS.map((c) => c.join(',')).join(' ')}></polygon>
    ${CORNERS.map(
      ([x, y], i) => svg`<circle class="corner" data-role="corner" data-index=${i} cx=${x} cy=${y} r="3"></circle>
        <text x=${x + labelAt[i][0]} y=${y + labelAt[i][1]} text-anchor=${labelAt[i][2]}>k${sub(i)} (w${sub(i)} = 1)</text>`,
    )}
    <g class="uniform"><path d="M${cx - 4},${cy - 4} L${cx + 4},${cy + 4} M${cx - 4},${cy + 4} L${cx + 4},${cy - 4}"></path>
      <text x=${cx + 7} y=${cy + 14}>uniform</text></g>
    <circle class="weights-point" data-role="simplex-point" data-weights=${weights.join(',')} cx=${px} cy=${py} r="7"></circle>
    <text x=${px + 10} y=${py - 8}>w</text>
  </svg>`;
}
