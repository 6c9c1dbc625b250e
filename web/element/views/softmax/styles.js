// The softmax view: the stage tables and the stable and naive panels side by side.
import { css } from 'lit';

import { viewStyles } from '../../shared/styles.js';

export const softmaxStyles = [
  viewStyles,
  css`
    table[data-role$='stages'] th[scope='row'] {
      text-align: left;
      font-weight: 500;
      min-width: 11em;
    }
    table[data-role$='stages'] th .formula {
      font-size: 0.95em;
    }
    section[data-role='naive'] {
      border: 1px dashed var(--attn-error);
      border-radius: 6px;
      padding: 4px 10px;
    }
    section[data-role='stable'],
    section[data-role='naive'] {
      flex: 1 1 360px;
      max-width: 100%;
      min-width: 0;
    }
  `,
];
