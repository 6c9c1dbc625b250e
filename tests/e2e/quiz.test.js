// The self-check quizzes: <attn-topic-quiz> (a radio group per question, Check, feedback
// with the explanation, the topic's score, a reset) and the quiz view (every topic's
// progress, a reset of all). Progress lives in localStorage and survives a reload; storage
// that throws leaves the quizzes working for the page's lifetime.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { QUESTIONS, TOPICS } from '../../web/element/shared/quiz-questions.js';
import { encodeHash, presetState } from './support/expected.js';
import { assertClean, settle, waitForView } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const QUIZ_URL = `index.html${encodeHash({ ...presetState('tiny'), view: 'quiz' })}`;
const PROGRESS_KEY = 'attnlab:progress:v1';

const quiz = (topic) => `attn-lab attn-quiz-view attn-topic-quiz[topic="${topic}"]`;
const question = (topic, id) => `${quiz(topic)} fieldset[data-question="${id}"]`;
const wrongOption = (q) => (q.answer + 1) % q.options.length;
const byId = (topic, id) => QUESTIONS[topic].find((q) => q.id === id);
// The text of a quiz string as the page shows it: d_k is written d<sub>k</sub>, whose text is "dk".
const shown = (text) => text.replace(/\b([A-Za-z])_([A-Za-z0-9]{1,2})\b/g, '$1$2');

/** Picks option `option` of question `id` and checks it. */
async function answer(page, topic, id, option) {
  const check = page.locator(`${question(topic, id)} [data-action="check"]`);
  await page.locator(`${question(topic, id)} input[data-option="${option}"]`).check();
  await check.click();
  await settle(page);
}

/** { answered, right, total } of a topic quiz's score line. */
async function score(page, topic) {
  const line = page.locator(`${quiz(topic)} [data-role="quiz-score"]`);
  const [answered, right, total] = await Promise.all(['data-answered', 'data-right', 'data-total'].map((a) => line.getAttribute(a)));
  return { answered: Number(answered), right: Number(right), total: Number(total) };
}

/** { answered, right } of a topic's row in the quiz view's progress table. */
async function progressRow(page, topic) {
  const row = page.locator(`attn-lab attn-quiz-view [data-role="progress"] tr[data-topic="${topic}"]`);
  return { answered: Number(await row.getAttribute('data-answered')), right: Number(await row.getAttribute('data-right')) };
}

async function feedback(page, topic, id) {
  const box = page.locator(`${question(topic, id)} [data-role="feedback"]`);
  return { correct: await box.getAttribute('data-correct'), text: (await box.textContent()).replace(/\s+/g, ' ').trim() };
}

// The variants view teaches eight changes (issue 26 added softcap, the causal alignments, a
// bias and decoding from a cache), so its quiz has up to 8 questions; every other, 3 or 4.
const MOST_QUESTIONS = { variants: 8 };

test('every topic has 3 or 4 questions (variants up to 8), each with a valid answer and an explanation', () => {
  assert.deepEqual(
    TOPICS.map((t) => t.id),
    ['stepper', 'geometry', 'scaling', 'softmax', 'patterns', 'tokens', 'positions', 'cost', 'flash', 'variants', 'efficient', 'train', 'model'],
  );
  for (const { id } of TOPICS) {
    const questions = QUESTIONS[id];
    assert.ok(questions.length >= 3 && questions.length <= (MOST_QUESTIONS[id] ?? 4), `${id}: ${questions.length} questions`);
    assert.equal(new Set(questions.map((q) => q.id)).size, questions.length, `${id}: question ids are unique`);
    for (const q of questions) {
      assert.ok(q.options.length >= 3 && Number.isInteger(q.answer) && q.options[q.answer], `${id}/${q.id}: a valid answer`);
      assert.equal(new Set(q.options).size, q.options.length, `${id}/${q.id}: distinct options`);
      assert.ok(q.explanation.length > 40 && q.prompt.length > 10, `${id}/${q.id}: a prompt and an explanation`);
    }
  }
});

test('a wrong and a right answer: feedback, explanation, score and the progress table follow', async (t) => {
  const { page, problems } = await session.open(t, QUIZ_URL, { view: 'quiz' });
  assert.equal(await page.locator('attn-lab attn-quiz-view attn-topic-quiz').count(), TOPICS.length, 'one quiz per topic');
  assert.deepEqual(await score(page, 'softmax'), { answered: 0, right: 0, total: QUESTIONS.softmax.length });
  assert.deepEqual(await progressRow(page, 'softmax'), { answered: 0, right: 0 });
  assert.equal(await page.locator(`${question('softmax', 'shift')} [data-action="check"]`).isDisabled(), true, 'nothing to check before a choice');
  assert.equal(await page.locator(`${question('softmax', 'shift')} [data-role="feedback"]`).count(), 0, 'no feedback before checking');

  const shift = byId('softmax', 'shift');
  await answer(page, 'softmax', 'shift', wrongOption(shift));
  let box = await feedback(page, 'softmax', 'shift');
  assert.equal(box.correct, 'false');
  assert.match(box.text, /^Not quite/);
  assert.ok(box.text.includes(shown(shift.options[shift.answer])), 'the right answer is named');
  assert.ok(box.text.includes(shown(shift.explanation)), 'the explanation is shown');
  assert.equal(await page.locator(`${question('softmax', 'shift')}`).getAttribute('data-result'), 'wrong');
  assert.deepEqual(await score(page, 'softmax'), { answered: 1, right: 0, total: 4 });
  assert.deepEqual(await progressRow(page, 'softmax'), { answered: 1, right: 0 });

  const overflow = byId('softmax', 'overflow');
  await answer(page, 'softmax', 'overflow', overflow.answer);
  box = await feedback(page, 'softmax', 'overflow');
  assert.equal(box.correct, 'true');
  assert.match(box.text, /^Right\./);
  assert.ok(box.text.includes(shown(overflow.explanation)));
  assert.deepEqual(await score(page, 'softmax'), { answered: 2, right: 1, total: 4 });
  assert.match(await page.locator(`${quiz('softmax')} [data-role="quiz-score"]`).textContent(), /1 of 4 right \(2 answered\)/);

  // A later answer to the same question replaces the earlier one.
  await answer(page, 'softmax', 'shift', shift.answer);
  assert.equal((await feedback(page, 'softmax', 'shift')).correct, 'true');
  assert.deepEqual(await score(page, 'softmax'), { answered: 2, right: 2, total: 4 });
  assert.deepEqual(await progressRow(page, 'softmax'), { answered: 2, right: 2 });
  assert.deepEqual(await progressRow(page, 'cost'), { answered: 0, right: 0 }, 'other topics untouched');

  // A quiz outside the view (as at the end of a teaching view) updates the progress table too.
  await page.evaluate(() => {
    const standalone = document.createElement('attn-topic-quiz');
    standalone.setAttribute('topic', 'cost');
    document.body.append(standalone);
  });
  const outside = 'body > attn-topic-quiz[topic="cost"] fieldset[data-question="time"]';
  await page.locator(`${outside} input[data-option="${byId('cost', 'time').answer}"]`).check();
  await page.locator(`${outside} [data-action="check"]`).click();
  await settle(page);
  assert.deepEqual(await progressRow(page, 'cost'), { answered: 1, right: 1 });
  assert.deepEqual(await score(page, 'cost'), { answered: 1, right: 1, total: QUESTIONS.cost.length });

  const stored = JSON.parse(await page.evaluate((key) => localStorage.getItem(key), PROGRESS_KEY));
  assert.deepEqual(stored, { softmax: { shift: true, overflow: true }, cost: { time: true } });
  assertClean(problems);
});

test('progress survives a reload in the same browser; a topic reset and reset-all clear it', async (t) => {
  const { page, problems } = await session.open(t, QUIZ_URL, { view: 'quiz' });
  const variance = byId('scaling', 'variance');
  await answer(page, 'scaling', 'variance', variance.answer);
  await answer(page, 'scaling', 'factor-64', wrongOption(byId('scaling', 'factor-64')));
  await answer(page, 'positions', 'permutation', byId('positions', 'permutation').answer);

  await page.reload();
  await waitForView(page, 'quiz');
  assert.deepEqual(await score(page, 'scaling'), { answered: 2, right: 1, total: 4 });
  assert.deepEqual(await progressRow(page, 'scaling'), { answered: 2, right: 1 });
  assert.deepEqual(await progressRow(page, 'positions'), { answered: 1, right: 1 });
  // After the reload the feedback comes back from the recorded results.
  const box = await feedback(page, 'scaling', 'variance');
  assert.equal(box.correct, 'true');
  assert.ok(box.text.includes(shown(variance.explanation)));
  assert.equal((await feedback(page, 'scaling', 'factor-64')).correct, 'false');

  await page.locator(`${quiz('scaling')} [data-action="reset-topic"]`).click();
  await settle(page);
  assert.deepEqual(await score(page, 'scaling'), { answered: 0, right: 0, total: 4 });
  assert.deepEqual(await progressRow(page, 'scaling'), { answered: 0, right: 0 });
  assert.equal(await page.locator(`${quiz('scaling')} [data-role="feedback"]`).count(), 0, 'no feedback after the reset');
  assert.deepEqual(await progressRow(page, 'positions'), { answered: 1, right: 1 }, 'a topic reset keeps other topics');

  await page.locator('attn-lab attn-quiz-view [data-action="reset-all"]').click();
  await settle(page);
  for (const { id } of TOPICS) assert.deepEqual(await progressRow(page, id), { answered: 0, right: 0 }, id);
  await page.reload();
  await waitForView(page, 'quiz');
  assert.deepEqual(await progressRow(page, 'positions'), { answered: 0, right: 0 }, 'the reset is stored');
  assertClean(problems);
});

// localStorage missing altogether (the getter throws, as in some sandboxed frames), and
// localStorage that reads but refuses writes (quota, some private modes).
const BLOCKERS = {
  'localStorage blocked': () => {
    Object.defineProperty(window, 'localStorage', {
      get() {
        throw new DOMException('storage is blocked', 'SecurityError');
      },
    });
  },
  'localStorage refusing writes': () => {
    Storage.prototype.setItem = function setItem() {
      throw new DOMException('quota exceeded', 'QuotaExceededError');
    };
  },
};

for (const [name, blocker] of Object.entries(BLOCKERS)) {
  test(`${name}: the quiz still works for the page's lifetime`, async (t) => {
    const first = await session.open(t, QUIZ_URL, { view: 'quiz' });
    const page = await session.newPage(t);
    const problems = { pageErrors: [], consoleErrors: [], dialogs: [] };
    page.on('pageerror', (error) => problems.pageErrors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && problems.consoleErrors.push(message.text()));
    await page.addInitScript(blocker);
    await page.goto(first.page.url());
    await waitForView(page, 'quiz');

    const masked = byId('softmax', 'masked-weight');
    await answer(page, 'softmax', 'masked-weight', masked.answer);
    const box = await feedback(page, 'softmax', 'masked-weight');
    assert.equal(box.correct, 'true');
    assert.ok(box.text.includes(shown(masked.explanation)));
    await answer(page, 'softmax', 'example', wrongOption(byId('softmax', 'example')));
    assert.equal((await feedback(page, 'softmax', 'example')).correct, 'false');
    assert.deepEqual(await score(page, 'softmax'), { answered: 2, right: 1, total: 4 });
    assert.deepEqual(await progressRow(page, 'softmax'), { answered: 2, right: 1 });

    await page.locator(`${quiz('softmax')} [data-action="reset-topic"]`).click();
    await settle(page);
    assert.deepEqual(await progressRow(page, 'softmax'), { answered: 0, right: 0 });
    assert.deepEqual(problems, { pageErrors: [], consoleErrors: [], dialogs: [] });
    assertClean(first.problems);
  });
}
