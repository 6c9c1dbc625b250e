// The model view's line chart: the loss of each next token (nats), one line per series, drawn
// from the numbers given (model.loss()); each series' values ride on its line for tests.
import { html, svg } from 'lit';
import { cssProps } from '../../../shared/css-props.js';

const [W, H, PAD] = [600, 160, 28];

/** The mean of the finite values (a chart's null gaps left out). */
export const mean = (values) => {
  const kept = values.filter((v) => Number.isFinite(v));
  return kept.length ? kept.reduce((a, b) => a + b, 0) / kept.length : NaN;
};
/** Two decimals, and two decimals with a sign (a change). */
export const f2 = (x) => x.toFixed(2);
export const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;

/**
 * series: [{ id, label, values (a number or null per x), dashed? }]; xLabel names the x axis.
 * The legend gives each series' mean.
 */
export function lossChart({ series, xLabel, caption }) {
  const count = Math.max(...series.map((s) => s.values.length), 2);
  const top = Math.max(1, ...series.flatMap((s) => s.values.filter(Number.isFinite)));
  const x = (i) => PAD + (i * (W - PAD - 6)) / (count - 1);
  const y = (v) => H - PAD + 4 - (v / top) * (H - PAD - 8);
  const path = (values) =>
    values
      .map((v, i) => (Number.isFinite(v) ? `${i && Number.isFinite(values[i - 1]) ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}` : ''))
      .join('');
  const ticks = [0, top / 2, top];
  return html`<figure class="chart" data-role="losses">
    <figcaption class="note">${caption}</figcaption>
    <svg viewBox="0 0 ${W} ${H}" role="img" aria-label=${`${caption}: ${series.map((s) => `${s.label} mean ${mean(s.values).toFixed(2)} nats`).join('; ')}`}>
      ${ticks.map((t) => svg`<line class="grid" x1=${PAD} x2=${W} y1=${y(t)} y2=${y(t)}></line><text class="tick" x=${PAD - 4} y=${y(t) + 4}>${t.toFixed(0)}</text>`)}
      ${series.map(
        (s, k) => svg`<path class=${`line line-${k}${s.dashed ? ' dashed' : ''}`} data-series=${s.id} .values=${s.values} d=${path(s.values)}></path>`,
      )}
      <text class="tick" x=${W / 2} y=${H - 4}>${xLabel}</text>
    </svg>
    <ul class="legend">
      ${series.map(
        (s, k) => html`<li data-series=${s.id} data-mean=${mean(s.values)}><span class=${`swatch line-${k}${s.dashed ? ' dashed' : ''}`}></span>${s.label}: mean
            ${mean(s.values).toFixed(2)} nats</li>`,
      )}
    </ul>
  </figure>`;
}

/** A row of tokens, each with its value 0 … 1 as a bar and as a number: { pieces, values, label }. */
export function tokenStrip({ pieces, values, label, role }) {
  return html`<div class="strip" data-role=${role} .values=${values} aria-label=${label} role="group">
    ${pieces.map(
      (piece, i) => html`<span class="cell" style=${cssProps({ '--w': Math.max(0, Math.min(1, values[i])).toFixed(3) })} data-value=${values[i]}
        ><span class="piece">${piece}</span><span class="value">${values[i].toFixed(2)}</span></span
      >`,
    )}
  </div>`;
}
