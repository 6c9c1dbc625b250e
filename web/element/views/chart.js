// A small SVG line chart for the teaching views: axes with ticks (d3-scale picks them,
// linear or log), one polyline per series with its points marked, and a legend. It draws
// the numbers it is given; it computes none of them.
import { scaleLinear, scaleLog } from 'd3-scale';
import { svg } from 'lit';

import { fmt } from '../format.js';

const WIDTH = 420;
const HEIGHT = 260;
const MARGIN = { top: 12, right: 14, bottom: 42, left: 70 };

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

const tickLabel = (axis, value) => (axis.format ? axis.format(value) : value >= 1e4 ? value.toExponential(0) : fmt(value));

/**
 * chart({ title, x: { label, domain, type?, ticks?, format? }, y: { … the same },
 *         series: [{ id, label, points: [[x, y], …], dashed? }] })
 * Each series is a <g data-series="id">; each point a <circle data-x data-y> with its values.
 */
export function lineChart({ title, x, y, series }) {
  const xs = makeScale(x, [MARGIN.left, WIDTH - MARGIN.right]);
  const ys = makeScale(y, [HEIGHT - MARGIN.bottom, MARGIN.top]);
  const inside = ([px, py]) => Number.isFinite(xs(px)) && Number.isFinite(ys(py));
  return svg`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT + 18 * series.length}" role="img" aria-label=${title}>
    <title>${title}</title>
    <g class="axis">
      <line x1=${MARGIN.left} x2=${WIDTH - MARGIN.right} y1=${HEIGHT - MARGIN.bottom} y2=${HEIGHT - MARGIN.bottom}></line>
      <line x1=${MARGIN.left} x2=${MARGIN.left} y1=${MARGIN.top} y2=${HEIGHT - MARGIN.bottom}></line>
      ${ticks(xs, x).map(
        (t) => svg`<g transform="translate(${xs(t)},${HEIGHT - MARGIN.bottom})"><line y2="5"></line><text y="17" text-anchor="middle">${tickLabel(x, t)}</text></g>`,
      )}
      ${ticks(ys, y).map(
        (t) => svg`<g transform="translate(${MARGIN.left},${ys(t)})"><line x2="-5"></line><text x="-8" dy="0.32em" text-anchor="end">${tickLabel(y, t)}</text></g>`,
      )}
      <text x=${(MARGIN.left + WIDTH - MARGIN.right) / 2} y=${HEIGHT - 6} text-anchor="middle">${x.label}</text>
      <text transform="translate(12,${(MARGIN.top + HEIGHT - MARGIN.bottom) / 2}) rotate(-90)" text-anchor="middle">${y.label}</text>
    </g>
    ${series.map((s, i) => {
      const points = s.points.filter(inside);
      return svg`<g class="series series-${i}" data-series=${s.id}>
        <polyline class=${s.dashed ? 'dashed' : ''} points=${points.map(([px, py]) => `${xs(px)},${ys(py)}`).join(' ')}></polyline>
        ${s.dashed ? '' : points.map(([px, py]) => svg`<circle cx=${xs(px)} cy=${ys(py)} r="3" data-x=${px} data-y=${py}><title>${s.label}: ${fmt(px)} → ${fmt(py)}</title></circle>`)}
        <g transform="translate(${MARGIN.left},${HEIGHT + 4 + 18 * i})">
          <line class=${s.dashed ? 'dashed' : ''} x2="22" y1="6" y2="6"></line><text x="28" y="10">${s.label}</text>
        </g>
      </g>`;
    })}
  </svg>`;
}
