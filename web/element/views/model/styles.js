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
  `,
];
