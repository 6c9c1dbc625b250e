// The patterns view: the gallery's cards and the exercise.
import { css } from 'lit';

import { viewStyles } from '../../shared/styles.js';

export const patternsStyles = [
  viewStyles,
  css`
    .gallery {
      display: grid;
      grid-template-columns: repeat(auto-fill, minmax(330px, 1fr));
      gap: 12px;
      padding: 0;
      list-style: none;
    }
    .card {
      border: 1px solid var(--attn-border);
      border-radius: 8px;
      padding: 8px 10px;
      background: var(--attn-panel);
    }
    .card p {
      margin: 0.3em 0;
    }
    .card table,
    .exercise table {
      background: var(--attn-bg);
      font-size: 0.8em;
    }
    .card th,
    .card td {
      min-width: 0;
      padding: 1px 3px;
    }
    .choices {
      display: flex;
      flex-wrap: wrap;
      gap: 6px;
      margin: 8px 0;
    }
    .choices button:disabled {
      cursor: default;
    }
  `,
];
