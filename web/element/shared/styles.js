// The styles every part of <attn-lab> shares: the host's colours (custom properties, so
// themes and host pages can change them), controls, messages and quizzes; matrices and
// heatmaps are in matrix-styles.js, question forms and charts in form-styles.js. Each part
// adds its own beside it: the stepper's in stepper/styles.js, each teaching view's in its
// folder (views/ID/styles.js). Everything sits in a shadow root, so nothing leaks into the
// host page.
import { css } from 'lit';

import { formStyles } from './form-styles.js';
import { matrixStyles } from './matrix-styles.js';

// The theme: every custom property a host page may set (README, "Styling"), with its
// default. Declared on <attn-lab> only: the views and quizzes nested in its shadow root
// inherit them, so a host page's values reach every part. Each colour is
// light-dark(light, dark): color-scheme picks one.
const themeStyles = css`
  :host {
    --attn-bg: light-dark(#ffffff, #15171b);
    --attn-fg: light-dark(#1b1d21, #e8eaee);
    --attn-muted: light-dark(#5b6170, #a3a9b6);
    --attn-border: light-dark(#d5d9e0, #3a3f49);
    --attn-panel: light-dark(#f5f7fa, #1f2228);
    --attn-accent: light-dark(#2456c7, #8fb1ff);
    --attn-error: light-dark(#b3261e, #ff8a80);
    --attn-correct: light-dark(#1e7b34, #7ee08f);
    --attn-series-1: light-dark(#c0392b, #ff8a80); /* a chart's second series, beside the accent */
    --attn-ring-dark: #000; /* the highlight's two rings: the same on both themes */
    --attn-ring-light: #fff;
    --attn-font: system-ui, sans-serif;
    /* The heat scales' ends: unset (initial), so the built-in palettes apply until a host
       page sets both ends of a scale (colors.js, HOST_ENDS). */
    --attn-heat-low: initial;
    --attn-heat-high: initial;
    --attn-score-low: initial;
    --attn-score-zero: initial;
    --attn-score-high: initial;
  }
`;

const hostStyles = css`
  /* "auto" follows the host page's declared colour scheme, else the reader's system
     (shared/host-scheme.js sets --attn-auto-scheme); the theme attribute pins either. */
  :host {
    color-scheme: var(--attn-auto-scheme, light dark);
    display: block;
    container: attn / inline-size; /* the layouts follow the element's width, not the window's */
    color: var(--attn-fg);
    background: var(--attn-bg);
    font: 15px/1.45 var(--attn-font);
    border: 1px solid var(--attn-border);
    border-radius: 8px;
    padding: 12px;
  }
  :host([no-quiz]) {
    --attn-quiz-display: none;
  }
  :host([theme='light']) {
    color-scheme: light;
  }
  :host([theme='dark']) {
    color-scheme: dark;
  }
  @media (prefers-reduced-motion: reduce) {
    * {
      transition: none !important;
      animation: none !important;
    }
  }
  :focus-visible {
    outline: 3px solid var(--attn-accent);
    outline-offset: 1px;
  }
  h2,
  h3 {
    margin: 0.4em 0;
    font-size: 1.05em;
  }
  .controls {
    display: flex;
    flex-wrap: wrap;
    gap: 8px 14px;
    align-items: center;
  }
  .controls label {
    display: inline-flex;
    flex-wrap: wrap;
    gap: 4px;
    align-items: center;
    max-width: 100%;
  }
  /* A subscript right inside a label is a flex item of its own: take back the gap, so
     "d<sub>k</sub>" reads as dₖ and not "d k". */
  .controls label > sub {
    margin-inline-start: -4px;
  }
  .controls select {
    max-width: 100%;
    min-width: 0;
  }
  button,
  select,
  input {
    font: inherit;
    color: inherit;
  }
  button,
  select {
    background: var(--attn-panel);
    border: 1px solid var(--attn-border);
    border-radius: 6px;
    padding: 3px 9px;
    cursor: pointer;
  }
  button[aria-pressed='true'],
  button[aria-current='step'] {
    background: var(--attn-accent);
    color: var(--attn-bg);
  }
  input[type='number'] {
    width: 4.5em;
  }
  .message {
    min-height: 1.4em;
    margin: 6px 0;
    color: var(--attn-muted);
  }
  .message.empty {
    min-height: 0;
    margin: 0;
  }
  .message.error {
    color: var(--attn-error);
    font-weight: 600;
  }
  .formula {
    overflow-x: auto;
    font-size: 1.1em;
  }
  .explanation {
    min-height: 1.6em;
    padding: 6px 8px;
    margin: 8px 0;
    background: var(--attn-panel);
    border-radius: 6px;
    font-variant-numeric: tabular-nums;
    overflow-wrap: anywhere;
  }
  .shapes {
    color: var(--attn-muted);
    font-size: 0.9em;
  }
  details summary {
    cursor: pointer;
    color: var(--attn-muted);
  }
  [role='tablist'] {
    display: flex;
    flex-wrap: wrap;
    gap: 4px;
    margin-bottom: 8px;
    border-bottom: 1px solid var(--attn-border);
    padding-bottom: 6px;
  }
  /* A narrow element: the tabs in one scrolling strip, not five rows. Where more tabs lie
     beyond the right edge, a "›" on a fade says so (a clipped label alone does not); it goes
     once the strip is scrolled to its end, and a strip that fits has none (no scroll
     timeline, no cue), as the matrices' fades do (matrix-styles.js). */
  @container attn (max-width: 600px) {
    .tabs {
      position: relative;
      timeline-scope: --attn-tabs;
    }
    [role='tablist'] {
      flex-wrap: nowrap;
      overflow-x: auto;
      scrollbar-width: thin;
      scroll-timeline: --attn-tabs inline;
    }
    [role='tab'] {
      white-space: nowrap;
    }
    .tabs::after {
      content: '›' / '';
      position: absolute;
      top: 0;
      right: 0;
      bottom: 7px;
      width: 2.6em;
      display: flex;
      align-items: center;
      justify-content: flex-end;
      padding-right: 2px;
      font-size: 1.3em;
      font-weight: 700;
      color: var(--attn-accent);
      background: linear-gradient(to right, transparent, var(--attn-bg) 55%);
      pointer-events: none;
      opacity: 0;
      animation: attn-more-tabs linear both !important;
      animation-timeline: --attn-tabs !important; /* kept under reduced motion: it moves nothing */
    }
  }
  @keyframes attn-more-tabs {
    from,
    92% {
      opacity: 1;
    }
    to {
      opacity: 0;
    }
  }
  [role='tab'][aria-selected='true'] {
    background: var(--attn-accent);
    color: var(--attn-bg);
  }
  .lead {
    max-width: 70ch;
  }
  .figures {
    display: flex;
    flex-wrap: wrap;
    gap: 16px;
    align-items: flex-start;
  }
  svg.chart,
  svg.plot {
    width: min(100%, 440px);
    height: auto;
    font-size: 11px;
    overflow: visible;
  }
  svg text {
    fill: var(--attn-fg);
  }
  .axis line {
    stroke: var(--attn-muted);
  }
  svg polyline {
    fill: none;
    stroke-width: 2;
  }
  svg .dashed {
    stroke-dasharray: 5 4;
  }
  .series line {
    stroke-width: 2;
  }
  .series-0 polyline,
  .series-0 line {
    stroke: var(--attn-accent);
  }
  .series-0 circle {
    fill: var(--attn-accent);
  }
  .series-1 polyline,
  .series-1 line {
    stroke: var(--attn-series-1);
  }
  .series-1 circle {
    fill: var(--attn-series-1);
  }
  .series-2 polyline,
  .series-2 line {
    stroke: var(--attn-muted);
  }
  .series-2 circle {
    fill: var(--attn-muted);
  }
  .correct {
    color: var(--attn-correct);
    font-weight: 600;
  }
  .wrong {
    color: var(--attn-error);
    font-weight: 600;
  }
`;

/** Every part's styles: the host's, the matrices' (matrix-styles.js), and the question forms' and charts' (form-styles.js). */
const baseStyles = [hostStyles, matrixStyles, formStyles];

/** <attn-lab>'s own: the theme's defaults, then every part's styles. */
export const elementStyles = [themeStyles, baseStyles];

/** For a view nested inside <attn-lab>: the host draws the frame already. */
export const viewStyles = [
  baseStyles,
  css`
    :host {
      border: 0;
      padding: 0;
      border-radius: 0;
      color-scheme: inherit; /* the host's theme attribute decides, not the system */
    }
  `,
];
