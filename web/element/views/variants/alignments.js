// The two causal alignments side by side when there are fewer queries than keys: the last
// queries of the example against all its keys, under top-left and under bottom-right. Which
// keys each query may see is the core's mask step (blockedBy), its weights the core's softmax.
import { html } from 'lit';

import { WEIGHT_SCALE } from '../../shared/colors.js';
import { matrixTable } from '../../shared/matrix-table.js';
import { ALIGNMENT_QUERIES, ALIGNMENTS, TOKENS } from './example.js';

const SAYS = {
  'top-left': (q) => `query i sits at key i: “${q[0]}”, the ${TOKENS.length - 1}th token, sees only the first key, as if it stood at the start.`,
  'bottom-right': () => `query i sits at key i + ${TOKENS.length} − ${ALIGNMENT_QUERIES}: the last query sees every key, the one before all but the last.`,
};

/** The alignments part: per alignment, head 1's “may see” grid and its weights. */
export function renderAlignments(traces) {
  const queries = TOKENS.slice(-ALIGNMENT_QUERIES);
  return html`<section data-role="alignments">
    <h3>Causal with ${ALIGNMENT_QUERIES} queries and ${TOKENS.length} keys: top-left or bottom-right (the causal mask only)</h3>
    <div class="alignments">
      ${ALIGNMENTS.map((alignment) => {
        const trace = traces[alignment];
        const mask = trace.steps.find((s) => s.id === 'mask' && s.head === 0);
        const weights = trace.steps.find((s) => s.id === 'softmax' && s.head === 0);
        return html`<div class="alignment" data-alignment=${alignment}>
          <h4>${alignment}</h4>
          <p>${SAYS[alignment](queries)}</p>
          ${matrixTable({ name: `sees-${alignment}`, caption: 'may see (head 1)', values: mask.blockedBy, rowLabels: queries, colLabels: TOKENS, format: (v) => (v ? '✕' : '✓'), blocked: mask.blockedBy.map((row) => row.map(Boolean)) })}
          ${matrixTable({ name: `weights-${alignment}`, caption: 'weights (head 1)', values: weights.values, rowLabels: queries, colLabels: TOKENS, scale: WEIGHT_SCALE })}
        </div>`;
      })}
    </div>
    <p data-role="why-bottom-right">
      Generation is the case q &lt; k: a decoder with a cache computes the newest token’s query against every cached key.
      That query is the last token of the sequence, so it must see every key up to its own: bottom-right. Top-left
      would place it at the start and hide almost the whole cache from it. PyTorch’s is_causal is top-left
      (causal_lower_right is bottom-right); ONNX’s Attention with a past_key is bottom-right.
    </p>
  </section>`;
}
