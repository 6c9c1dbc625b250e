// One matrix as an accessible <table>: a caption, row and column headers, and cells with
// the test hooks data-row, data-col and data-value. Used for results (optionally as a
// heatmap) and, with `edit`, for the learner's input matrices.
//
// Keyboard: a matrix is one Tab stop, as the WAI-ARIA grid pattern has it (a roving
// tabindex); the keys move between its cells (grid-keys.js says where to), a Page Up or Down by
// a screenful of rows. In an editor the cells are the inputs. Focusing a cell reports it as
// hovering does.
//
// Size: an axis longer than WINDOW_AT is drawn as a window onto it, the rows and columns in
// view and a few more, inside a box that scrolls over the whole matrix (sticky headers,
// spacers for the rest; matrix-window.js measures it), so the DOM holds a bounded number of
// cells at every size (512 × 512 weights: about 400 cells, not 262,144). The tiny examples
// draw every cell as before.
import { html, nothing } from 'lit';
import { AsyncDirective, directive } from 'lit/async-directive.js';
import { ref, createRef } from 'lit/directives/ref.js';
import { repeat } from 'lit/directives/repeat.js';

import { finiteRange, scaleClass } from './colors.js';
import { fmt, plainSubscripted, subscripted } from './format.js';
import { legend } from './legend.js';
import { cssProps } from './css-props.js';
import { clamp, keyTarget } from './grid-keys.js';
import {
  drawnBounds,
  FIRST_SHOWN,
  holdPlace,
  isDrawn,
  GUESS,
  measureBox,
  nudgeIntoView,
  observeBox,
  placeOf,
  planWindow,
  revealCell,
  scrollOf,
  unobserveBox,
  WINDOW_AT,
  windowAxes,
} from './matrix-window.js';

export { WINDOW_AT };

/** The { row, col } of the data cell an event happened in, or null outside the cells. */
export function cellOf(event) {
  return cellAt(event.target);
}

// The { row, col } of the data cell that element is or lies in, or null.
function cellAt(element) {
  const td = element?.closest?.('td[data-row]');
  return td ? { row: Number(td.dataset.row), col: Number(td.dataset.col) } : null;
}

const range = (from, to) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

class MatrixGrid extends AsyncDirective {
  constructor(part) {
    super(part);
    this.key = null;
    this.active = { row: 0, col: 0 }; // the cell in the Tab order
    this.first = { row: 0, col: 0 }; // the first row and column drawn, when windowed
    this.shown = { ...FIRST_SHOWN }; // how many fit the box
    this.pitch = { ...GUESS };
    this.box = { value: undefined };
    this.table = createRef();
  }

  render(m) {
    this.m = m;
    return this._template();
  }

  update(part, [m]) {
    const rows = m.values.length;
    const cols = m.values[0]?.length ?? 0;
    const key = `${m.name}|${m.head}|${rows}|${cols}`;
    if (key !== this.key) {
      // Another matrix in this place: back to its first cell.
      if (this.key !== null) {
        this.active = { row: 0, col: 0 };
        this.first = { row: 0, col: 0 };
        // Before the next frame, not now: setting scrollTop mid-render would force a layout.
        const box = this.box.value;
        if (box) requestAnimationFrame(() => box.isConnected && (box.scrollTop || box.scrollLeft) && box.scrollTo(0, 0));
      }
      this.key = key;
    }
    this.active = { row: clamp(this.active.row, 0, rows - 1), col: clamp(this.active.col, 0, cols - 1) };
    // An operand lit up by a hovered result cell (its row, its column) scrolls into view,
    // before the next frame (measuring now would force a layout mid-render).
    const lit = [m.highlight?.rows?.[0], m.highlight?.cols?.[0]];
    const litKey = lit.join();
    if (litKey !== this.lit) {
      this.lit = litKey;
      if ((rows > WINDOW_AT && lit[0] !== undefined) || (cols > WINDOW_AT && lit[1] !== undefined)) {
        requestAnimationFrame(() => {
          if (!this.isConnected || this.lit !== litKey) return;
          this._reveal(...lit);
          this._redraw();
        });
      }
    }
    return this.render(m);
  }

  disconnected() {
    unobserveBox(this._observed);
  }

  reconnected() {
    if (this._observed) observeBox(this._observed, this);
  }

  _redraw() {
    if (!this.isConnected) return;
    this._releaseFocus();
    this.setValue(this._template());
  }

  // A focused cell the window no longer draws loses its focus before the redraw, as it would
  // with its removal, but not in the middle of it: removing the focused element makes the
  // browser lay the table out there, with the top spacer already resized and the bottom one not
  // yet, and the box's scroll position was clamped to that shorter table (a far scroll up from
  // the focused last row landed 14 rows short of where it was sent).
  _releaseFocus() {
    const focused = this.table.value?.getRootNode().activeElement;
    const cell = focused && this.table.value.contains(focused) ? cellAt(focused) : null;
    if (cell && !isDrawn(cell, this._bounds())) focused.blur();
  }

  // ---- the window ----

  _axes() {
    return windowAxes(this.m.values);
  }

  _bounds() {
    return drawnBounds(this._axes(), this.first, this.shown);
  }

  _measure() {
    return measureBox(this.box.value, this.table.value, this.pitch);
  }

  // Follows the box's scroll position and size: which rows and columns are in view.
  // After a move that scrolled, the redraw the scroll brings can shift the cells by pixels again:
  // the moved-to cell (`_revealing`) is nudged into view until the window settles. A move that
  // did not scroll brings no scroll event, and leaves nothing to nudge (or a later scroll of the
  // learner's would be pulled back to it).
  _follow() {
    const plan = this._plan();
    this._apply(plan);
    this._settle(plan);
    if (!(plan && this._revealing && this._nudge(this._cell(this._revealing)))) this._revealing = null;
  }

  // The window now in view, measured, with what is to stay in place across its redraw; null when
  // nothing changes.
  _plan() {
    const geometry = this._measure();
    if (!geometry) return null;
    const axes = this._axes();
    const box = this.box.value;
    const { first, shown } = planWindow(geometry, axes, box, this.pitch);
    if (first.row === this.first.row && first.col === this.first.col && shown.rows === this.shown.rows && shown.cols === this.shown.cols) return null;
    const place = placeOf(box, this.table.value, axes, this._bounds(), drawnBounds(axes, first, shown), first);
    return { first, shown, place };
  }

  _apply(plan) {
    if (!plan) return;
    this.first = plan.first;
    this.shown = plan.shown;
    this._redraw();
  }

  // After _apply, apart from it so that many grids redraw before one layout (observeBox): the
  // cells in view back where they were.
  _settle(plan) {
    if (!plan || !this.isConnected) return;
    holdPlace(this.box.value, this.table.value, plan.place);
  }

  _onScroll = () => {
    if (this._frame) return;
    this._frame = requestAnimationFrame(() => {
      this._frame = null;
      this._follow();
    });
  };

  _boxRef = (box) => {
    this.box.value = box;
    if (box && box !== this._observed) {
      unobserveBox(this._observed);
      this._observed = box;
      observeBox(box, this);
    }
  };

  // Scrolls the box so that cell (row, col) is in view below and beside the sticky headers.
  _reveal(row, col) {
    const geometry = this._measure();
    if (geometry) this.first = revealCell(geometry, this._axes(), this.box.value, this.pitch, this.first, row, col);
  }

  // The drawn cell (row, col), if drawn.
  _cell({ row, col }) {
    return this.table.value?.querySelector(`td[data-row="${row}"][data-col="${col}"]`);
  }

  // Scrolls the drawn cell clear of the sticky headers and Σ column (nudgeIntoView); whether the
  // box scrolled.
  _nudge(td) {
    const geometry = td ? this._measure() : null;
    return Boolean(geometry) && nudgeIntoView(this.box.value, td, geometry);
  }

  // ---- the keyboard ----

  _onKey = (event) => {
    const cell = cellOf(event);
    if (!cell) return;
    const { rows, cols } = this._axes();
    const edit = Boolean(this.m.edit);
    const input = edit ? event.target.closest('input') : null;
    const target = keyTarget(event, cell, { rows, cols, page: Math.max(1, this.shown.rows - 1), edit, input });
    if (!target) return;
    // Handled here: the stepper's ←/→ step only outside a matrix (it checks defaultPrevented).
    event.preventDefault();
    this.moveTo(target.row, target.col);
  };

  /** Makes cell (row, col) the Tab stop, scrolled into view, and focuses it. */
  moveTo(row, col) {
    this.active = { row, col };
    const { windowRows, windowCols } = this._axes();
    const windowed = windowRows || windowCols;
    const from = scrollOf(this.box.value);
    if (windowed) this._reveal(row, col);
    this._redraw();
    const td = this._cell({ row, col });
    if (windowed) this._nudge(td);
    this._revealing = windowed && scrollOf(this.box.value) !== from ? { row, col } : null;
    const target = this.m.edit ? td?.querySelector('input') : td;
    target?.focus({ preventScroll: windowed });
    if (this.m.edit) target?.select();
  }

  _onFocusIn = (event) => {
    const cell = cellOf(event);
    if (!cell) return;
    if (cell.row !== this.active.row || cell.col !== this.active.col) {
      this.active = cell;
      this._redraw();
    }
    this.m.onFocusCell?.(cell.row, cell.col);
  };

  _onOver = (event) => {
    const cell = cellOf(event);
    if (cell) this.m.onFocusCell?.(cell.row, cell.col);
  };

  _onLeave = () => this.m.onLeave?.();

  // ---- drawing ----

  _template() {
    const m = this.m;
    const { rows, cols, windowRows, windowCols } = this._axes();
    const windowed = windowRows || windowCols;
    const { r0, r1, c0, c1 } = this._bounds();
    const scale = m.scale ?? (m.heat ? { range: m.range ?? finiteRange(m.values) } : null);
    const hl = m.highlight ?? {};
    // The Tab stop: the active cell, or the first cell drawn when it has scrolled away.
    const active = isDrawn(this.active, { r0, r1, c0, c1 }) ? this.active : { row: r0, col: c0 };
    const cellClass = (v, r, c) => {
      const marked = hl.rows?.includes(r) || hl.cols?.includes(c);
      const exact = hl.cell && hl.cell[0] === r && hl.cell[1] === c;
      // No colour on the scale: a masked score (−∞) or weight is shown apart from one near 0.
      const masked = (scale && v === -Infinity) || m.blocked?.[r]?.[c];
      return [scale && !masked ? scaleClass(scale, v, r, c) : '', masked ? 'masked' : '', marked ? 'hl' : '', exact ? 'hl-cell' : ''].join(' ').trim();
    };
    const was = (v, r, c) => {
      const before = windowed ? undefined : m.previous?.[r]?.[c];
      return before === undefined || fmt(before) === fmt(v) ? nothing : html`<span class="was" data-was=${String(before)}>was ${fmt(before)}</span>`;
    };
    const content = (v, r, c, stop) => {
      if (!m.edit) return html`${m.format ? m.format(v, r, c) : fmt(v)}${was(v, r, c)}`;
      const bad = m.edit.invalid.get(`${r},${c}`);
      return html`<input
          inputmode="decimal"
          tabindex=${stop ? '0' : '-1'}
          aria-label="${plainSubscripted(m.edit.label)} row ${r + 1}, column ${c + 1}"
          aria-invalid=${bad ? 'true' : 'false'}
          .value=${bad ? bad.text : String(v)}
          @input=${(e) => m.edit.onInput(r, c, e.target.value)}
        />${bad ? html`<span class="cell-error" role="alert">${subscripted(bad.message)}</span>` : nothing}`;
    };
    const colsDrawn = range(c0, c1);
    const cell = (v, r, c) => {
      const stop = r === active.row && c === active.col;
      return html`<td
        data-row=${r}
        data-col=${c}
        data-value=${String(v)}
        data-invalid=${m.edit?.invalid.has(`${r},${c}`) ? '' : nothing}
        class=${cellClass(v, r, c)}
        tabindex=${m.edit ? nothing : stop ? '0' : '-1'}
        aria-colindex=${windowCols ? c + 2 : nothing}
      >
        ${content(v, r, c, stop)}
      </td>`;
    };
    const row = (r) => {
      const values = m.values[r];
      return html`<tr data-r=${r} aria-rowindex=${windowRows ? r + 2 : nothing}>
        <th scope="row" class=${hl.rows?.includes(r) ? 'hl' : ''}>${m.rowLabels[r]}</th>
        ${windowCols ? html`<td class="pad pad-left" aria-hidden="true"></td>` : nothing}
        ${
          windowCols
            ? repeat(
                colsDrawn,
                (c) => c,
                (c) => cell(values[c], r, c),
              )
            : values.map((v, c) => cell(v, r, c))
        }
        ${windowCols ? html`<td class="pad pad-right" aria-hidden="true"></td>` : nothing}
        ${m.totals ? html`<td class="total" data-row-total=${r}>${fmt(m.totals[r])}</td>` : nothing}
      </tr>`;
    };
    const colHead = (label, c) =>
      html`<th scope="col" class=${hl.cols?.includes(c) ? 'hl' : ''} data-col=${c} aria-colindex=${windowCols ? c + 2 : nothing}>${label}</th>`;
    const px = (n) => `${Math.round(n)}px`;
    const allColumns = 1 + (c1 - c0) + (windowCols ? 2 : 0) + (m.totals ? 1 : 0);
    const table = html`<table
      ${ref(this.table)}
      role="grid"
      data-matrix=${m.name}
      data-head=${m.head ?? nothing}
      data-windowed=${windowed ? '' : nothing}
      aria-rowcount=${windowed ? rows + 1 : nothing}
      aria-colcount=${windowed ? cols + 1 + (m.totals ? 1 : 0) : nothing}
      aria-readonly=${m.edit ? nothing : 'true'}
      class=${`${m.edit ? 'editor' : 'result'}${windowed ? ' windowed' : ''}`}
      @mouseover=${this._onOver}
      @focusin=${this._onFocusIn}
      @keydown=${this._onKey}
      @mouseleave=${this._onLeave}
    >
      <caption>${subscripted(m.caption)}</caption>
      <thead>
        <tr>
          <td></td>
          ${windowCols ? html`<th class="pad pad-left" aria-hidden="true" style=${cssProps({ width: px(c0 * this.pitch.col) })}></th>` : nothing}
          ${
            windowCols
              ? repeat(
                  colsDrawn,
                  (c) => c,
                  (c) => colHead(m.colLabels[c], c),
                )
              : m.colLabels.map(colHead)
          }
          ${windowCols ? html`<th class="pad pad-right" aria-hidden="true" style=${cssProps({ width: px((cols - c1) * this.pitch.col) })}></th>` : nothing}
          ${m.totals ? html`<th scope="col" class="total" title="row sum">Σ</th>` : nothing}
        </tr>
      </thead>
      <tbody>
        ${windowRows ? html`<tr class="pad pad-top" aria-hidden="true" style=${cssProps({ height: px(r0 * this.pitch.row) })}><td colspan=${allColumns}></td></tr>` : nothing}
        ${windowRows ? repeat(range(r0, r1), (r) => r, row) : m.values.map((_, r) => row(r))}
        ${windowRows ? html`<tr class="pad pad-bottom" aria-hidden="true" style=${cssProps({ height: px((rows - r1) * this.pitch.row) })}><td colspan=${allColumns}></td></tr>` : nothing}
      </tbody>
    </table>`;
    const note = windowed
      ? html`<p class="window-note" data-role="window-note">
          Rows ${Math.min(rows, this.first.row + 1)}–${Math.min(rows, this.first.row + this.shown.rows)} and columns
          ${Math.min(cols, this.first.col + 1)}–${Math.min(cols, this.first.col + this.shown.cols)} of ${rows} × ${cols}: scroll, or use the arrow
          keys, Page Up/Down, ${m.edit ? 'Ctrl+Home/End' : 'Home/End'}.
        </p>`
      : nothing;
    return html`<figure class="matrix ${windowed ? 'windowed' : ''}" part="matrix">
      ${windowed ? html`<div class="matrix-box" ${ref(this._boxRef)} @scroll=${this._onScroll}>${table}</div>` : table}
      ${note} ${scale ? legend(scale) : nothing}
    </figure>`;
  }
}

const matrixGrid = directive(MatrixGrid);

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
  return matrixGrid(m);
}
