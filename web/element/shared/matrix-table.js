// One matrix as an accessible <table>: a caption, row and column headers, and cells with
// the test hooks data-row, data-col and data-value. Used for results (optionally as a
// heatmap) and, with `edit`, for the learner's input matrices.
import { html, nothing } from 'lit';

import { finiteRange, scaleClass } from './colors.js';
import { fmt, plainSubscripted, subscripted } from './format.js';

/** The { row, col } of the data cell an event happened in, or null outside the cells. */
export function cellOf(event) {
  const td = event.target.closest?.('td[data-row]');
  return td ? { row: Number(td.dataset.row), col: Number(td.dataset.col) } : null;
}

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

/**
 * @param {object} m
 * @param {string} m.name        data-matrix: a step id or an input name
 * @param {number} [m.head]      data-head on per-head matrices
 * @param {string} m.caption     what the table shows, with its shape
 * @param {number[][]} m.values
 * @param {string[]} m.rowLabels
 * @param {string[]} m.colLabels
 * @param {object} [m.scale]    colour cells on this scale (colors.js: WEIGHT_SCALE, scoreScale), with a legend naming it
 * @param {boolean} [m.heat]     without a scale: colour cells by value on `range`
 * @param {number[]} [m.range]   that scale's [min, max] (default: the values' own range)
 * @param {(value: number, row: number, col: number) => string} [m.format]  a cell's text (default: fmt)
 * @param {number[]} [m.totals]  a Σ column (row sums from the core)
 * @param {{rows?: number[], cols?: number[], cell?: number[]}} [m.highlight]
 * @param {(row: number, col: number) => void} [m.onFocusCell]
 * @param {() => void} [m.onLeave]
 * @param {boolean[][]} [m.blocked]  cells a mask blocked, hatched as masked scores are (a
 *   masked weight is 0, and only the mask tells it from a weight that is merely tiny)
 * @param {number[][]} [m.previous]  the values before the last change, same shape: a cell
 *   whose shown value moved says what it was, fading (what an edit changed)
 * @param {{ invalid: Map<string, {text: string, message: string}>, onInput: Function, label: string }} [m.edit]
 */
export function matrixTable(m) {
  const scale = m.scale ?? (m.heat ? { range: m.range ?? finiteRange(m.values) } : null);
  const hl = m.highlight ?? {};
  const focus = (event) => {
    const cell = cellOf(event);
    if (cell && m.onFocusCell) m.onFocusCell(cell.row, cell.col);
  };
  const cellClass = (v, r, c) => {
    const marked = hl.rows?.includes(r) || hl.cols?.includes(c);
    const exact = hl.cell && hl.cell[0] === r && hl.cell[1] === c;
    // No colour on the scale: a masked score (−∞) or weight is shown apart from one near 0.
    const masked = (scale && v === -Infinity) || m.blocked?.[r]?.[c];
    return [scale && !masked ? scaleClass(scale, v, r, c) : '', masked ? 'masked' : '', marked ? 'hl' : '', exact ? 'hl-cell' : ''].join(' ').trim();
  };
  const was = (v, r, c) => {
    const before = m.previous?.[r]?.[c];
    return before === undefined || fmt(before) === fmt(v) ? nothing : html`<span class="was" data-was=${String(before)}>was ${fmt(before)}</span>`;
  };
  const content = (v, r, c) => {
    if (!m.edit) return html`${m.format ? m.format(v, r, c) : fmt(v)}${was(v, r, c)}`;
    const bad = m.edit.invalid.get(`${r},${c}`);
    return html`<input
        inputmode="decimal"
        aria-label="${plainSubscripted(m.edit.label)} row ${r + 1}, column ${c + 1}"
        aria-invalid=${bad ? 'true' : 'false'}
        .value=${bad ? bad.text : String(v)}
        @input=${(e) => m.edit.onInput(r, c, e.target.value)}
      />${bad ? html`<span class="cell-error" role="alert">${subscripted(bad.message)}</span>` : nothing}`;
  };
  return html`<figure class="matrix" part="matrix">
    <table
      data-matrix=${m.name}
      data-head=${m.head ?? nothing}
      class=${m.edit ? 'editor' : 'result'}
      @mouseover=${focus}
      @focusin=${focus}
      @mouseleave=${() => m.onLeave?.()}
    >
      <caption>${subscripted(m.caption)}</caption>
      <thead>
        <tr>
          <td></td>
          ${m.colLabels.map((label, c) => html`<th scope="col" class=${hl.cols?.includes(c) ? 'hl' : ''}>${label}</th>`)}
          ${m.totals ? html`<th scope="col" title="row sum">Σ</th>` : nothing}
        </tr>
      </thead>
      <tbody>
        ${m.values.map(
          (row, r) => html`<tr>
            <th scope="row" class=${hl.rows?.includes(r) ? 'hl' : ''}>${m.rowLabels[r]}</th>
            ${row.map(
              (v, c) => html`<td
                data-row=${r}
                data-col=${c}
                data-value=${String(v)}
                data-invalid=${m.edit?.invalid.has(`${r},${c}`) ? '' : nothing}
                class=${cellClass(v, r, c)}
                tabindex=${m.edit ? nothing : '0'}
              >
                ${content(v, r, c)}
              </td>`,
            )}
            ${m.totals ? html`<td class="total" data-row-total=${r}>${fmt(m.totals[r])}</td>` : nothing}
          </tr>`,
        )}
      </tbody>
    </table>
    ${scale ? legend(scale) : nothing}
  </figure>`;
}
