// A small SVG line chart for the teaching views: axes with ticks (d3-scale picks them,
// linear or log), one polyline per series with its points marked, and a legend. It draws
// the numbers it is given; it computes none of them.
import { scaleLinear, scaleLog } from 'd3-scale';
import { svg } from 'lit';

import { fmt } from './format.js';

// Shared with bars.js: every chart is as wide, with one legend row per series under the plot.
export const WIDTH = 420;
const LEGEND_ROW = 18;
const HEIGHT = 260;
const MARGIN = { top: 12, right: 14, bottom: 42, left: 70 };

/** The viewBox of a chart whose plot is `height` tall, with `rows` legend rows under it. */
export const viewBox = (height, rows) => `0 0 ${WIDTH} ${height + LEGEND_ROW * rows}`;

/** The x and y axis lines of a plot `height` tall inside `margin`. */
export const axisLines = (margin, height) =>
  svg`<line x1=${margin.left} x2=${WIDTH - margin.right} y1=${height - margin.bottom} y2=${height - margin.bottom}></line>
    <line x1=${margin.left} x2=${margin.left} y1=${margin.top} y2=${height - margin.bottom}></line>`;

/** The y axis's ticks at x = `left`, for `values` placed by `scale`, labelled by `label`. */
export const yTicks = (scale, values, left, label = fmt) =>
  values.map((t) => svg`<g transform="translate(${left},${scale(t)})"><line x2="-5"></line><text x="-8" dy="0.32em" text-anchor="end">${label(t)}</text></g>`);

/** Legend row `k` under a plot `height` tall: the series' mark (`markWidth` wide) and its label. */
export const legendRow = (k, left, height, mark, markWidth, label) =>
  svg`<g transform="translate(${left},${height + 4 + LEGEND_ROW * k})">${mark}<text x=${markWidth + 6} y="10">${label}</text></g>`;

function makeScale(axis, range) {
  const scale = (axis.type === 'log' ? scaleLog() : scaleLinear()).domain(axis.domain).range(range);
  return axis.type === 'log' ? scale : scale.nice();
}

// Given ticks win (those inside the domain); else log axes spanning many decades get one
// tick per decade, and the rest d3's own ticks.
function ticks(scale, axis) {
  if (axis.ticks) {
    const [lo, hi] = scale.domain();
    return axis.ticks.filter((t) => t >= lo && t <= hi);
  }
  if (axis.type !== 'log') return scale.ticks(5);
  const [lo, hi] = scale.domain();
  const decades = Math.log10(hi / lo);
  if (decades < 2) return scale.ticks(4);
  const out = [];
  for (let t = 10 ** Math.ceil(Math.log10(lo)); t <= hi; t *= 10) out.push(t);
  return out;
}

// An axis with given ticks reaches out to the nearest tick at or beyond each end of its data
// (where there is one), so its ends carry labels: no unlabelled stretch above the top tick.
function toTicks(axis) {
  if (!axis.ticks) return axis;
  const [lo, hi] = axis.domain;
  const below = axis.ticks.filter((t) => t <= lo);
  const above = axis.ticks.filter((t) => t >= hi);
  return { ...axis, domain: [below.length ? Math.max(...below) : lo, above.length ? Math.min(...above) : hi] };
}

const tickLabel = (axis, value) => (axis.format ? axis.format(value) : value >= 1e4 ? value.toExponential(0) : fmt(value));

// A second y axis at the right: its ticks and its label, turned to read upwards.
const rightAxis = (scale, axis, right) =>
  svg`<line x1=${right} x2=${right} y1=${MARGIN.top} y2=${HEIGHT - MARGIN.bottom}></line>
    ${ticks(scale, axis).map(
      (t) => svg`<g transform="translate(${right},${scale(t)})"><line x2="5"></line><text x="8" dy="0.32em">${tickLabel(axis, t)}</text></g>`,
    )}
    <text transform="translate(${WIDTH - 8},${(MARGIN.top + HEIGHT - MARGIN.bottom) / 2}) rotate(-90)" text-anchor="middle">${axis.label}</text>`;

/**
 * chart({ title, x: { label, domain, type?, ticks?, format? }, y: { … the same }, y2?: { … the same },
 *         series: [{ id, label, points: [[x, y], …], dashed?, axis?: 'y2' }] })
 * Each series is a <g data-series="id">; each point a <circle data-x data-y> with its values.
 * With y2, a second y axis at the right, for the series whose axis is 'y2'.
 */
export function lineChart({ title, x, y, y2, series }) {
  [x, y] = [toTicks(x), toTicks(y)];
  const margin = y2 ? { ...MARGIN, right: 46 } : MARGIN; // room for the right axis's ticks and label
  const right = WIDTH - margin.right;
  const xs = makeScale(x, [MARGIN.left, right]);
  const ys = makeScale(y, [HEIGHT - MARGIN.bottom, MARGIN.top]);
  const ys2 = y2 && makeScale(toTicks(y2), [HEIGHT - MARGIN.bottom, MARGIN.top]);
  const yOf = (s) => (s.axis === 'y2' ? ys2 : ys);
  return svg`<svg class="chart" viewBox=${viewBox(HEIGHT, series.length)} role="img" aria-label=${title}>
    <title>${title}</title>
    <g class="axis">
      ${axisLines(margin, HEIGHT)}
      ${ticks(xs, x).map(
        (t) =>
          svg`<g transform="translate(${xs(t)},${HEIGHT - MARGIN.bottom})"><line y2="5"></line><text y="17" text-anchor="middle">${tickLabel(x, t)}</text></g>`,
      )}
      ${yTicks(ys, ticks(ys, y), MARGIN.left, (t) => tickLabel(y, t))}
      <text x=${(MARGIN.left + right) / 2} y=${HEIGHT - 6} text-anchor="middle">${x.label}</text>
      <text transform="translate(12,${(MARGIN.top + HEIGHT - MARGIN.bottom) / 2}) rotate(-90)" text-anchor="middle">${y.label}</text>
      ${y2 ? rightAxis(ys2, toTicks(y2), right) : ''}
    </g>
    ${series.map((s, i) => {
      const ys = yOf(s);
      const points = s.points.filter(([px, py]) => Number.isFinite(xs(px)) && Number.isFinite(ys(py)));
      return svg`<g class="series series-${i}" data-series=${s.id}>
        <polyline class=${s.dashed ? 'dashed' : ''} points=${points.map(([px, py]) => `${xs(px)},${ys(py)}`).join(' ')}></polyline>
        ${s.dashed ? '' : points.map(([px, py]) => svg`<circle cx=${xs(px)} cy=${ys(py)} r="3" data-x=${px} data-y=${py}><title>${s.label}: ${fmt(px)} → ${fmt(py)}</title></circle>`)}
        ${legendRow(i, MARGIN.left, HEIGHT, svg`<line class=${s.dashed ? 'dashed' : ''} x2="22" y1="6" y2="6"></line>`, 22, s.label)}
      </g>`;
    })}
  </svg>`;
}
