// <attn-topic-quiz topic="…">: the short self-check at the end of a view. Each question is a
// radio group with its own Check button; checking records the answer (progress.js, kept on
// this device) and shows whether it was right, with the explanation. The score and the
// feedback come from the recorded progress, so they survive a reload and follow a reset
// made anywhere on the page (the `attnlab-progress` event).
import { css, html, LitElement, nothing } from 'lit';

import { subscripted } from './format.js';
import { loadProgress, ProgressController, recordAnswer, resetProgress } from './progress.js';
import { viewStyles } from './styles.js';
import { QUESTIONS, quizScore, topicTitle } from './quiz-questions.js';

class TopicQuiz extends LitElement {
  // <attn-lab no-quiz> hides every quiz through this inherited property (attn-lab.js).
  static styles = [viewStyles, css`:host { display: var(--attn-quiz-display, block); }`];

  static properties = {
    topic: { type: String },
    _chosen: { state: true },
  };

  constructor() {
    super();
    this._chosen = {}; // question id → the option index picked (not yet checked, or checked now)
    new ProgressController(this);
  }

  _check(question) {
    const choice = this._chosen[question.id];
    if (choice === undefined) return;
    recordAnswer(this.topic, question.id, choice === question.answer);
  }

  _reset() {
    this._chosen = {};
    resetProgress(this.topic);
  }

  render() {
    const questions = QUESTIONS[this.topic];
    if (!questions) return nothing;
    const progress = loadProgress();
    const recorded = progress[this.topic] ?? {};
    const { answered, right } = quizScore(progress, this.topic);
    const headingId = `quiz-${this.topic}`;
    return html`<section class="quiz" data-role="topic-quiz" data-topic=${this.topic} aria-labelledby=${headingId}>
      <h3 id=${headingId}>Check yourself: ${subscripted(topicTitle(this.topic))}</h3>
      <p data-role="quiz-score" data-answered=${answered} data-right=${right} data-total=${questions.length} aria-live="polite">
        ${answered ? `${right} of ${questions.length} right (${answered} answered)` : `${questions.length} questions, none answered yet`}
      </p>
      ${questions.map((q, i) => this._renderQuestion(q, i, recorded[q.id]))}
      <button data-action="reset-topic" @click=${() => this._reset()}>Reset this quiz</button>
    </section>`;
  }

  _renderQuestion(q, index, result) {
    const chosen = this._chosen[q.id];
    const state = result === true ? 'right' : result === false ? 'wrong' : 'unanswered';
    return html`<fieldset data-question=${q.id} data-result=${state}>
      <legend>${index + 1}. ${subscripted(q.prompt)}</legend>
      ${q.options.map(
        (option, o) => html`<label class="option"
          ><input type="radio" name=${q.id} value=${o} data-option=${o} .checked=${chosen === o}
            @change=${() => (this._chosen = { ...this._chosen, [q.id]: o })} />${subscripted(option)}</label
        >`,
      )}
      <button data-action="check" ?disabled=${chosen === undefined} @click=${() => this._check(q)}>Check</button>
      ${state === 'unanswered' ? nothing : this._renderFeedback(q, result)}
    </fieldset>`;
  }

  // From the recorded result, so it shows again after a reload (when the choice is gone).
  _renderFeedback(q, right) {
    const verdict = right ? 'Right.' : html`Not quite: the answer is “${subscripted(q.options[q.answer])}”.`;
    return html`<p data-role="feedback" data-correct=${right ? 'true' : 'false'} role="status">
      <span class=${right ? 'correct' : 'wrong'}>${verdict}</span> <span data-role="quiz-explanation">${subscripted(q.explanation)}</span>
    </p>`;
  }
}

if (globalThis.customElements && !customElements.get('attn-topic-quiz')) customElements.define('attn-topic-quiz', TopicQuiz); // none in Node

/** The quiz of `topic`, for a view that renders several. */
export const topicQuiz = (topic) => html`<attn-topic-quiz topic=${topic}></attn-topic-quiz>`;
