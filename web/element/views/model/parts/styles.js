// The styles of the model view's parts (in-context, interventions, roles, rollout): the loss
// charts, the token strips, the tables of heads; on top of the view's own.
import { css } from 'lit';

import { modelStyles } from '../styles.js';

export const partStyles = [
  modelStyles,
  css`
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
    /* A row of tokens, each with a weight 0 … 1 (--w) as a bar and the value under it. */
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
      padding-bottom: 6px;
      /* The weight as a bar along the bottom: the text stays on the panel's colour, readable. */
      background:
        linear-gradient(to right, var(--attn-accent) calc(var(--w) * 100%), transparent 0) bottom / 100% 4px no-repeat,
        var(--attn-panel);
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
