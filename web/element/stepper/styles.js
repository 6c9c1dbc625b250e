// The stepper's own rules: the step navigation, the token row, the step panel and
// predict, then reveal. The host element (attn-lab.js) uses them over the base styles.
import { css } from 'lit';

export const stepperStyles = css`
  /* An embed that leads with its step: the result before the matrices that feed it. */
  .result-first [data-role='result'] {
    order: -1;
  }
  details.inputs > summary {
    cursor: pointer;
    margin: 8px 0;
  }
  /* What the step does and why, with its live numbers. */
  .why {
    max-width: 72ch;
    border-left: 3px solid var(--attn-accent);
    padding: 2px 0 2px 12px;
    margin: 8px 0 12px;
  }
  .why p {
    margin: 4px 0;
  }
  [data-role='why-live'] {
    color: var(--attn-muted);
  }
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
  /* The export buttons sit apart from the last matrix above them. */
  .controls.export {
    margin-top: 14px;
    gap: 8px;
  }
`;
