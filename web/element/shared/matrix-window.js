// The window a long matrix is drawn through (matrix-table.js): an axis longer than WINDOW_AT
// shows the rows and columns in view and a few more, inside a box that scrolls over the whole
// matrix. These functions measure the box and say which cells are in view; the grid directive
// keeps the state (`first`, `shown`, `pitch`) and draws.
import { clamp } from './grid-keys.js';

/** An axis with more entries than this is drawn as a scrolling window onto it. */
export const WINDOW_AT = 40;
// Rows and columns drawn before the box is measured, and its pitches' first guesses (px).
export const FIRST_SHOWN = { rows: 18, cols: 14 };
export const GUESS = { row: 26, col: 66 };
const OVERSCAN = 2;

// One ResizeObserver for every windowed grid: its callback measures every box first and then
// redraws them. A redraw between two measurements dirtied the layout, so that each next grid's
// measurement laid the page out again (tens of ms a grid at 512 tokens).
const grids = new WeakMap(); // box → its grid, which has _plan(), _apply(plan) and _settle(plan)
let boxes = null;

export function observeBox(box, grid) {
  boxes ??= new ResizeObserver((entries) => {
    const plans = entries
      .map((entry) => grids.get(entry.target))
      .filter((g) => g?.isConnected)
      .map((g) => [g, g._plan()]);
    for (const [grid, plan] of plans) grid._apply(plan);
    for (const [grid, plan] of plans) grid._settle(plan);
  });
  grids.set(box, grid);
  boxes.observe(box);
}

export function unobserveBox(box) {
  if (!boxes || !box) return;
  boxes.unobserve(box);
  grids.delete(box);
}

/** The matrix's size, and which of its axes are windowed. */
export function windowAxes(values) {
  const rows = values.length;
  const cols = values[0]?.length ?? 0;
  return { rows, cols, windowRows: rows > WINDOW_AT, windowCols: cols > WINDOW_AT };
}

/** The rows and columns drawn, [r0, r1) × [c0, c1): those in view and OVERSCAN more each side. */
export function drawnBounds({ rows, cols, windowRows, windowCols }, first, shown) {
  const r0 = windowRows ? clamp(first.row - OVERSCAN, 0, rows) : 0;
  const c0 = windowCols ? clamp(first.col - OVERSCAN, 0, cols) : 0;
  const r1 = windowRows ? Math.min(rows, first.row + shown.rows + OVERSCAN) : rows;
  const c1 = windowCols ? Math.min(cols, first.col + shown.cols + OVERSCAN) : cols;
  return { r0, r1, c0, c1 };
}

/** Whether cell { row, col } lies in the drawn bounds { r0, r1, c0, c1 }. */
export function isDrawn({ row, col }, { r0, r1, c0, c1 }) {
  return row >= r0 && row < r1 && col >= c0 && col < c1;
}

/**
 * The box's geometry: where row 0 and column 0 start, the sticky headers' sizes, the width of
 * the sticky Σ column (`trail`: it covers the columns under it), the box's inner size; `pitch`
 * takes the row and column pitches measured from the cells drawn. Null before the box and its
 * table are in the page.
 */
export function measureBox(box, table, pitch) {
  if (!box || !table) return null;
  const rowsDrawn = table.querySelectorAll('tbody tr[data-r]');
  const cells = rowsDrawn[0]?.querySelectorAll('td[data-row]') ?? [];
  if (rowsDrawn.length > 1) pitch.row = (rowsDrawn[rowsDrawn.length - 1].offsetTop - rowsDrawn[0].offsetTop) / (rowsDrawn.length - 1) || GUESS.row;
  if (cells.length > 1) pitch.col = (cells[cells.length - 1].offsetLeft - cells[0].offsetLeft) / (cells.length - 1) || GUESS.col;
  const head = table.tHead?.offsetHeight ?? 0;
  const side = rowsDrawn[0]?.querySelector('th')?.offsetWidth ?? 0;
  const padTop = table.querySelector('tr.pad-top');
  const padLeft = rowsDrawn[0]?.querySelector('td.pad-left');
  return {
    head,
    side,
    trail: rowsDrawn[0]?.querySelector('.total')?.offsetWidth ?? 0,
    top: table.offsetTop + (padTop?.offsetTop ?? head),
    left: table.offsetLeft + (padLeft?.offsetLeft ?? side),
    height: box.clientHeight,
    width: box.clientWidth,
  };
}

/** The first row and column in view and how many fit, { first, shown }, from the box's scroll position. */
export function planWindow(geometry, axes, box, pitch) {
  const { rows, cols, windowRows, windowCols } = axes;
  const shown = {
    rows: Math.max(1, Math.ceil((geometry.height - geometry.head) / pitch.row)),
    cols: Math.max(1, Math.ceil((geometry.width - geometry.side) / pitch.col)),
  };
  const first = {
    row: windowRows ? clamp(Math.floor((box.scrollTop + geometry.head - geometry.top) / pitch.row), 0, Math.max(0, rows - shown.rows)) : 0,
    col: windowCols ? clamp(Math.floor((box.scrollLeft + geometry.side - geometry.left) / pitch.col), 0, Math.max(0, cols - shown.cols)) : 0,
  };
  return { first, shown };
}

/**
 * Scrolls the box so that cell (row, col) is in view below and between the sticky headers (an
 * undefined row or column, or one already in view, leaves that axis); returns the first row and
 * column then in view.
 * It places the cell from the pitches; nudgeIntoView() then corrects from the cell drawn.
 */
export function revealCell(geometry, axes, box, pitch, first, row, col) {
  const { rows, cols, windowRows, windowCols } = axes;
  const visibleRows = Math.max(1, Math.floor((geometry.height - geometry.head) / pitch.row));
  const visibleCols = Math.max(1, Math.floor((geometry.width - geometry.side - geometry.trail) / pitch.col));
  const next = { ...first };
  if (windowRows && row !== undefined) {
    if (row < next.row) next.row = row;
    else if (row >= next.row + visibleRows) next.row = row - visibleRows + 1;
    next.row = clamp(next.row, 0, Math.max(0, rows - 1));
    if (next.row !== first.row) box.scrollTop = geometry.top + next.row * pitch.row - geometry.head;
  }
  if (windowCols && col !== undefined) {
    if (col < next.col) next.col = col;
    else if (col >= next.col + visibleCols) next.col = col - visibleCols + 1;
    next.col = clamp(next.col, 0, Math.max(0, cols - 1));
    if (next.col !== first.col) box.scrollLeft = geometry.left + next.col * pitch.col - geometry.side;
  }
  return next;
}

/**
 * Scrolls the box by what a drawn cell lies outside the part of it the sticky headers and Σ
 * column leave clear. Over hundreds of columns the pitch, averaged from the cells drawn, is off
 * by pixels that add up, and a box scrolls no further than its last column: placed from the
 * pitch alone, the last column of a narrow box stayed under the Σ column. Returns whether the
 * box scrolled.
 */
export function nudgeIntoView(box, cell, geometry) {
  const b = box.getBoundingClientRect();
  const c = cell.getBoundingClientRect();
  const left = b.left + box.clientLeft + geometry.side;
  const right = b.left + box.clientLeft + box.clientWidth - geometry.trail;
  const top = b.top + box.clientTop + geometry.head;
  const bottom = b.top + box.clientTop + box.clientHeight;
  const from = scrollOf(box);
  if (c.right > right) box.scrollLeft += c.right - right;
  else if (c.left < left) box.scrollLeft -= left - c.left;
  if (c.bottom > bottom) box.scrollTop += c.bottom - bottom;
  else if (c.top < top) box.scrollTop -= top - c.top;
  return scrollOf(box) !== from;
}

// The entry of [from, to) nearest `want`, or null when the range is empty.
const nearest = (from, to, want) => (from < to ? clamp(want, from, to - 1) : null);

/**
 * A row and a column drawn both now (bounds `was`) and after the redraw to `next`, nearest the
 * first in view, and where they sit in the box's view: { row, y, col, x } (px; row or col null on
 * an axis not windowed or with nothing drawn in both). holdPlace() puts them back there after the
 * redraw. The spacers are sized from pitches averaged over the cells drawn, and rows of other
 * numbers change those pitches: without this, a scroll down at column 259 of 512 moved the
 * columns sideways by 22 px, and after Ctrl+End at 390 px a far scroll slid the last column
 * under the Σ column.
 */
export function placeOf(box, table, axes, was, next, first) {
  const place = {
    row: axes.windowRows ? nearest(Math.max(was.r0, next.r0), Math.min(was.r1, next.r1), first.row) : null,
    col: axes.windowCols ? nearest(Math.max(was.c0, next.c0), Math.min(was.c1, next.c1), first.col) : null,
  };
  return { ...place, ...whereIs(box, table, place) };
}

/** Scrolls the box so that the row and column of placeOf() are back where they were. */
export function holdPlace(box, table, place) {
  const now = whereIs(box, table, place);
  if (Number.isFinite(now.y - place.y)) box.scrollTop += now.y - place.y;
  if (Number.isFinite(now.x - place.x)) box.scrollLeft += now.x - place.x;
}

// Where row `row` and column `col` start in the box's view, { y, x } (NaN where not drawn).
function whereIs(box, table, { row, col }) {
  const b = box.getBoundingClientRect();
  const tr = row === null ? null : table.querySelector(`tbody tr[data-r="${row}"]`);
  const th = col === null ? null : table.querySelector(`thead th[data-col="${col}"]`);
  return { y: tr ? tr.getBoundingClientRect().top - b.top : NaN, x: th ? th.getBoundingClientRect().left - b.left : NaN };
}

/** Where a box is scrolled to, as one comparable value ('' without a box). */
export function scrollOf(box) {
  return box ? `${box.scrollLeft},${box.scrollTop}` : '';
}
