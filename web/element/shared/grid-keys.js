// The keyboard of a matrix drawn as a grid, as the WAI-ARIA grid pattern has it: which cell a
// key moves to from `cell`. The arrow keys move by one, Home and End to the row's ends,
// Ctrl+Home and Ctrl+End to the first and last cells, Page Up and Page Down by `page` rows. In
// an editor (`edit`, `input` the cell's input) ↑/↓ move, ←/→ move once the caret is at the text's
// edge, and Home/End stay the caret's.

/** v within [low, high]; low where the range is empty (an axis of no cells gives 0). */
export const clamp = (v, low, high) => Math.max(low, Math.min(high, v));

// Whether the caret of an input sits at the start (side -1) or the end (side 1) of its text.
function caretAtEdge(input, side) {
  if (!input || input.selectionStart === null) return true;
  const { selectionStart: start, selectionEnd: end, value } = input;
  return start === end && (side < 0 ? start === 0 : end === value.length);
}

/**
 * The { row, col } that `event`'s key moves to from `cell` in a grid of `rows` × `cols`, or
 * null when the key is not the grid's (the caller leaves it to the page).
 */
export function keyTarget(event, cell, { rows, cols, page, edit = false, input = null }) {
  if (event.altKey || event.metaKey) return null;
  const ctrl = event.ctrlKey;
  let { row, col } = cell;
  switch (event.key) {
    case 'ArrowUp':
      row -= 1;
      break;
    case 'ArrowDown':
      row += 1;
      break;
    case 'ArrowLeft':
      if (edit && !caretAtEdge(input, -1)) return null;
      col -= 1;
      break;
    case 'ArrowRight':
      if (edit && !caretAtEdge(input, 1)) return null;
      col += 1;
      break;
    case 'Home':
      if (edit && !ctrl) return null;
      [row, col] = ctrl ? [0, 0] : [row, 0];
      break;
    case 'End':
      if (edit && !ctrl) return null;
      [row, col] = ctrl ? [rows - 1, cols - 1] : [row, cols - 1];
      break;
    case 'PageUp':
      row -= page;
      break;
    case 'PageDown':
      row += page;
      break;
    default:
      return null;
  }
  return { row: clamp(row, 0, rows - 1), col: clamp(col, 0, cols - 1) };
}
