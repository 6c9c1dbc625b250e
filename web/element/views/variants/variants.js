// The variants view: one tiny example, and each change that modern models make to attention
// as a switch: cross-attention, RoPE, ALiBi, a sliding window (symmetric or { left, right })
// with a global token, softcap, an additive bias, the two causal alignments, shared K and V
// (multi-query and grouped-query), dropout on the weights, and the KV cache (from the first
// token or continuing from a past cache). Every number is the core's trace (lab.trace with the
// variant's fields) or its token-by-token decode (lab.decode); the steps are drawn and
// explained by the stepper's registry.
import { html, nothing } from 'lit';

import { formula } from '../../shared/formula.js';
import { shape } from '../../shared/format.js';
import { matrixTable } from '../../shared/matrix-table.js';
import { defineView, ViewBase } from '../../shared/view-base.js';
import { isNumberIn, SEED_FIELD, wholeField } from '../../shared/view-state.js';
import { blockedWeights, stepPanels } from '../../steps/panels.js';
import { stepEntry, stepScales } from '../../steps/registry.js';
import { renderAlignments } from './alignments.js';
import { renderBiasEditor } from './bias-editor.js';
import { alignmentRequest, ALIGNMENTS, decodeRequest, exampleLabels, HEADS, isBiasCode, pastOf, TOKENS, variantRequest } from './example.js';
import { renderCacheBytes, renderDecode } from './kv-cache.js';
import { renderSoftcapRow } from './softcap-row.js';
import { SOFTCAPS, VARIANTS } from './switches.js';
import { variantsStyles } from './styles.js';
import '../../shared/topic-quiz.js';

const flag = [false, (v) => typeof v === 'boolean', 'true or false'];
const FIELDS = {
  cross: flag,
  causal: flag,
  rope: flag,
  alibi: flag,
  window: wholeField(0, 0, TOKENS.length), // 0: no window
  global: flag, // the first token is global (with a window only)
  asymmetric: flag, // the window is { left, right } instead of |i − j| < window
  left: wholeField(2, 0, TOKENS.length - 1), // keys behind, with asymmetric
  right: wholeField(0, 0, TOKENS.length - 1), // keys ahead, with asymmetric
  softcap: [0, (v) => v === 0 || SOFTCAPS.includes(v), `0 (off) or one of ${SOFTCAPS.join(', ')}`],
  bias: ['', isBiasCode, `'' (off) or ${TOKENS.length ** 2} characters, one per cell: 0, + (+1), - (−1) or x (−∞)`],
  alignments: flag, // the two causal alignments side by side
  kvHeads: [HEADS, (v) => [1, 2, 4].includes(v), 'one of 1, 2 or 4'],
  dropout: [0, isNumberIn(0, 0.9), 'a number from 0 to 0.9'],
  seed: SEED_FIELD,
  kvCache: flag,
  past: wholeField(0, 0, TOKENS.length - 2), // decode from a cache of the first `past` tokens
  position: wholeField(TOKENS.length - 1, 0, TOKENS.length - 1), // the decoded token on view
  head: wholeField(0, 0, HEADS - 1), // the head the KV cache part shows
  step: ['', (v) => typeof v === 'string' && v.length <= 40, 'a step id'], // '' : the last switch's step
};

const HEADING = 'Variants: what modern models change';

class VariantsView extends ViewBase {
  static styles = variantsStyles;

  static properties = { ...ViewBase.properties, _focus: { state: true } };

  // Only what reaches the core asks it again; what is on view (a step, a position) does not.
  computeKey(viewState) {
    const request = variantRequest(viewState);
    const v = viewState;
    return JSON.stringify([
      request.kvHeads,
      request.causal,
      request.rope,
      request.alibi,
      request.window,
      request.globalTokens,
      request.dropout,
      request.dropoutSeed,
      Boolean(request.context),
      request.softcap,
      v.cross ? '' : v.bias,
      v.kvCache,
      v.kvCache && pastOf(v),
      v.alignments && !v.cross,
    ]);
  }

  compute(lab, viewState) {
    const trace = lab.trace(variantRequest(viewState));
    // The alignments part is self-attention's: its keys are the six tokens.
    const alignments =
      viewState.alignments && !viewState.cross ? Object.fromEntries(ALIGNMENTS.map((a) => [a, lab.trace(alignmentRequest(viewState, trace, a))])) : null;
    const result = { trace, decode: viewState.kvCache ? lab.decode(decodeRequest(viewState, trace)) : null, alignments };
    this._focus = null; // a focused cell of the old trace means nothing in the new one
    return result;
  }

  render() {
    if (!this._result) return this.placeholder(HEADING, this._error);
    const v = this.viewState;
    const ids = this._result.trace.groups.map((g) => g.id);
    const id = ids.includes(v.step) ? v.step : 'softmax';
    return html`<h2>${HEADING}</h2>
      <p class="lead">
        Six tokens, four heads of width 2, the same numbers throughout. Each switch is one change that a real model makes to
        attention; the core recomputes the whole trace, and the step it changes opens below. Hover over or focus a result
        cell to see how it is computed.
      </p>
      ${this._renderSwitches()} ${this.messageLine(this.draftProblem ?? this._error)}
      <div class="why" data-role="variant-why">${VARIANTS.filter((s) => s.on(v)).map((s) => html`<p data-variant=${s.id}>${s.why(v, this._result.trace)}</p>`)}</div>
      <nav aria-label="Steps of this trace">
        <ol class="steps">
          ${ids.map((stepId) => html`<li><button data-goto=${stepId} aria-current=${stepId === id ? 'step' : 'false'} @click=${() => this.changeView({ step: stepId })}>${stepEntry(stepId)?.name ?? stepId}</button></li>`)}
        </ol>
      </nav>
      ${v.bias && !v.cross ? renderBiasEditor(v.bias, (bias) => this.changeView({ bias, step: 'bias' })) : nothing}
      ${this._renderStep(id)}
      ${v.softcap > 0 ? renderSoftcapRow(this._result.trace, exampleLabels(v)) : nothing}
      ${this._result.alignments ? renderAlignments(this._result.alignments) : nothing}
      ${this._result.decode ? renderDecode({ decode: this._result.decode, position: v.position, head: v.head, kvHeads: v.kvHeads, fullOutput: this._result.trace.output, past: pastOf(v), rope: v.rope, onPosition: (position) => this.changeView({ position }), onHead: (head) => this.changeView({ head }), onPast: (past) => this.changeView({ past, position: TOKENS.length - 1 }) }) : nothing}
      ${v.kvCache || v.kvHeads < HEADS ? renderCacheBytes(this.lab, v.kvHeads) : nothing}
      <attn-topic-quiz topic="variants"></attn-topic-quiz>`;
  }

  _renderSwitches() {
    const v = this.viewState;
    return html`<fieldset class="switches" data-role="switches">
      <legend>Switches</legend>
      ${VARIANTS.map((s) => s.control(v, (partial) => this.changeView({ ...partial, step: s.step(v) })))}
      ${v.dropout > 0 ? this.seedInput({ use: (seed) => this.changeView({ seed, step: 'dropout' }) }) : nothing}
    </fieldset>`;
  }

  // One step of the trace, as the stepper draws it: per head its formula, operands and result.
  _renderStep(id) {
    const labels = exampleLabels(this.viewState);
    const panels = stepPanels(this._result.trace, id, labels);
    const scaleOf = stepScales(id, this._result.trace, { heads: panels.length });
    const focus = this._focus?.id === id ? this._focus : null;
    const explained = focus && panels.find((p) => p.head === focus.head);
    const explanation = explained
      ? stepEntry(id).explain({ panel: explained, row: focus.row, col: focus.col, value: explained.step.values[focus.row][focus.col], labels })
      : null;
    const entry = stepEntry(id);
    return html`<section class="step" data-role="step" data-step=${id}>
      <h3>${this._result.trace.groups.find((g) => g.id === id).title}</h3>
      <div class="panels">
        ${panels.map((panel) => {
          const lit = explained === panel ? explanation : null;
          return html`<div class="panel" data-head=${panel.head ?? 0}>
            <div class="formula" data-role="formula" ${formula(panel.step.formula)}></div>
            <div class="matrices">
              ${panel.operands.map((o, i) => matrixTable({ ...o, caption: `${o.caption} (${shape(o.values.length, o.values[0].length)})`, scale: scaleOf(o.name), highlight: lit?.highlight[i] }))}
              ${matrixTable({
                name: id,
                head: panel.head,
                caption: `${panel.head === undefined ? '' : `Head ${panel.head + 1}: `}${entry.caption} (${shape(...panel.step.shape)})`,
                values: panel.step.values,
                rowLabels: panel.rowLabels,
                colLabels: panel.colLabels,
                scale: scaleOf(id),
                totals: stepEntry(id).weights ? panel.step.rowTotals : undefined,
                blocked: stepEntry(id).weights ? blockedWeights(this._result.trace, panel.head) : undefined,
                highlight: lit ? { cell: [focus.row, focus.col] } : undefined,
                onFocusCell: (row, col) => (this._focus = { id, head: panel.head, row, col }),
              })}
            </div>
          </div>`;
        })}
      </div>
      <p class="explanation" data-role="explanation" aria-live="polite">${explanation?.text ?? 'Hover over or focus a result cell to see how it is computed.'}</p>
    </section>`;
  }
}

export const variantsView = defineView({ id: 'variants', title: 'Variants', element: VariantsView, fields: FIELDS });
