// The colour ramp under a heatmap (matrix-table.js, the positions view's heatmap), with its
// ends and the scale's name.
import { html, nothing } from 'lit';

import { fmt } from './format.js';

/**
 * The colour ramp under a heatmap, labelled with its ends, and, given a scale (colors.js),
 * named: "weights, fixed 0 to 1". A scale's `ends` may replace the numbers at the ends.
 */
export function legend(scaleOrRange, palette) {
  const scale = Array.isArray(scaleOrRange) ? { range: scaleOrRange, palette } : scaleOrRange;
  const [low, high] = scale.ends ?? scale.range.map(fmt);
  return html`<div class="legend" data-role="legend" data-scale=${scale.kind ?? nothing} data-palette=${scale.palette ?? 'sequential'}>
    ${scale.label ? html`<span class="scale-name">${scale.label}:</span>` : nothing}
    <span aria-hidden="true">${low}</span><span class="ramp" aria-hidden="true"></span><span aria-hidden="true">${high}</span>
  </div>`;
}
