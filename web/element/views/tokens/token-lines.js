// The head view of attention on words: the queries in a column on the left, the keys on
// the right, and from the chosen query a line to every key, as thick as its weight. Drawn
// from the core's weights only; a weight of 0 (a masked key) draws no line.
import { svg } from 'lit';

const ROW = 30; // px between tokens
const WIDTH = 320;
const LEFT = 96; // where the lines leave the query column
const RIGHT = WIDTH - 96; // and reach the key column
const MAX_STROKE = 12; // a weight of 1

/**
 * An SVG figure: `queries` and `keys` (labels), `weights` ((queries, keys), one head), the
 * `focus` query (index), and `onFocus(index)` for a query label hovered or focused.
 */
export function tokenLines({ queries, keys, weights, focus, onFocus }) {
  const height = Math.max(queries.length, keys.length) * ROW + 10;
  const y = (i) => 20 + i * ROW;
  const row = weights[focus] ?? [];
  return svg`<svg class="token-lines" data-role="token-lines" viewBox="0 0 ${WIDTH} ${height}" width=${WIDTH} height=${height}
      role="img" aria-label="Lines from the chosen query to every key, as thick as its weight">
    ${row.map((w, j) =>
      w > 0
        ? svg`<line data-key=${j} data-value=${String(w)} x1=${LEFT} y1=${y(focus)} x2=${RIGHT} y2=${y(j)}
            stroke-width=${Math.max(0.5, w * MAX_STROKE)} stroke-opacity=${0.25 + 0.75 * w}></line>`
        : null,
    )}
    ${queries.map(
      (label, i) => svg`<text class="query ${i === focus ? 'focus' : ''}" data-query=${i} x=${LEFT - 8} y=${y(i) + 5} text-anchor="end"
        @mouseenter=${() => onFocus(i)}>${label}</text>`,
    )}
    ${keys.map((label, j) => svg`<text class="key" data-key=${j} x=${RIGHT + 8} y=${y(j) + 5}>${label}</text>`)}
  </svg>`;
}
