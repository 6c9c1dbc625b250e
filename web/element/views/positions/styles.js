// The positions view: the compact encoding heatmap and the sentences as rows of words.
import { css } from 'lit';

import { viewStyles } from '../../shared/styles.js';

export const positionsStyles = [
  viewStyles,
  css`
    table.encoding td {
      min-width: 0;
      width: 12px;
      height: 12px;
      padding: 0;
      border: 0;
    }
    table.encoding th {
      min-width: 0;
      padding: 0 2px;
      font-size: 0.65em;
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
