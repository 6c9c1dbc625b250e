// The flash view: the grid of tiles and the tables of one tile visit.
import { css } from 'lit';

import { viewStyles } from '../../shared/styles.js';

export const flashStyles = [
  viewStyles,
  css`
    .walk {
      display: flex;
      flex-wrap: wrap;
      gap: 16px;
      align-items: flex-start;
    }
    .grid {
      margin: 0;
      max-width: 260px;
    }
    .grid td {
      width: 26px;
      height: 26px;
      min-width: 0;
      padding: 0;
    }
    .grid td[data-state='current'] {
      background: var(--attn-accent);
    }
    .grid td[data-state='visited'] {
      background: color-mix(in oklab, var(--attn-accent) 30%, var(--attn-bg));
    }
    .grid td[data-state='skipped'] {
      background: repeating-linear-gradient(135deg, var(--attn-panel) 0 4px, var(--attn-bg) 4px 8px);
    }
    .grid th.active {
      color: var(--attn-accent);
    }
    .grid figcaption {
      color: var(--attn-muted);
      font-size: 0.85em;
    }
    .event {
      flex: 1 1 320px;
      min-width: 0;
    }
  `,
];
