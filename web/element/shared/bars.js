// A small SVG bar chart for weights in [0, 1]: one group of bars per entry, one bar per
// series (e.g. "scaled" and "unscaled"), a shared 0…max axis and a legend. It draws the
// numbers it is given; it computes none of them.
import { scaleLinear } from 'd3-scale';
import { svg } from 'lit';

import { fmt } from './format.js';
import { axisLines, legendRow, viewBox, WIDTH, yTicks } from './chart.js';

const HEIGHT = 200;
const MARGIN = { top: 10, right: 10, bottom: 28, left: 40 };

/**
 * barChart({ title, labels: string[], series: [{ id, label, values: number[] }], max = 1 })
 * Each series is a <g data-series="id">; each bar a <rect data-index data-value> carrying its
 * value at full precision. Values that are not finite draw no bar (the caller labels them).
 */
export function barChart({ title, labels, series, max = 1 }) {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const group = plotWidth / Math.max(1, labels.length);
  const bar = (group * 0.8) / series.length;
  const y = scaleLinear()
    .domain([0, max])
    .range([HEIGHT - MARGIN.bottom, MARGIN.top])
    .clamp(true);
  return svg`<svg class="chart bars" viewBox=${viewBox(HEIGHT, series.length)} role="img" aria-label=${title}>
    <title>${title}</title>
    <g class="axis">
      ${axisLines(MARGIN, HEIGHT)}
      ${yTicks(y, [0, max / 2, max], MARGIN.left)}
      ${labels.map((label, i) => svg`<text x=${MARGIN.left + group * (i + 0.5)} y=${y(0) + 16} text-anchor="middle">${label}</text>`)}
    </g>
    ${series.map(
      (s, k) => svg`<g class="series series-${k}" data-series=${s.id}>
        ${s.values.map((v, i) =>
          Number.isFinite(v)
            ? svg`<rect x=${MARGIN.left + group * (i + 0.1) + bar * k} y=${y(v)} width=${bar} height=${y(0) - y(v)} data-index=${i} data-value=${String(v)}><title>${s.label}, ${labels[i]}: ${fmt(v)}</title></rect>`
            : '',
        )}
        ${legendRow(k, MARGIN.left, HEIGHT, svg`<rect class="swatch" width="14" height="10" y="1"></rect>`, 14, s.label)}
      </g>`,
    )}
  </svg>`;
}
