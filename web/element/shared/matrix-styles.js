// The styles of matrices (matrix-table.js): tables that scroll inside their own box with a
// fading cue, heat colours on the scales of colors.js, highlights, the faint previous value
// after a change, editable cells and the legend under a heatmap.
import { css, unsafeCSS } from 'lit';

import { HEAT_RULES, RAMP_RULES } from './colors.js';

/**
 * A box that scrolls sideways (figure.matrix, .scroll-x around a wide table, a long .formula)
 * shows that it does: its content fades out at an edge with more beyond it. The fades follow
 * the box's own scroll position (a scroll-driven animation); a box that does not scroll has no
 * timeline, so no fade.
 */
export const scrollCue = css`
  figure.matrix,
  .scroll-x,
  .formula {
    margin: 0;
    max-width: 100%;
    overflow-x: auto;
    --attn-fade-start: 0px;
    --attn-fade-end: 0px;
    mask-image: linear-gradient(
      to right,
      transparent,
      #000 var(--attn-fade-start),
      #000 calc(100% - var(--attn-fade-end)),
      transparent
    );
    animation: attn-scroll-cue linear both !important;
    animation-timeline: scroll(self inline) !important; /* kept under reduced motion: it moves nothing */
  }
  @property --attn-fade-start {
    syntax: '<length>';
    inherits: false;
    initial-value: 0px;
  }
  @property --attn-fade-end {
    syntax: '<length>';
    inherits: false;
    initial-value: 0px;
  }
  @keyframes attn-scroll-cue {
    from {
      --attn-fade-start: 0px;
      --attn-fade-end: 32px;
    }
    8% {
      --attn-fade-start: 32px;
    }
    92% {
      --attn-fade-end: 32px;
    }
    to {
      --attn-fade-start: 32px;
      --attn-fade-end: 0px;
    }
  }
`;

export const matrixStyles = css`
  .matrices {
    display: flex;
    flex-wrap: wrap;
    gap: 12px;
    align-items: flex-start;
  }
  /* A flex item may shrink below its content, so a wide matrix scrolls inside its own box
     (figure.matrix, or .scroll-x around another wide table) instead of widening the page;
     so does a long formula. */
  .matrices > * {
    min-width: 0;
    max-width: 100%;
  }
  ${scrollCue}
  table {
    border-collapse: collapse;
    font-variant-numeric: tabular-nums;
  }
  caption {
    text-align: left;
    color: var(--attn-muted);
    font-size: 0.9em;
    padding-bottom: 2px;
  }
  th,
  td {
    border: 1px solid var(--attn-border);
    padding: 2px 6px;
    text-align: right;
    min-width: 2.6em;
  }
  th {
    background: var(--attn-panel);
    font-weight: 500;
  }
  /* On a phone a 4×4 matrix with its row labels and Σ column fits without scrolling. */
  @media (max-width: 480px) {
    th,
    td {
      padding: 2px 3px;
      min-width: 2.2em;
      font-size: 0.92em;
    }
  }
  td.masked {
    background: repeating-linear-gradient(135deg, var(--attn-panel) 0 5px, var(--attn-bg) 5px 10px);
    color: var(--attn-muted);
  }
  /* Highlights: a dark ring and a light ring together, so one of them stands out on every
     colour of the heat scale (dark purple to bright yellow) and on either theme. */
  td.hl,
  th.hl {
    box-shadow:
      inset 0 0 0 2px var(--attn-ring-dark),
      inset 0 0 0 4px var(--attn-ring-light);
  }
  td.hl-cell {
    /* the dark ring just outside the cell, the light one just inside: the text keeps its room */
    outline: 2px solid var(--attn-ring-dark);
    outline-offset: 0;
    box-shadow: inset 0 0 0 2px var(--attn-ring-light);
  }
  td.total {
    color: var(--attn-muted);
    font-style: italic;
  }
  /* What a cell was before the last change: small, in the cell's own text colour, fading. */
  .was {
    display: block;
    font-size: 0.72em;
    opacity: 0;
    animation: attn-was 4s ease-out;
  }
  @keyframes attn-was {
    0%,
    60% {
      opacity: 0.85;
    }
    100% {
      opacity: 0;
    }
  }
  @media (prefers-reduced-motion: reduce) {
    .was {
      animation: none;
      opacity: 1;
    }
  }
  table.editor td {
    padding: 0;
  }
  table.editor input {
    width: 4.2em;
    border: 0;
    background: transparent;
    text-align: right;
    padding: 2px 4px;
  }
  td[data-invalid] input {
    outline: 2px solid var(--attn-error);
    background: color-mix(in srgb, var(--attn-error) 15%, transparent);
  }
  .cell-error {
    display: block;
    color: var(--attn-error);
    font-size: 0.75em;
    max-width: 9em;
    text-align: left;
    padding: 0 4px;
  }
  /* A large matrix (matrix-table.js, WINDOW_AT): a box that scrolls over the whole matrix
     while only the rows and columns in view are drawn; its headers and Σ column stay put. */
  figure.matrix.windowed {
    overflow: visible;
    mask-image: none;
    animation: none !important;
  }
  .matrix-box {
    position: relative;
    overflow: auto;
    max-width: 100%;
    max-height: min(24em, 70vh);
    overscroll-behavior: contain;
  }
  table.windowed {
    table-layout: fixed;
    width: max-content;
  }
  table.windowed td[data-row],
  table.windowed thead th:not(.pad) {
    width: 4.6em;
    min-width: 4.6em;
    max-width: 4.6em;
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  table.windowed.editor td[data-row] input {
    width: 100%;
    box-sizing: border-box;
  }
  table.windowed tbody th {
    white-space: nowrap;
    max-width: 8em;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  table.windowed thead th,
  table.windowed thead td {
    position: sticky;
    top: 0;
    z-index: 1;
    background: var(--attn-panel);
  }
  /* A collapsed border stays where the table put it, so the sticky row labels and Σ column draw
     their inner edge themselves, and the labels keep a gap: a number half scrolled under them
     read as part of the label ("t4990.0022" at 390 px). */
  table.windowed tbody th {
    position: sticky;
    left: 0;
    z-index: 1;
  }
  table.windowed tbody tr th {
    padding-right: 0.6em; /* over the narrow Σ tables' tighter cells (stepper/styles.js) */
  }
  table.windowed tbody th:not(.hl) {
    box-shadow: inset -1px 0 var(--attn-border);
  }
  table.windowed thead td:first-child {
    left: 0;
    z-index: 2;
  }
  table.windowed .total {
    position: sticky;
    right: 0;
    background: var(--attn-panel);
    box-shadow: inset 1px 0 var(--attn-border);
  }
  table.windowed .pad,
  table.windowed .pad td {
    border: 0;
    padding: 0;
    min-width: 0;
    background: transparent;
  }
  .window-note {
    margin: 2px 0;
    font-size: 0.8em;
    color: var(--attn-muted);
  }
  .legend {
    display: flex;
    gap: 6px;
    align-items: center;
    font-size: 0.8em;
    color: var(--attn-muted);
  }
  .legend .scale-name {
    margin-right: 2px;
  }
  .legend .ramp {
    width: 90px;
    height: 8px;
    border-radius: 4px;
  }
  .resize {
    display: flex;
    gap: 4px;
    font-size: 0.8em;
  }
  .resize button {
    padding: 0 6px;
  }
  ${unsafeCSS(HEAT_RULES)}
  ${unsafeCSS(RAMP_RULES)}
`;
