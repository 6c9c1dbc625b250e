// The stepper's own rules: the step navigation, the token row, the step panel and
// predict, then reveal. The host element (attn-lab.js) uses them over the base styles.
import { css } from 'lit';

export const stepperStyles = css`
  .nav {
    display: flex;
    flex-wrap: wrap;
    gap: 8px 14px;
    align-items: center;
  }
  .tokens input {
    width: 5.5em;
  }
  /* A row of chips: the steps. */
  ol.steps {
    display: flex;
    flex-wrap: wrap;
    gap: 4px;
    list-style: none;
    padding: 0;
    margin: 6px 0;
  }
  input[data-control='step'] {
    flex: 1 1 160px;
  }
  section.step {
    border-top: 1px solid var(--attn-border);
    margin-top: 8px;
    padding-top: 6px;
  }
  /* While a result cell is explained, its explanation stays on screen (at the bottom edge
     when the step is taller than the screen, as with two heads), not a screen away below. */
  section.step:has(td.hl-cell) > .explanation {
    position: sticky;
    bottom: 0;
    z-index: 1;
    border: 1px solid var(--attn-accent);
    box-shadow: 0 -3px 10px color-mix(in srgb, var(--attn-fg) 18%, transparent);
  }
  /* Predict, then reveal (stepper/predict.js). */
  form.predict {
    background: var(--attn-panel);
    border-radius: 6px;
    padding: 4px 10px 8px;
    margin: 6px 0;
  }
  form.predict button[type='submit'] {
    background: var(--attn-accent);
    color: var(--attn-bg);
  }
  form.predict button:disabled {
    cursor: not-allowed;
    opacity: 0.55;
  }
  .hidden-result {
    color: var(--attn-muted);
    font-style: italic;
    border: 1px dashed var(--attn-border);
    border-radius: 6px;
    padding: 12px;
  }
`;
