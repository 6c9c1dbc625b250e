// The self-check view: how far the learner has got in every topic (read from the progress
// kept on this device, progress.js), a reset for all of it, and every topic's quiz.
import { html } from 'lit';

import { loadProgress, resetProgress } from '../progress.js';
import { defineView, ViewBase } from './view-base.js';
import { QUESTIONS, TOPICS } from './quiz-questions.js';
import { topicQuiz } from './topic-quiz.js';

class QuizView extends ViewBase {
  constructor() {
    super();
    this._onProgress = () => this.requestUpdate();
  }

  connectedCallback() {
    super.connectedCallback();
    window.addEventListener('attnlab-progress', this._onProgress);
    window.addEventListener('storage', this._onProgress);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    window.removeEventListener('attnlab-progress', this._onProgress);
    window.removeEventListener('storage', this._onProgress);
  }

  render() {
    const progress = loadProgress();
    return html`<h2>Self-check</h2>
      <p class="lead">
        A few questions on each topic. Pick an answer and check it: you see at once whether it was right, and why. Your answers stay on this
        device only. The stepper’s “predict, then reveal” answers count under “The whole computation”.
      </p>
      <table data-role="progress">
        <caption>Your progress</caption>
        <thead>
          <tr>
            <th scope="col">Topic</th>
            <th scope="col">Quiz questions</th>
            <th scope="col">Answered</th>
            <th scope="col">Right</th>
          </tr>
        </thead>
        <tbody>
          ${TOPICS.map(({ id, title }) => {
            const results = Object.values(progress[id] ?? {}).filter((r) => typeof r === 'boolean');
            const right = results.filter(Boolean).length;
            return html`<tr data-topic=${id} data-answered=${results.length} data-right=${right}>
              <th scope="row">${title}</th>
              <td>${QUESTIONS[id].length}</td>
              <td>${results.length}</td>
              <td>${right}</td>
            </tr>`;
          })}
        </tbody>
      </table>
      <p><button data-action="reset-all" @click=${() => resetProgress()}>Reset all progress</button></p>
      ${TOPICS.map(({ id }) => topicQuiz(id))}`;
  }
}

export const quizView = defineView({ id: 'quiz', title: 'Self-check', element: QuizView });
