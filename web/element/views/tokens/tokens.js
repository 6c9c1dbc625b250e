// The tokens view: attention on words. The sentence of the element's own state (a preset,
// or the learner's tokens and matrices from the stepper); hovering or focusing a token draws
// a line from it to every token it attends to, as thick as the weight, for the chosen head;
// beside it, every head's weights in small multiples, each opening that head's softmax step
// in the stepper. Every weight is the core's (the host's trace, softmax step).
import { html, nothing } from 'lit';

import { WEIGHT_SCALE } from '../../shared/colors.js';
import { fmt, largestEntries, namedLargest } from '../../shared/format.js';
import { matrixTable } from '../../shared/matrix-table.js';
import { PRESETS, STEPPER_PRESET_IDS } from '../../presets.js';
import { LIMITS } from '../../../lib/core-lists.js'; // the core's limits, generated from it
import { defineView, ViewBase } from '../../shared/view-base.js';
import { wholeField } from '../../shared/view-state.js';
import { blockedWeights, tokenLabels } from '../../steps/panels.js';
import { tokensStyles } from './styles.js';
import { tokenLines } from './token-lines.js';
import '../../shared/topic-quiz.js';

const FIELDS = {
  head: wholeField(0, 0, LIMITS.maxHeads - 1), // 0-based; a head the trace lacks shows head 0
  token: wholeField(0, 0, LIMITS.traceTokens - 1), // the query whose lines are drawn
};

const HEADING = 'Tokens: who attends to whom';

class TokensView extends ViewBase {
  static styles = tokensStyles;

  static properties = {
    ...ViewBase.properties,
    trace: { attribute: false },
    state: { attribute: false },
  };

  // The softmax weights of every head, with the labels: { heads: [(queries, keys)], queries, keys }.
  _weights() {
    const group = this.trace.groups.find((g) => g.id === 'softmax');
    const { queries, keys } = tokenLabels(this.state);
    return { heads: group.steps.map((step) => step.values), blocked: group.steps.map((step) => blockedWeights(this.trace, step.head)), queries, keys };
  }

  // A head's name: the one the view that opened this state gave it (the model view's "L2 H3"), else "Head 1".
  _headName(h) {
    return this.state.origin?.heads?.[h] ?? `Head ${h + 1}`;
  }

  _openHead(head) {
    this.dispatchEvent(new CustomEvent('open-step', { detail: { step: 'softmax', head }, bubbles: true, composed: true }));
  }

  render() {
    if (!this.trace || !this.state || !this.viewState) return this.placeholder(HEADING);
    const { heads, blocked, queries, keys } = this._weights();
    const head = this.viewState.head < heads.length ? this.viewState.head : 0;
    const focus = Math.min(this.viewState.token, queries.length - 1);
    const weights = heads[head];
    return html`<h2>${HEADING}</h2>
      <p class="lead">
        Each token's query is compared with every token's key, and softmax turns the scores into weights that add up to 1.
        Hover over or focus a token to see where its attention goes: each line is as thick as the weight. Every head has
        its own weights, so each can look somewhere else.
      </p>
      ${this.state.origin ? html`<p class="note" data-role="origin-label">From the ${this.state.origin.label}</p>` : nothing}
      ${this._renderControls(heads.length, head)}
      <div class="sentence" role="group" aria-label="Tokens: hover or focus one to draw its attention">
        ${queries.map(
          (label, i) => html`<button data-control="token" data-token=${i} aria-pressed=${i === focus ? 'true' : 'false'}
            @mouseenter=${() => this._focus(i)} @focus=${() => this._focus(i)}>${label}</button>`,
        )}
      </div>
      <div class="figures">
        <figure data-role="head-view">
          ${tokenLines({ queries, keys, weights, focus, onFocus: (i) => this._focus(i) })}
          <figcaption data-role="explanation">${this._explain(weights, blocked[head]?.[focus], queries, keys, focus, head, heads.length)}</figcaption>
        </figure>
        ${matrixTable({
          name: 'focus-weights',
          caption: `${queries[focus]}'s weights${heads.length > 1 ? `, head ${head + 1}` : ''}`,
          values: [weights[focus]],
          blocked: blocked[head] && [blocked[head][focus]],
          rowLabels: [queries[focus]],
          colLabels: keys,
          scale: WEIGHT_SCALE,
        })}
      </div>
      ${this._renderHeads(heads, blocked, queries, keys, head)}
      <attn-topic-quiz topic="tokens"></attn-topic-quiz>`;
  }

  _focus(token) {
    if (token !== this.viewState.token) this.changeView({ token });
  }

  _renderControls(count, head) {
    const presets = STEPPER_PRESET_IDS.filter((id) => PRESETS[id].state.tokens?.length);
    return html`<div class="controls">
      <label>Example
        <select data-control="preset" @change=${(e) => this.openPreset(e.target.value, { view: 'tokens' })}>
          <option value="" selected>The stepper's own sentence</option>
          ${presets.map((id) => html`<option value=${id}>${PRESETS[id].name}</option>`)}
        </select>
      </label>
      ${
        count > 1
          ? html`<div role="group" aria-label="Head">
            ${Array.from(
              { length: count },
              (_, h) => html`<button data-control="head" data-head=${h} aria-pressed=${h === head ? 'true' : 'false'}
              @click=${() => this.changeView({ head: h })}>${this._headName(h)}</button>`,
            )}
          </div>`
          : nothing
      }
      <span class="hint">Your own words: edit the tokens and matrices in the stepper, then come back.</span>
    </div>`;
  }

  // The focused token's strongest keys (all of them when they tie), in words, with the weight;
  // then how many keys get a weight as the table shows it (4 decimals): one that shows as 0 is
  // counted apart, as less than 0.00005 or as exactly 0.
  _explain(weights, blocked, queries, keys, focus, head, count) {
    const row = weights[focus];
    const where = count > 1 ? `In head ${head + 1}, ` : '';
    const largest = largestEntries(row.map((w, j) => (blocked?.[j] ? -Infinity : w)));
    if (!largest.length) return `${where}every key is masked for “${queries[focus]}”: all its weights are 0.`;
    const to = namedLargest(row, largest, (j) => keys[j]);
    return `${where}“${queries[focus]}” gives the most attention to ${to}; ${weightCounts(row)}.`;
  }

  _renderHeads(heads, blocked, queries, keys, current) {
    const many = heads.length > 1;
    return html`<section data-role="heads">
      <h3>${many ? 'Every head and every query at once' : 'Every query at once'}</h3>
      <p>${many ? "Each thumbnail is one head's weights" : 'The weights'} (rows: queries, columns: keys): where every token looks, not only the one hovered. Open ${many ? 'one' : 'it'} to follow it step by step.</p>
      <ul class="thumbnails">
        ${heads.map(
          (weights, h) => html`<li data-head=${h} class=${h === current ? 'current' : ''}>
            ${matrixTable({ name: 'softmax', head: h, caption: this._headName(h), values: weights, blocked: blocked[h], rowLabels: queries, colLabels: keys, scale: WEIGHT_SCALE })}
            <button data-control="open-head" data-head=${h} @click=${() => this._openHead(h)}>Open ${this._headName(h).replace(/^Head/, 'head')} in the stepper</button>
          </li>`,
        )}
      </ul>
    </section>`;
  }
}

// How many of a row's weights show as more than 0, as tiny (under 0.00005, shown as 0) and as exactly 0.
function weightCounts(row) {
  const shown = row.filter((w) => fmt(w) !== '0').length;
  const tiny = row.filter((w) => w > 0 && fmt(w) === '0').length;
  const zero = row.filter((w) => w === 0).length;
  const tokens = (n) => `${n} ${n === 1 ? 'token' : 'tokens'}`;
  const parts = [
    shown === row.length
      ? `all ${tokens(row.length)} get a weight that shows as more than 0`
      : `${shown} of the ${tokens(row.length)} ${shown === 1 ? 'gets' : 'get'} a weight that shows as more than 0`,
  ];
  if (tiny) parts.push(`${tiny} ${tiny === 1 ? 'gets' : 'get'} less than 0.00005, shown as 0`);
  if (zero) parts.push(`${zero} ${zero === 1 ? 'gets' : 'get'} exactly 0`);
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

export const tokensView = defineView({ id: 'tokens', title: 'Tokens', element: TokensView, fields: FIELDS });
