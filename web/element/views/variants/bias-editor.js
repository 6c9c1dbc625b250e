// The learner's additive bias: the 6×6 matrix B as buttons, each click turning a cell to the
// next of 0, +1, −1, −∞. The numbers it adds are shown by the core's bias step.
import { html } from 'lit';

import { BIAS_CODES, BIAS_CYCLE, TOKENS } from './example.js';

const text = (code) => ({ 0: '0', '+': '+1', '-': '−1', x: '−∞' })[code];

export function renderBiasEditor(code, change) {
  const n = TOKENS.length;
  const next = (i) => `${code.slice(0, i)}${BIAS_CYCLE[(BIAS_CYCLE.indexOf(code[i]) + 1) % BIAS_CYCLE.length]}${code.slice(i + 1)}`;
  return html`<section data-role="bias-editor">
    <h3>The bias B (click a cell: 0 → +1 → −1 → −∞)</h3>
    <div class="scroll-x"><table class="bias-editor">
      <thead><tr><td></td>${TOKENS.map((t) => html`<th scope="col">${t}</th>`)}</tr></thead>
      <tbody>
        ${TOKENS.map(
          (query, r) =>
            html`<tr><th scope="row">${query}</th>${TOKENS.map((key, c) => {
              const i = r * n + c;
              return html`<td><button data-bias-cell=${i} data-value=${String(BIAS_CODES[code[i]])} aria-label="bias for ${query} to ${key}: ${text(code[i])}" @click=${() => change(next(i))}>${text(code[i])}</button></td>`;
            })}</tr>`,
        )}
      </tbody>
    </table></div>
  </section>`;
}
