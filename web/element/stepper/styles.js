// The stepper's own rules: the step navigation, the token row, the step panel and
// predict, then reveal. The host element (attn-lab.js) uses them over the base styles.
import { css } from 'lit';

/**
 * The weights' Σ column on a narrow element (the stepper's and the variants view's): tighter
 * cells, so 4 keys and Σ fit 340 px; a wider row keeps Σ at the right edge while its keys
 * scroll beneath it, with the fade on the left only, so Σ is never hidden behind the fade.
 */
export const sumColumnStyles = css`
  @container attn (max-width: 480px) {
    table:has(td.total) :is(th, td) {
      padding: 2px;
      min-width: 2.2em;
      font-size: 0.88em;
    }
    figure.matrix:has(td.total) {
      mask-image: linear-gradient(to right, transparent, #000 var(--attn-fade-start));
    }
    table:has(td.total) :is(td.total, th[title='row sum']) {
      position: sticky;
      right: 0;
      background: var(--attn-bg);
      box-shadow: -5px 0 5px -3px color-mix(in srgb, var(--attn-fg) 25%, transparent);
    }
    table:has(td.total) th[title='row sum'] {
      background: var(--attn-panel);
    }
  }
`;

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
  .many-tokens .tokens {
    max-height: 12em;
    overflow: auto;
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
  section.step.divided {
    border-top: 1px solid var(--attn-border);
    margin-top: 8px;
    padding-top: 6px;
  }
  /* Result first: the steps and the step on view lead. A wide element puts the options and
     inputs in a column beside them; a narrow one puts them below, behind a jump button, lays
     the steps out as a scrolling strip and shows each step's result before its operands. */
  .setup:focus {
    outline: none;
  }
  .setup > .controls {
    margin-bottom: 8px;
  }
  .to-setup {
    margin-left: auto;
    font-size: 0.9em;
  }
  @container attn (min-width: 900px) {
    .stepper-layout {
      display: grid;
      grid-template-columns: minmax(0, 1fr) minmax(18rem, 25rem);
      gap: 0 18px;
      align-items: start;
    }
    .setup {
      border-left: 1px solid var(--attn-border);
      padding-left: 14px;
    }
    .to-setup {
      display: none;
    }
  }
  @container attn (max-width: 600px) {
    .nav {
      gap: 6px;
    }
    .nav button {
      padding: 3px 7px;
    }
    .setup {
      border-top: 1px solid var(--attn-border);
      margin-top: 12px;
      padding-top: 6px;
    }
    ol.steps {
      flex-wrap: nowrap;
      overflow-x: auto;
      padding-bottom: 4px;
    }
    ol.steps button {
      white-space: nowrap;
    }
    section.step [data-role='result'] {
      order: -1;
    }
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
  /* Where a state opened from a view came from, and the way back to it. */
  .origin {
    display: flex;
    flex-wrap: wrap;
    gap: 6px 10px;
    align-items: center;
    margin: 0 0 8px;
  }
`;
