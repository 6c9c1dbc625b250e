// The question forms (the quizzes, shared/topic-quiz.js, and predict, then reveal,
// stepper/predict.js) and the charts (shared/bars.js), part of every view's base styles.
import { css } from 'lit';

export const formStyles = css`
  /* Quizzes (shared/topic-quiz.js) and predict, then reveal (stepper/predict.js) use these. */
  fieldset {
    border: 1px solid var(--attn-border);
    border-radius: 6px;
    margin: 8px 0;
    padding: 6px 10px;
  }
  legend {
    padding: 0 4px;
    max-width: 70ch;
  }
  label.option {
    display: block;
    padding: 2px 0;
    cursor: pointer;
  }
  label.option input {
    margin-right: 6px;
  }
  section.quiz {
    border-top: 1px solid var(--attn-border);
    margin-top: 16px;
    padding-top: 8px;
    max-width: 80ch;
  }
  section.quiz button:disabled {
    cursor: not-allowed;
    opacity: 0.55;
  }
  /* Bar charts (shared/bars.js) and a chart's figure. */
  svg.bars .series-0 rect {
    fill: var(--attn-accent);
  }
  svg.bars .series-1 rect {
    fill: var(--attn-series-1);
  }
  figure[data-role$='-chart'] {
    margin: 0;
    width: min(100%, 440px);
  }
`;
