// The variants view: the switches, the step's panels, the KV cache and its bytes table.
import { css } from 'lit';

import { viewStyles } from '../../shared/styles.js';
import { sumColumnStyles } from '../../stepper/styles.js';

export const variantsStyles = [
  viewStyles,
  sumColumnStyles,
  css`
    .switches {
      display: flex;
      flex-wrap: wrap;
      gap: 8px 16px;
      align-items: center;
      border: 1px solid var(--attn-border);
      border-radius: 6px;
      padding: 8px 12px;
    }
    .steps {
      display: flex;
      flex-wrap: wrap;
      gap: 4px;
      list-style: none;
      padding: 0;
      margin: 12px 0;
    }
    .steps button[aria-current='step'] {
      background: var(--attn-accent);
      color: var(--attn-bg);
    }
    /* One head per row: its operands and result side by side, as wide as the view allows. */
    .panels {
      display: grid;
      gap: 16px;
    }
    /* A panel may be narrower than its formula or matrices: they scroll (matrix-styles.js). */
    .panel {
      min-width: 0;
      max-width: 100%;
    }
    .panel .matrices {
      display: flex;
      flex-wrap: wrap;
      gap: 8px;
      align-items: flex-start;
    }
    table.bytes {
      border-collapse: collapse;
      font-variant-numeric: tabular-nums;
    }
    table.bytes th,
    table.bytes td {
      padding: 2px 8px;
      text-align: right;
      border-bottom: 1px solid var(--attn-border);
    }
    .alignments {
      display: flex;
      flex-wrap: wrap;
      gap: 8px 24px;
    }
    .alignment {
      flex: 1 1 320px;
      min-width: 0;
      max-width: 100%;
    }
    .alignment h4 {
      margin: 4px 0;
    }
    table.bias-editor button {
      min-width: 2.6em;
      font-variant-numeric: tabular-nums;
    }
    table.bias-editor th {
      padding: 0 4px;
      font-weight: normal;
    }
    table.bytes th[scope='row'] {
      text-align: left;
    }
    /* A phone: the step leads, as on the page. The switches and the steps are one scrolling
       row each, and each head shows its result before the matrices that feed it. */
    @container attn (max-width: 600px) {
      .switches,
      .steps {
        flex-wrap: nowrap;
        overflow-x: auto;
        scrollbar-width: thin;
      }
      fieldset.switches {
        min-width: 0; /* a fieldset is as wide as its content by default: it would widen the page */
      }
      .switches > *,
      .steps button {
        flex: none;
        white-space: nowrap;
      }
      .panel .matrices > figure:last-of-type {
        order: -1;
      }
    }
  `,
];
