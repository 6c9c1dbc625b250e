// The model view: the text's tokens, the next-token bars and the grid of head thumbnails.
import { css } from 'lit';

import { viewStyles } from '../../shared/styles.js';

export const modelStyles = [
  viewStyles,
  css`
    textarea {
      box-sizing: border-box;
      width: 100%;
      min-height: 3.2em;
      font: inherit;
      color: var(--attn-fg);
      background: var(--attn-bg);
      border: 1px solid var(--attn-border);
      border-radius: 4px;
      padding: 4px 6px;
    }
    .text-field {
      display: block;
      margin: 8px 0;
    }
    .controls input[type='number'] {
      width: 5em;
    }
    /* Each token a box, so where one ends and the next starts is plain; a space shows as ␣. */
    .tokens {
      display: flex;
      flex-wrap: wrap;
      gap: 3px;
      margin: 8px 0;
      padding: 0;
      list-style: none;
      font-family: ui-monospace, monospace;
      font-size: 14px;
    }
    .tokens li {
      border: 1px solid var(--attn-border);
      border-radius: 3px;
      padding: 1px 3px;
      background: var(--attn-panel);
      white-space: pre;
    }
    .tokens li.generated {
      border-color: var(--attn-accent);
      border-style: dashed;
    }
    .tokens .space {
      color: var(--attn-muted);
    }
    .next {
      margin-bottom: 8px;
      border-collapse: collapse;
      width: 100%;
      max-width: 34rem;
    }
    .next th,
    .next td {
      padding: 2px 6px;
      text-align: left;
      font-weight: normal;
    }
    .next td.probability {
      width: 75%;
    }
    .next td.piece {
      font-family: ui-monospace, monospace;
      white-space: pre;
    }
    .next .bar-cell {
      display: flex;
      gap: 8px;
      align-items: center;
    }
    .next .bar-cell span {
      min-width: 3.5em;
      text-align: right;
      font-variant-numeric: tabular-nums;
    }
    .next svg {
      flex: 1;
      height: 14px;
    }
    .next rect {
      fill: var(--attn-accent);
    }
    .layer {
      margin: 10px 0;
    }
    .layer h4 {
      margin: 4px 0;
    }
    .heads {
      display: grid;
      grid-template-columns: repeat(auto-fill, minmax(150px, 1fr));
      gap: 10px;
      padding: 0;
      margin: 0;
      list-style: none;
    }
    .heads li {
      border: 1px solid var(--attn-border);
      border-radius: 6px;
      padding: 6px;
      background: var(--attn-panel);
    }
    .heads canvas {
      display: block;
      box-sizing: border-box;
      width: 100%;
      aspect-ratio: 1;
      image-rendering: pixelated;
      cursor: pointer;
      border: 4px solid var(--attn-bg);
    }
    .heads .sentence {
      margin: 2px 0 4px;
      font-size: 13px;
    }
    .card-actions {
      display: flex;
      flex-wrap: wrap;
      gap: 4px;
    }
    .card-actions button {
      flex: 1 1 auto;
      font-size: 12px;
    }
    .heads .role {
      margin: 4px 0 2px;
      font-size: 13px;
    }
    h3 {
      margin-top: 1em;
    }
    pre {
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      font-size: 13px;
    }
    .heads .scores {
      margin: 0 0 4px;
      font-size: 12px;
      color: var(--attn-muted);
      font-variant-numeric: tabular-nums;
    }
    /* The loss charts: one line per series, the second dashed (told apart without colour too). */
    .chart {
      display: block;
      width: 100%;
      max-width: 640px;
      margin: 8px 0;
    }
    .chart svg {
      display: block;
      width: 100%;
      max-width: 640px;
      height: auto;
    }
    .chart .grid {
      stroke: var(--attn-border);
      stroke-width: 1;
    }
    .chart .tick {
      fill: var(--attn-muted);
      font-size: 15px;
      text-anchor: end;
    }
    .chart text.tick:last-of-type {
      text-anchor: middle;
    }
    .chart path.line {
      fill: none;
      stroke-width: 2;
    }
    .line-0 {
      stroke: var(--attn-accent);
      background: var(--attn-accent);
    }
    .line-1 {
      stroke: var(--attn-series-1);
      background: var(--attn-series-1);
    }
    .chart path.dashed {
      stroke-dasharray: 6 4;
    }
    .legend {
      display: flex;
      flex-wrap: wrap;
      gap: 4px 16px;
      padding: 0;
      margin: 4px 0;
      list-style: none;
      font-size: 13px;
    }
    .legend .swatch {
      display: inline-block;
      width: 18px;
      height: 3px;
      margin-right: 6px;
      vertical-align: middle;
    }
    /* A row of tokens shaded by a weight 0 … 1 (--w), the value under each. */
    .strip {
      display: flex;
      flex-wrap: wrap;
      gap: 3px;
      margin: 6px 0 10px;
    }
    .strip .cell {
      display: inline-flex;
      flex-direction: column;
      align-items: center;
      min-width: 2.6em;
      padding: 1px 3px;
      border: 1px solid var(--attn-border);
      border-radius: 3px;
      background: color-mix(in srgb, var(--attn-accent) calc(var(--w) * 100%), var(--attn-panel));
    }
    .strip .piece {
      font-family: ui-monospace, monospace;
      font-size: 13px;
      white-space: pre;
    }
    .strip .value {
      font-size: 11px;
      font-variant-numeric: tabular-nums;
    }
    .ranking {
      border-collapse: collapse;
      margin: 6px 0;
      font-size: 13px;
      font-variant-numeric: tabular-nums;
    }
    .ranking th,
    .ranking td {
      padding: 2px 8px;
      border-bottom: 1px solid var(--attn-border);
      text-align: left;
      font-weight: normal;
    }
    .ablate {
      font-size: 13px;
      white-space: nowrap;
    }
    .roles dt {
      font-weight: bold;
      margin-top: 6px;
    }
    .roles dd {
      margin-left: 1em;
    }
  `,
];
