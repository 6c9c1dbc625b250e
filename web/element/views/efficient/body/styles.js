// The efficient view: the controls, the two weight matrices side by side, the error and cost
// tables, the recurrent part. On a phone the controls wrap and each matrix scrolls in its box.
import { css } from 'lit';

import { scrollCue } from '../../../shared/matrix-styles.js';
import { viewStyles } from '../../../shared/styles.js';

export const efficientStyles = [
  viewStyles,
  scrollCue,
  css`
    fieldset.controls {
      border: 1px solid var(--attn-border);
      border-radius: 6px;
      padding: 8px 12px;
      min-width: 0; /* a fieldset is as wide as its content by default: it would widen the page */
    }
    /* A family's formula in parts, side by side, each on a line of its own on a phone. */
    .formulas {
      display: flex;
      flex-wrap: wrap;
      justify-content: center;
      align-items: center;
      column-gap: 1.5em;
    }
    .matrices {
      display: flex;
      flex-wrap: wrap;
      gap: 8px 16px;
      align-items: flex-start;
    }
    .matrices > * {
      min-width: 0;
      max-width: 100%;
    }
    /* The two weight matrices stay side by side at a laptop's width: tighter cells than elsewhere. */
    [data-role='weights'] td,
    [data-role='weights'] th {
      padding: 2px 3px;
      font-size: 0.85em;
    }
    .why p {
      max-width: 75ch;
      margin: 4px 0;
    }
    table.errors,
    table.cost {
      border-collapse: collapse;
      font-variant-numeric: tabular-nums;
    }
    table.errors th,
    table.errors td,
    table.cost th,
    table.cost td {
      padding: 2px 8px;
      text-align: right;
      border-bottom: 1px solid var(--attn-border);
    }
    table.cost caption {
      text-align: left;
      padding-bottom: 4px;
    }
    section {
      margin: 12px 0;
    }
  `,
];
