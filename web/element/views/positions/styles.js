// The positions view: the compact encoding heatmap and the sentences as rows of words.
import { css } from 'lit';

import { viewStyles } from '../../shared/styles.js';

export const positionsStyles = [
  viewStyles,
  css`
    /* Cells big enough to see and point at, labels at a reading size: 20 px, or on a narrow
       element as much as the columns (--cols) share of the view's width, down to 12 px, so the
       default 16 dimensions fit a phone. A wider encoding scrolls inside its own box
       (figure.matrix, with its fade) rather than shrinking further. */
    table.encoding {
      --cell: clamp(12px, (100cqi - 32px) / var(--cols, 16), 20px);
    }
    table.encoding td {
      min-width: 0;
      width: var(--cell);
      height: var(--cell);
      padding: 0;
      border: 0;
    }
    table.encoding th {
      min-width: 0;
      padding: 0 3px;
      font-size: 0.8em;
      line-height: var(--cell);
      border: 0;
      background: none;
      color: var(--attn-muted);
    }
    table.encoding thead th {
      padding: 0; /* a column's number takes no more room than its cells */
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
