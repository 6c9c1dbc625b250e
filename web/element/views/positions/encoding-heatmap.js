// The positional encoding as a compact heatmap: one row per position, one column per
// dimension, each cell a heat class (no text), so 64 × 64 cells still fit. Only one cell is
// in the tab order; the arrow keys move between cells (a roving tabindex), and hovering or
// focusing a cell reports it, so the view can explain it.
import { html } from 'lit';

import { heatClass } from '../../shared/colors.js';
import { legend } from '../../shared/legend.js';
import { cellOf } from '../../shared/matrix-table.js';
import { clamp } from '../../shared/view-state.js';
import { cssProps } from '../../shared/css-props.js';

// The encoding lies in [−1, 1]: a fixed range keeps colours comparable between sizes.
const ENCODING_RANGE = [-1, 1];

const MOVES = {
  ArrowUp: [-1, 0],
  ArrowDown: [1, 0],
  ArrowLeft: [0, -1],
  ArrowRight: [0, 1],
  Home: [0, -Infinity],
  End: [0, Infinity],
};

/** The cell an arrow key leads to from `cell` in a rows × cols grid, or null for other keys. */
export function movedCell(key, cell, rows, cols) {
  const move = MOVES[key];
  if (!move) return null;
  return { row: clamp(cell.row + move[0], 0, rows - 1), col: clamp(cell.col + move[1], 0, cols - 1) };
}

/**
 * @param {object} m
 * @param {number[][]} m.values        (positions, dimensions), from lab.sinusoidalEncoding
 * @param {{row: number, col: number}} m.cell  the explained cell (the one in the tab order)
 * @param {(cell: {row: number, col: number}) => void} m.onCell
 * @param {(event: KeyboardEvent) => void} m.onKey
 */
export function encodingHeatmap({ values, cell, onCell, onKey }) {
  const report = (event) => {
    const found = cellOf(event);
    if (found) onCell(found);
  };
  const cols = values[0]?.length ?? 0;
  return html`<figure class="matrix">
    <table data-matrix="encoding" class="encoding" style=${cssProps({ '--cols': String(cols) })} @mouseover=${report} @focusin=${report} @keydown=${onKey}>
      <caption>
        PE: ${values.length} positions (rows) × ${cols} dimensions (columns)
      </caption>
      <thead>
        <tr>
          <td></td>
          ${Array.from({ length: cols }, (_, c) => html`<th scope="col">${c}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${values.map(
          (row, r) => html`<tr>
            <th scope="row">${r}</th>
            ${row.map(
              (v, c) => html`<td
                data-row=${r}
                data-col=${c}
                data-value=${String(v)}
                class="${heatClass(v, ENCODING_RANGE, 'diverging')} ${r === cell.row && c === cell.col ? 'hl-cell' : ''}"
                tabindex=${r === cell.row && c === cell.col ? '0' : '-1'}
                aria-label="position ${r}, dimension ${c}"
              ></td>`,
            )}
          </tr>`,
        )}
      </tbody>
    </table>
    ${legend(ENCODING_RANGE, 'diverging')}
  </figure>`;
}
