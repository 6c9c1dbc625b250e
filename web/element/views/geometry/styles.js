// The geometry view: the plane's points and the simplex. Shapes differ too, not only colours.
import { css } from 'lit';

import { viewStyles } from '../../shared/styles.js';

export const geometryStyles = [
  viewStyles,
  css`
    :host {
      --geo-key: light-dark(#a34a00, #ffb366);
      --geo-value: var(--attn-accent);
      --geo-query: var(--attn-correct);
      --geo-output: var(--attn-error);
    }
    .plot-figure {
      margin: 0;
    }
    .plot-figure figcaption {
      color: var(--attn-muted);
      font-size: 0.9em;
      max-width: 440px;
    }
    svg.plot polygon.hull {
      fill: color-mix(in srgb, var(--geo-value) 14%, transparent);
      stroke: var(--geo-value);
      stroke-dasharray: 4 3;
    }
    svg.plot .key-vector {
      stroke: var(--geo-key);
      stroke-dasharray: 2 3;
    }
    svg.plot .query-vector {
      stroke: var(--geo-query);
      stroke-width: 1.5;
    }
    svg.plot .pull {
      stroke: var(--geo-output);
      opacity: 0.55;
    }
    .handle {
      cursor: grab;
      touch-action: none;
    }
    .handle:focus {
      outline: none;
    }
    .handle:focus-visible > :first-child {
      stroke: var(--attn-fg);
      stroke-width: 3;
    }
    .handle.key rect {
      fill: var(--geo-key);
    }
    .handle.value circle {
      fill: var(--geo-value);
    }
    .handle.query circle {
      fill: color-mix(in srgb, var(--geo-query) 25%, transparent);
      stroke: var(--geo-query);
      stroke-width: 2.5;
    }
    .handle.query circle.dot {
      fill: var(--geo-query);
      stroke: none;
    }
    .output path {
      fill: var(--geo-output);
    }
    svg.plot polygon.simplex {
      fill: var(--attn-panel);
      stroke: var(--attn-muted);
    }
    svg.plot .corner {
      fill: var(--geo-key);
    }
    svg.plot .uniform path {
      stroke: var(--attn-muted);
    }
    svg.plot .uniform text {
      fill: var(--attn-muted);
    }
    svg.plot .weights-point {
      fill: var(--geo-query);
      stroke: var(--attn-fg);
    }
    .combination {
      font-variant-numeric: tabular-nums;
    }
  `,
];
