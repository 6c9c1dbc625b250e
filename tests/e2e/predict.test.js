// Predict, then reveal in the stepper: with `predict` on, a step's result stays hidden until
// the learner has answered questions about it (its shape; the largest key of a row for
// scores, scale and softmax; the row's total for softmax). The right answers are read here
// from the trace computed in Node by the built package.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { fmt } from '../../web/element/shared/format.js';
import { waitForLinkState } from '../support/state-link.js';
import { assertStepMatches, encodeHash, expectedTrace, presetState } from './support/expected.js';
import { assertClean, cellInput, goToStep, labState, settle, waitForLabs } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const PROGRESS_KEY = 'attnlab:progress:v1';

// The tiny example's first keys (k₁ = (1, 0), k₂ = (1, 1), k₃ = (0, 1)) with q₁ = (2, 0.5): its
// scores [2, 2.5, 0.5] have one clear largest key.
const EDITED_TINY = {
  ...presetState('tiny'),
  Q: [
    [2, 0.5],
    [0, 1],
  ],
  K: [
    [1, 0],
    [1, 1],
    [0, 1],
  ],
  step: 'scores',
};

const fieldset = (kind) => `attn-lab [data-role="predict"] fieldset[data-question="${kind}"]`;

/** The radio values offered for question `kind`. */
const optionValues = (page, kind) => page.locator(`${fieldset(kind)} input[type="radio"]`).evaluateAll((inputs) => inputs.map((i) => i.value));

const choose = (page, kind, value) => page.locator(`${fieldset(kind)} input[value="${value}"]`).check();

async function checkPrediction(page) {
  await page.locator('attn-lab [data-action="predict-check"]').click();
  await settle(page);
}

async function feedback(page, kind) {
  const box = page.locator(`${fieldset(kind)} [data-role="predict-feedback"]`);
  return { correct: await box.getAttribute('data-correct'), text: (await box.textContent()).replace(/\s+/g, ' ').trim() };
}

async function resultHidden(page) {
  const tables = await page.locator('attn-lab [data-role="result"] table').count();
  const marked = await page.locator('attn-lab [data-role="result"][data-hidden="true"]').count();
  const parts = await page.locator('attn-lab table[data-matrix="softmax-exp"]').count();
  return tables === 0 && marked > 0 && parts === 0;
}

const storedProgress = async (page) => JSON.parse((await page.evaluate((key) => localStorage.getItem(key), PROGRESS_KEY)) ?? '{}');

/** The expected answers for step `id` (its first head) and query row `row`, from the trace. */
function expectedAnswers(trace, id, row) {
  const step = trace.steps.find((s) => s.id === id);
  const values = step.values[row];
  const max = Math.max(...values);
  const top = values.flatMap((v, j) => (v === max ? [j] : []));
  return { shape: `${step.shape[0]}x${step.shape[1]}`, top, total: step.rowTotals[row], rowSum: step.rowSum?.[row], values };
}

/** The row-sum option nearest the trace's row total (the right one) and the others. */
async function rowSumOptions(page, total) {
  const values = await optionValues(page, 'row-sum');
  const right = values.reduce((best, v) => (Math.abs(Number(v) - total) < Math.abs(Number(best) - total) ? v : best));
  return { right, wrong: values.filter((v) => v !== right) };
}

const questionRow = async (page, kind) => Number(await page.locator(fieldset(kind)).getAttribute('data-row'));

test('predict on: the result stays hidden until answered; right and wrong answers follow the trace', async (t) => {
  const { page, problems } = await session.open(t, `index.html${encodeHash(EDITED_TINY)}`);
  const trace = expectedTrace(EDITED_TINY);
  await page.locator('attn-lab [data-control="predict"]').check();
  await settle(page);
  assert.equal((await labState(page)).predict, true);

  // Scores: the result, its shape included, is hidden; only the shape and largest-key questions.
  assert.ok(await resultHidden(page), 'the scores are hidden');
  assert.match(await page.locator('attn-lab .shapes').textContent(), /result: \?/);
  assert.deepEqual(await page.locator('attn-lab [data-role="predict"] fieldset').evaluateAll((f) => f.map((x) => x.dataset.question)), ['shape', 'largest']);
  assert.equal(await page.locator('attn-lab [data-action="predict-check"]').isDisabled(), true, 'nothing to check yet');

  let row = await questionRow(page, 'largest');
  let want = expectedAnswers(trace, 'scores', row);
  assert.deepEqual(want.top, [1], 'row 1 of the scores has one largest key: k₂');
  const shapes = await optionValues(page, 'shape');
  assert.ok(shapes.includes(want.shape) && shapes.length >= 3, `shape options ${shapes}`);
  await choose(
    page,
    'shape',
    shapes.find((v) => v !== want.shape),
  );
  await choose(page, 'largest', String(want.top[0]));
  await checkPrediction(page);

  let box = await feedback(page, 'shape');
  assert.equal(box.correct, 'false');
  assert.match(box.text, /^Wrong\./);
  assert.ok(box.text.includes('2×3') && box.text.includes('Q (2×2)') && box.text.includes('Kᵀ (2×3)'), box.text);
  box = await feedback(page, 'largest');
  assert.equal(box.correct, 'true');
  assert.match(box.text, /^Right\./);
  for (const v of want.values) assert.ok(box.text.includes(fmt(v)), `the explanation quotes ${fmt(v)}: ${box.text}`);
  assert.equal(await resultHidden(page), false);
  await assertStepMatches(page, trace, 'scores');

  // Softmax: all three questions; the row total is the trace's.
  await goToStep(page, 'softmax');
  assert.ok(await resultHidden(page), 'the weights are hidden');
  row = await questionRow(page, 'largest');
  assert.equal(await questionRow(page, 'row-sum'), row, 'both row questions ask about the same row');
  want = expectedAnswers(trace, 'softmax', row);
  assert.equal(want.top.length, 1);
  const sums = await rowSumOptions(page, want.total);
  assert.equal(sums.right, '1', 'an unmasked row of weights adds up to 1');
  await choose(page, 'shape', want.shape);
  await choose(page, 'largest', String((want.top[0] + 1) % want.values.length));
  await choose(page, 'row-sum', sums.right);
  await checkPrediction(page);
  assert.equal((await feedback(page, 'shape')).correct, 'true');
  assert.equal((await feedback(page, 'largest')).correct, 'false');
  box = await feedback(page, 'row-sum');
  assert.equal(box.correct, 'true');
  assert.ok(box.text.includes(fmt(want.rowSum)), `the explanation quotes Σ = ${fmt(want.rowSum)}: ${box.text}`);
  await assertStepMatches(page, trace, 'softmax');
  assert.equal(await page.locator('attn-lab table[data-matrix="softmax-exp"]').count(), 1, 'the parts of softmax show too');

  // A new temperature changes the numbers but not the right answers: still revealed, and the
  // explanation quotes the new Σ.
  await page.locator('attn-lab [data-control="temperature"]').fill('2');
  await settle(page);
  const warmer = expectedTrace({ ...EDITED_TINY, temperature: 2 });
  assert.equal(await resultHidden(page), false, 'the same answers at T = 2');
  await assertStepMatches(page, warmer, 'softmax');
  const warmSum = expectedAnswers(warmer, 'softmax', row).rowSum;
  assert.notEqual(fmt(warmSum), fmt(want.rowSum));
  assert.ok((await feedback(page, 'row-sum')).text.includes(fmt(warmSum)), 'the explanation follows the numbers');

  // Revealed steps stay revealed; an edit that changes an answer asks again.
  await goToStep(page, 'scores');
  assert.equal(await resultHidden(page), false);
  await page.locator(cellInput('Q', 0, 1)).fill('3'); // scores [2, 5, 3]: the same answers
  await page.locator(cellInput('Q', 0, 1)).press('Enter');
  await settle(page);
  assert.equal(await resultHidden(page), false, 'the same answers, still revealed');
  await page.locator(cellInput('Q', 0, 1)).fill('-1'); // scores [2, 1, -1]: now k₁ is largest
  await page.locator(cellInput('Q', 0, 1)).press('Enter');
  await settle(page);
  assert.ok(await resultHidden(page), 'new scores, a new prediction');

  assert.deepEqual((await storedProgress(page)).stepper, {
    'predict-scores-shape': false,
    'predict-scores-largest': true,
    'predict-softmax-shape': true,
    'predict-softmax-largest': false,
    'predict-softmax-row-sum': true,
  });
  // The quiz view counts them in a row of their own, not as answers to the stepper's quiz.
  await page.locator('attn-lab [role="tab"][data-view="quiz"]').click();
  await settle(page);
  const progressRow = page.locator('attn-lab attn-quiz-view [data-role="progress"] tr[data-role="predictions"]');
  await progressRow.waitFor();
  assert.equal(await progressRow.getAttribute('data-answered'), '5');
  assert.equal(await progressRow.getAttribute('data-right'), '3');
  const quizRow = page.locator('attn-lab attn-quiz-view [data-role="progress"] tr[data-topic="stepper"]');
  assert.equal(await quizRow.getAttribute('data-answered'), '0');
  assertClean(problems);
});

test('predict off shows results at once; "Just show me" reveals without recording', async (t) => {
  const { page, problems } = await session.open(t, `index.html${encodeHash({ ...EDITED_TINY, step: 'softmax' })}`);
  const trace = expectedTrace(EDITED_TINY);
  assert.equal(await page.locator('attn-lab [data-role="predict"]').count(), 0);
  await assertStepMatches(page, trace, 'softmax');

  await page.locator('attn-lab [data-control="predict"]').check();
  await settle(page);
  assert.ok(await resultHidden(page));
  await page.locator('attn-lab [data-action="predict-reveal"]').click();
  await settle(page);
  assert.equal(await resultHidden(page), false);
  await assertStepMatches(page, trace, 'softmax');
  const box = await feedback(page, 'row-sum');
  assert.equal(box.correct, null, 'no verdict without an answer');
  assert.match(box.text, /add up to 1/);
  assert.deepEqual(await storedProgress(page), {}, 'nothing recorded');

  await goToStep(page, 'aggregate');
  assert.ok(await resultHidden(page), 'the next step asks again');
  await page.locator('attn-lab [data-control="predict"]').uncheck();
  await settle(page);
  assert.equal(await page.locator('attn-lab [data-role="predict"]').count(), 0);
  await assertStepMatches(page, trace, 'aggregate');
  assertClean(problems);
});

test('the predict field round-trips through the URL; a wrong type is refused', async (t) => {
  const { page, problems } = await session.open(t);
  const state = { ...presetState('causal'), predict: true, step: 'softmax' };
  const trace = expectedTrace(state);
  await page.goto(page.url().replace(/#.*$/, '') + encodeHash(state));
  await page.reload();
  await page.waitForFunction(() => document.querySelector('attn-lab')?.shadowRoot?.querySelector('[data-role="predict"]'));
  await settle(page);
  assert.deepEqual(await labState(page), state);
  assert.equal(await page.locator('attn-lab [data-control="predict"]').isChecked(), true);
  assert.ok(await resultHidden(page));

  // A wrong row total: the causal preset's row is one-hot, Σ = 1, and the options are 0, 1, 6.
  const row = await questionRow(page, 'row-sum');
  const want = expectedAnswers(trace, 'softmax', row);
  const sums = await rowSumOptions(page, want.total);
  assert.equal(sums.right, '1');
  await choose(page, 'shape', want.shape);
  await choose(page, 'largest', String(want.top[0]));
  await choose(page, 'row-sum', sums.wrong.at(-1));
  await checkPrediction(page);
  assert.equal((await feedback(page, 'shape')).correct, 'true');
  assert.equal((await feedback(page, 'largest')).correct, 'true');
  const box = await feedback(page, 'row-sum');
  assert.equal(box.correct, 'false');
  assert.match(box.text, /^Wrong\..*add up to 1/);
  await assertStepMatches(page, trace, 'softmax');

  await page.locator('attn-lab [data-control="predict"]').uncheck();
  await waitForLinkState(page, (linked) => linked.predict === false);
  await page.reload();
  await waitForLabs(page);
  assert.deepEqual(await labState(page), { ...state, predict: false });

  const refused = await page.evaluate(() => {
    try {
      document.querySelector('attn-lab').setState({ predict: 'yes' });
      return null;
    } catch (error) {
      return `${error.name}: ${error.message}`;
    }
  });
  assert.equal(refused, 'StateError: "predict" must be true or false');
  assert.equal((await labState(page)).predict, false);
  assertClean(problems);
});
