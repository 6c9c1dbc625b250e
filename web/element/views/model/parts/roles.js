// What each head does, in words made from the core's scores (headScores, head_scores.hpp):
// one sentence per head card, and each role explained with this text's and the probe's
// numbers. Nothing is claimed that the numbers do not show: a model without an induction head
// is told so.
import { html, LitElement, nothing } from 'lit';

import { f2 } from './charts.js';
import { headName } from '../figures.js';
import { partStyles } from './styles.js';

// The core names a head's role when its score is at least this many times what an even
// spread of each query's weight would score (role_factor in head_scores.hpp).
const ROLE_FACTOR = 2;
// A head we call a clear induction head: at least this much of the repeat's weight goes to the
// token after the earlier copy (the induction score), far above the even spread (about 0.02).
export const INDUCTION_CLEAR = 0.3;


/** What an even spread (each query's weight 1/(i + 1) on each of its keys) scores on queries from … to − 1. */
function evenSpread(from, to) {
  let sum = 0;
  for (let i = from; i < to; i++) sum += 1 / (i + 1);
  return to > from ? sum / (to - from) : 0;
}

/** The head with the largest `score` ([layer][head] of headScores): { layer, head, value }. */
export function bestHead(scores, score) {
  let best = { layer: 0, head: 0, value: -Infinity };
  scores.forEach((heads, layer) =>
    heads.forEach((s, head) => {
      if ((s[score] ?? -Infinity) > best.value) best = { layer, head, value: s[score] };
    }),
  );
  return best;
}

/** One plain sentence on a head: its role and score on the text, and its induction score on the probe. */
export function headSentence(s, n, probeScores) {
  const even = evenSpread(1, n);
  const times = (x) => `${(x / even).toFixed(1)}× an even spread`;
  let text;
  if (s.role === 'previous-token') text = `Looks at the token just before: ${f2(s.previousToken)} of its weight on average, ${times(s.previousToken)}.`;
  else if (s.role === 'first-token')
    text = `Parks ${f2(s.firstToken)} of its weight on the first token (a sink), ${times(s.firstToken)}.`;
  else text = `No score stands out on this text: previous token ${f2(s.previousToken)}, first token ${f2(s.firstToken)} (an even spread: ${f2(even)}).`;
  const induction = probeScores?.induction;
  if (induction >= INDUCTION_CLEAR) text += ` On a repeated sequence it copies: induction ${f2(induction)}.`;
  return text;
}

/** Each role explained, with how many heads take it on this text and the numbers behind it. */
function rolesExplained(scores, probe, n, period) {
  const count = (role) => scores.flat().filter((s) => s.role === role).length;
  const even = evenSpread(1, n);
  const evenRepeat = evenSpread(period, 2 * period);
  const best = (from, score) => {
    const b = bestHead(from, score);
    return `${headName(b.layer, b.head)} (${f2(b.value)})`;
  };
  const heads = (k) => `${k} head${k === 1 ? '' : 's'}`;
  const induction = probe && bestHead(probe, 'induction');
  return html`<details class="roles" data-role="roles">
    <summary>What the roles mean, with this text's numbers</summary>
    <p class="note">
      A head's score is the mean weight its queries give to one key. An even spread (each query's weight shared by all the
      tokens it may see) scores ${f2(even)} on these ${n} tokens; a head takes a role when one score is at least ${ROLE_FACTOR}× that.
    </p>
    <dl>
      <dt>Previous token</dt>
      <dd>Each token looks at the one just before it, so the next layer knows which token came before. Here: ${heads(count('previous-token'))}; the highest score is ${best(scores, 'previousToken')}.</dd>
      <dt>First token (sink)</dt>
      <dd>The weight goes to the first token when nothing else fits: softmax has to put it somewhere. Here: ${heads(count('first-token'))}; highest ${best(scores, 'firstToken')}.</dd>
      ${probe
        ? html`<dt>Duplicate token</dt>
            <dd>On a sequence repeated (${period} random tokens, then the same again), a token looks at its own earlier copy. An even spread scores ${f2(evenRepeat)} there; the highest is ${best(probe, 'duplicateToken')}.</dd>
            <dt>Induction</dt>
            <dd>
              On the repeat a token looks at the token after its earlier copy, and so can predict it: "A B … A → B". This needs a previous-token head in an
              earlier layer. Highest: ${best(probe, 'induction')}${induction.value < INDUCTION_CLEAR
                ? html`; no head here scores above ${INDUCTION_CLEAR} as induction: this model does not copy yet.`
                : html`: ${headName(induction.layer, induction.head)} is an induction head.`}
            </dd>`
        : nothing}
      <dt>Spread</dt>
      <dd>No score stands out: ${heads(count('spread'))} on this text. Such a head may still matter: ablate it below to see.</dd>
    </dl>
  </details>`;
}

class RolesExplained extends LitElement {
  static styles = partStyles;
  static properties = { scores: { attribute: false }, probe: { attribute: false }, n: { attribute: false }, period: { attribute: false } };

  render() {
    return this.scores ? rolesExplained(this.scores, this.probe, this.n, this.period) : '';
  }
}

if (globalThis.customElements && !customElements.get('attn-model-roles')) customElements.define('attn-model-roles', RolesExplained);
