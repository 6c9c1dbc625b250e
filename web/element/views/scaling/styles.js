// The scaling view: the summary of one d_k as a two-column list.
import { css } from 'lit';

import { viewStyles } from '../../shared/styles.js';

export const scalingStyles = [
  viewStyles,
  css`
    dl.summary {
      display: grid;
      grid-template-columns: max-content 1fr;
      gap: 2px 12px;
      font-variant-numeric: tabular-nums;
    }
    dl.summary dd {
      margin: 0;
    }
  `,
];
