// The positions view: the compact encoding heatmap and the sentences as rows of words.
import { css } from 'lit';

import { viewStyles } from '../../shared/styles.js';

export const positionsStyles = [
  viewStyles,
  css`
    /* Cells big enough to see and point at, labels at a reading size: a wide encoding
       scrolls inside its own box (figure.matrix) rather than shrinking. */
    table.encoding td {
      min-width: 0;
      width: 20px;
      height: 20px;
      padding: 0;
      border: 0;
    }
    table.encoding th {
      min-width: 20px;
      padding: 0 3px;
      font-size: 0.8em;
      line-height: 20px;
      border: 0;
      background: none;
      color: var(--attn-muted);
    }
    table.encoding td:focus-visible {
      outline-offset: -1px;
    }
    ol.sentence {
      display: flex;
      flex-wrap: wrap;
      gap: 4px;
      list-style: none;
      padding: 0;
      margin: 2px 0;
    }
    .sentence li {
      border: 1px solid var(--attn-border);
      border-radius: 4px;
      padding: 0 6px;
      background: var(--attn-panel);
    }
    .sentence li.moved {
      border-color: var(--attn-accent);
    }
    .verdict {
      font-size: 1.05em;
    }
  `,
];
