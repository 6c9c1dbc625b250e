// The tokens view: the sentence, the head view's lines and the heads' thumbnails.
import { css } from 'lit';

import { viewStyles } from '../../shared/styles.js';

export const tokensStyles = [
  viewStyles,
  css`
    .sentence {
      display: flex;
      flex-wrap: wrap;
      gap: 6px;
      margin: 10px 0;
    }
    .sentence button[aria-pressed='true'],
    [data-control='head'][aria-pressed='true'] {
      background: var(--attn-accent);
      color: var(--attn-bg);
    }
    .figures {
      display: flex;
      flex-wrap: wrap;
      gap: 16px;
      align-items: flex-start;
    }
    figure {
      margin: 0;
      max-width: 100%;
    }
    .token-lines {
      max-width: 100%;
      height: auto;
    }
    .token-lines line {
      stroke: var(--attn-accent);
      stroke-linecap: round;
    }
    .token-lines text {
      fill: var(--attn-fg);
      font-size: 14px;
    }
    .token-lines text.focus {
      font-weight: 700;
      fill: var(--attn-accent);
    }
    figcaption {
      max-width: 320px;
      color: var(--attn-muted);
    }
    .hint {
      color: var(--attn-muted);
      font-size: 0.9em;
    }
    .thumbnails {
      display: flex;
      flex-wrap: wrap;
      gap: 12px;
      padding: 0;
      list-style: none;
    }
    .thumbnails li {
      border: 1px solid var(--attn-border);
      border-radius: 8px;
      padding: 6px;
      max-width: 100%;
    }
    .thumbnails li.current {
      border-color: var(--attn-accent);
    }
    .thumbnails table {
      font-size: 0.75em;
    }
  `,
];
