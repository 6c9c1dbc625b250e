// The patterns view: a gallery of the five classic weight patterns (each the core's softmax
// weights for a stepper preset, with the inputs that make it) and a "which pattern is this?"
// exercise whose inputs come from a seed and whose weights come from the core.
import { html, nothing } from 'lit';

import { sub, subscripted } from '../../shared/format.js';
import { WEIGHT_SCALE } from '../../shared/colors.js';
import { matrixTable } from '../../shared/matrix-table.js';
import { PRESETS, presetState } from '../../presets.js';
import { recordAnswer } from '../../shared/progress.js';
import { traceRequest } from '../../state.js';
import { blockedWeights } from '../../steps/panels.js';
import { patternsStyles } from './styles.js';
import { exerciseInputs, PATTERN_IDS } from './pattern-inputs.js';
import { defineView, ViewBase } from '../../shared/view-base.js';
import { nextSeed, SEED_FIELD } from '../../shared/view-state.js';
import '../../shared/topic-quiz.js';

const FIELDS = {
  seed: SEED_FIELD,
  choice: [null, (v) => v === null || PATTERN_IDS.includes(v), `null or one of ${PATTERN_IDS.join(', ')}`],
};

// What each pattern is called, which inputs make it, and how to spot it in a heatmap.
const ABOUT = {
  self: {
    name: 'Self',
    inputs:
      "Each token's query and key are the same strong one-hot vector (W_Q = W_K = 3·I). A query's dot product is large only with its own key, so each token keeps nearly all the weight for itself.",
    spot: 'The bright cells run down the diagonal: row i puts almost all its weight on key i.',
  },
  uniform: {
    name: 'Uniform',
    inputs: 'Every query is zero (W_Q = 0), so every score is 0. Softmax of equal scores shares the weight equally: 1/6 for each of the six tokens.',
    spot: 'Every cell has about the same colour, 1/n: the scores were (nearly) all equal, so no key stood out.',
  },
  sharp: {
    name: 'Sharp (one-hot)',
    inputs: 'Every query points in the same direction and only the key of "cat" points that way too, so every row gives nearly all its weight to that one key.',
    spot: 'One column is bright in every row: all the queries chose the same key.',
  },
  local: {
    name: 'Local band',
    inputs:
      'Each key also matches the queries of its two neighbours (W_K has 3s on three diagonals), so each token spreads its weight over itself and the tokens next to it.',
    spot: 'A band about three cells wide follows the diagonal: each token looks at itself and its neighbours.',
  },
  causal: {
    name: 'Causal triangle',
    inputs: 'The causal mask sets every score above the diagonal to −∞ before softmax, and e^(−∞) = 0, so token i shares its weight among tokens 1…i only.',
    spot: 'Everything above the diagonal is exactly 0 and the first row is all on the first token: no token may look ahead.',
  },
};

const lowerFirst = (text) => text[0].toLowerCase() + text.slice(1);

// The gallery's weights depend only on the presets, so each core computes them once.
const galleryCache = new WeakMap();

function galleryWeights(lab) {
  if (!galleryCache.has(lab)) {
    const entries = PATTERN_IDS.map((id) => {
      const state = presetState(id);
      const trace = lab.trace(traceRequest(state));
      const softmax = trace.steps.find((step) => step.id === 'softmax');
      return [id, { tokens: state.tokens, weights: softmax.values, blocked: blockedWeights(trace, softmax.head) }];
    });
    galleryCache.set(lab, Object.fromEntries(entries));
  }
  return galleryCache.get(lab);
}

const HEADING = 'Patterns: what the weights look like';

class PatternsView extends ViewBase {
  static styles = patternsStyles;

  compute(lab, { seed }) {
    const { pattern, request } = exerciseInputs(seed);
    return { gallery: galleryWeights(lab), exercise: { pattern, n: request.V.length, weights: lab.attention(request).weights } };
  }

  _answer(choice) {
    const { seed } = this.viewState;
    recordAnswer('patterns', `which-pattern:${seed}`, choice === this._result.exercise.pattern);
    this.changeView({ choice });
  }

  render() {
    if (!this._result) return this.placeholder(HEADING, this._error);
    return html`<h2>${HEADING}</h2>
      <p class="lead">
        A row of the weight matrix says how much of each token one token takes in. Across a whole sentence the rows make
        a picture, and a handful of pictures come up again and again. Each one below is computed by the attention core
        from a stepper preset; open it in the stepper to see the inputs that make it, step by step.
      </p>
      <ul class="gallery" data-role="gallery">
        ${PATTERN_IDS.map((id) => this._renderCard(id))}
      </ul>
      ${this._renderExercise()}
      <attn-topic-quiz topic="patterns"></attn-topic-quiz>`;
  }

  _renderCard(id) {
    const { tokens, weights, blocked } = this._result.gallery[id];
    return html`<li class="card" data-pattern=${id}>
      <h3>${ABOUT[id].name}</h3>
      ${matrixTable({
        name: 'softmax',
        caption: `${PRESETS[id].name}: weights (${weights.length}×${weights[0].length})`,
        values: weights,
        blocked,
        rowLabels: tokens,
        colLabels: tokens,
        scale: WEIGHT_SCALE,
      })}
      <p>${subscripted(ABOUT[id].inputs)}</p>
      <button data-control="open-preset" data-preset=${id} @click=${() => this.openPreset(id)}>Open "${ABOUT[id].name}" in the stepper</button>
    </li>`;
  }

  _renderExercise() {
    const { seed, choice } = this.viewState;
    const { pattern, n, weights } = this._result.exercise;
    const labels = (letter) => Array.from({ length: n }, (_, i) => `${letter}${sub(i)}`);
    return html`<section class="exercise" data-role="exercise" data-seed=${seed}>
      <h3>Which pattern is this?</h3>
      <p class="lead">
        These weights come from new inputs (${n} tokens, built from exercise number ${seed}). Only the weights are
        shown. Which of the five patterns is it?
      </p>
      ${this.messageLine(this._error)}
      ${matrixTable({
        name: 'weights',
        caption: `weights (${n}×${n}), one row per query`,
        values: weights,
        rowLabels: labels('q'),
        colLabels: labels('k'),
        scale: WEIGHT_SCALE,
      })}
      <div class="choices" role="group" aria-label="Your answer">
        ${PATTERN_IDS.map(
          (id) => html`<button
            data-control="answer"
            data-pattern=${id}
            aria-pressed=${choice === id ? 'true' : 'false'}
            ?disabled=${choice !== null}
            @click=${() => this._answer(id)}
          >
            ${ABOUT[id].name}
          </button>`,
        )}
      </div>
      ${choice === null ? nothing : this._renderVerdict(choice, pattern)}
      <button data-control="next" @click=${() => this.changeView({ seed: nextSeed(seed), choice: null })}>
        ${choice === null ? 'Skip to another one' : 'Next one'}
      </button>
    </section>`;
  }

  _renderVerdict(choice, pattern) {
    const right = choice === pattern;
    return html`<p data-role="verdict" data-correct=${String(right)} role="status">
      <span class=${right ? 'correct' : 'wrong'}
        >${right ? `Right: this is ${ABOUT[pattern].name}.` : `Not quite: you chose ${ABOUT[choice].name}, but this is ${ABOUT[pattern].name}.`}</span
      >
      ${ABOUT[pattern].spot} ${right ? nothing : `${ABOUT[choice].name} would look different: ${lowerFirst(ABOUT[choice].spot)}`}
    </p>`;
  }
}

export const patternsView = defineView({ id: 'patterns', title: 'Patterns', element: PatternsView, fields: FIELDS });
