// The self-check view: how far the learner has got in every topic (read from the progress
// kept on this device, progress.js), a reset for all of it, and every topic's quiz.
import { html, nothing } from 'lit';

import { subscripted } from '../../shared/format.js';
import { isPrediction, loadProgress, PREDICT_TOPIC, ProgressController, resetProgress, topicScore } from '../../shared/progress.js';
import { defineView, ViewBase } from '../../shared/view-base.js';
import { QUESTIONS, quizScore, TOPICS } from '../../shared/quiz-questions.js';
import { topicQuiz } from '../../shared/topic-quiz.js';
import { quizStyles } from './styles.js';

class QuizView extends ViewBase {
  static styles = quizStyles;

  constructor() {
    super();
    new ProgressController(this);
  }

  render() {
    const progress = loadProgress();
    // Predictions have no fixed number of questions, so they get their own row: counted
    // with a topic's quiz, "answered" could exceed the questions.
    const predictions = topicScore(progress, PREDICT_TOPIC, isPrediction);
    const row = (attributes, title, questions, { answered, right }) =>
      html`<tr data-topic=${attributes.topic ?? nothing} data-role=${attributes.role ?? nothing} data-answered=${answered} data-right=${right}>
        <th scope="row">${subscripted(title)}</th>
        <td>${questions}</td>
        <td>${answered}</td>
        <td>${right}</td>
      </tr>`;
    return html`<h2>Self-check</h2>
      <p class="lead">
        A few questions on each topic. Pick an answer and check it: you see at once whether it was right, and why. Your answers stay on this
        device only. The stepper’s “predict, then reveal” answers have a row of their own.
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
          ${TOPICS.map(({ id, title }) => row({ topic: id }, title, QUESTIONS[id].length, quizScore(progress, id)))}
          ${row({ role: 'predictions' }, 'Predictions in the stepper', '–', predictions)}
        </tbody>
      </table>
      <p><button data-action="reset-all" @click=${() => resetProgress()}>Reset all progress</button></p>
      ${TOPICS.map(({ id }) => topicQuiz(id))}`;
  }
}

export const quizView = defineView({ id: 'quiz', title: 'Self-check', element: QuizView });
