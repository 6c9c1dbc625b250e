// The self-check view: the progress table's counts, centred.
import { css } from 'lit';

import { viewStyles } from '../../shared/styles.js';

export const quizStyles = [
  viewStyles,
  css`
    table[data-role='progress'] td {
      text-align: center;
    }
  `,
];
