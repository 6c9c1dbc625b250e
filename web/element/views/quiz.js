// PLACEHOLDER: the quiz view (to be written).
import { html } from 'lit';

import { ViewBase } from './view-base.js';
import { normalizeViewState } from './view-state.js';

const FIELDS = {};

class QuizView extends ViewBase {
  render() {
    return html`<h2>Self-check</h2>`;
  }
}

customElements.get('attn-quiz-view') ?? customElements.define('attn-quiz-view', QuizView);

export const quizView = {
  id: 'quiz',
  title: 'Self-check',
  normalize: (partial) => normalizeViewState('quiz', FIELDS, partial),
  render: ({ lab, viewState }) => html`<attn-quiz-view .lab=${lab} .viewState=${viewState}></attn-quiz-view>`,
};
