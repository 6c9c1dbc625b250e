// A small SVG bar chart for weights in [0, 1]: one group of bars per entry, one bar per
// series (e.g. "scaled" and "unscaled"), a shared 0…max axis and a legend. It draws the
// numbers it is given; it computes none of them.
import { svg } from 'lit';

import { fmt } from '../format.js';

const WIDTH = 420;
const HEIGHT = 200;
const MARGIN = { top: 10, right: 10, bottom: 28, left: 40 };

/**
 * barChart({ title, labels: string[], series: [{ id, label, values: number[] }], max = 1 })
 * Each series is a <g data-series="id">; each bar a <rect data-index data-value> carrying its
 * value at full precision. Values that are not finite draw no bar (the caller labels them).
 */
export function barChart({ title, labels, series, max = 1 }) {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const group = plotWidth / Math.max(1, labels.length);
  const bar = (group * 0.8) / series.length;
  const y = (v) => MARGIN.top + plotHeight * (1 - Math.min(1, Math.max(0, v / max)));
  const ticks = [0, max / 2, max];
  return svg`<svg class="chart bars" viewBox="0 0 ${WIDTH} ${HEIGHT + 18 * series.length}" role="img" aria-label=${title}>
    <title>${title}</title>
    <g class="axis">
      <line x1=${MARGIN.left} x2=${WIDTH - MARGIN.right} y1=${y(0)} y2=${y(0)}></line>
      <line x1=${MARGIN.left} x2=${MARGIN.left} y1=${MARGIN.top} y2=${y(0)}></line>
      ${ticks.map((t) => svg`<g transform="translate(${MARGIN.left},${y(t)})"><line x2="-5"></line><text x="-8" dy="0.32em" text-anchor="end">${fmt(t)}</text></g>`)}
      ${labels.map((label, i) => svg`<text x=${MARGIN.left + group * (i + 0.5)} y=${y(0) + 16} text-anchor="middle">${label}</text>`)}
    </g>
    ${series.map(
      (s, k) => svg`<g class="series series-${k}" data-series=${s.id}>
        ${s.values.map((v, i) =>
          Number.isFinite(v)
            ? svg`<rect x=${MARGIN.left + group * (i + 0.1) + bar * k} y=${y(v)} width=${bar} height=${y(0) - y(v)} data-index=${i} data-value=${String(v)}><title>${s.label}, ${labels[i]}: ${fmt(v)}</title></rect>`
            : '',
        )}
        <g transform="translate(${MARGIN.left},${HEIGHT + 4 + 18 * k})">
          <rect class="swatch" width="14" height="10" y="1"></rect><text x="20" y="10">${s.label}</text>
        </g>
      </g>`,
    )}
  </svg>`;
}
