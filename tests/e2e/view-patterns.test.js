// The patterns view: every gallery heatmap is the core's softmax for its preset, "open in the
// stepper" loads that preset, and the exercise shows the core's weights for its seed and
// marks right and wrong answers (recording them in the learner's progress).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { exerciseInputs, PATTERN_IDS } from '../../web/element/views/patterns/pattern-inputs.js';
import { assertStepMatches, encodeHash, expectedTrace, maxAbsDiff, presetState, TOLERANCE } from './support/expected.js';
import { assertClean, goToStep, labState, settle, viewTable, waitForView } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const lab = await createAttnLab();
const VIEW = 'attn-lab attn-patterns-view';

const openPatterns = (t, viewState = {}) =>
  session.open(t, `index.html${encodeHash({ ...presetState('tiny'), view: 'patterns', viewState })}`, { view: 'patterns' });

const softmaxOf = (id) => expectedTrace(presetState(id)).steps.find((step) => step.id === 'softmax').values;

// A pattern's signature in a weight matrix w (n×n): the property a learner should see.
const SIGNATURES = {
  self: (w) => w.every((row, i) => row[i] > 0.8),
  uniform: (w) => w.flat().every((v) => Math.abs(v - 1 / w.length) < 0.02),
  sharp: (w) => w[0].some((_, j) => w.every((row) => row[j] > 0.8)),
  local: (w) => w.every((row, i) => row.reduce((sum, v, j) => sum + (Math.abs(i - j) <= 1 ? v : 0), 0) > 0.9 && Math.max(...row) < 0.7),
  causal: (w) => w.every((row, i) => row.every((v, j) => j <= i || v === 0)) && w[0][0] === 1,
};

test("the exercise generator makes all five patterns, each recognisable in the core's weights", () => {
  const seen = new Set();
  for (let seed = 1; seed <= 300; seed++) {
    const { pattern, request } = exerciseInputs(seed);
    seen.add(pattern);
    const { weights } = lab.attention(request);
    assert.ok(weights.length >= 4 && weights.length <= 7, `seed ${seed}: ${weights.length} tokens`);
    for (const [other, signature] of Object.entries(SIGNATURES)) {
      // Its own signature holds, and no other one does: the answer is never ambiguous.
      assert.equal(signature(weights), other === pattern, `seed ${seed} (${pattern}) against the ${other} signature`);
    }
  }
  assert.deepEqual([...seen].sort(), [...PATTERN_IDS].sort());
});

test("every gallery heatmap is the core's softmax for its preset", async (t) => {
  const { page, problems } = await openPatterns(t);
  assert.equal(await page.locator(`${VIEW} [data-role="gallery"] [data-pattern]`).count(), PATTERN_IDS.length);
  for (const id of PATTERN_IDS) {
    const got = await viewTable(page, 'patterns', `[data-pattern="${id}"] table[data-matrix="softmax"]`);
    const diff = maxAbsDiff(got, softmaxOf(id));
    assert.ok(diff <= TOLERANCE, `${id}: max abs diff ${diff} from lab.trace()`);
    assert.ok(SIGNATURES[id](got), `the ${id} preset shows the ${id} pattern`);
  }
  assertClean(problems);
});

test('"open in the stepper" loads each pattern\'s preset', async (t) => {
  const { page, problems } = await openPatterns(t);
  for (const id of PATTERN_IDS) {
    await page.locator(`${VIEW} [data-control="open-preset"][data-preset="${id}"]`).click();
    await settle(page);
    const state = await labState(page);
    const preset = presetState(id);
    assert.equal(state.view, 'stepper', `${id}: the stepper is on view`);
    for (const field of ['X', 'Wq', 'Wk', 'Wv', 'causal', 'tokens']) assert.deepEqual(state[field], preset[field], `${id}: ${field}`);
    assert.equal(await page.locator('attn-lab [data-control="preset"]').inputValue(), id, `${id}: the preset menu names it`);
    await goToStep(page, 'softmax');
    await assertStepMatches(page, expectedTrace(state), 'softmax');
    await page.locator('attn-lab [role="tab"][data-view="patterns"]').click();
    await waitForView(page, 'patterns');
  }
  assertClean(problems);
});

// Seeds that cover every pattern; the answers alternate right and wrong.
const EXERCISE_SEEDS = PATTERN_IDS.map((id) => {
  let seed = 1;
  while (exerciseInputs(seed).pattern !== id) seed += 1;
  return seed;
});

test("the exercise shows the core's weights and marks right and wrong answers, for several seeds", async (t) => {
  const { page, problems } = await openPatterns(t);
  for (const [i, seed] of EXERCISE_SEEDS.entries()) {
    await page.evaluate((seed) => document.querySelector('attn-lab').setState({ viewState: { seed } }), seed);
    await settle(page);
    const { pattern, request } = exerciseInputs(seed);
    const diff = maxAbsDiff(await viewTable(page, 'patterns', '[data-role="exercise"] table[data-matrix="weights"]'), lab.attention(request).weights);
    assert.ok(diff <= TOLERANCE, `seed ${seed}: max abs diff ${diff} from lab.attention()`);
    assert.equal(await page.locator(`${VIEW} [data-role="verdict"]`).count(), 0, 'no verdict before an answer');

    const right = i % 2 === 0;
    const choice = right ? pattern : PATTERN_IDS[(PATTERN_IDS.indexOf(pattern) + 1 + i) % PATTERN_IDS.length];
    await page.locator(`${VIEW} [data-control="answer"][data-pattern="${choice}"]`).click();
    await settle(page);
    const verdict = page.locator(`${VIEW} [data-role="verdict"]`);
    assert.equal(await verdict.getAttribute('data-correct'), String(right), `seed ${seed} (${pattern}), answered ${choice}`);
    assert.match(await verdict.textContent(), right ? /Right/ : /Not quite/);
    assert.equal((await labState(page)).viewState.choice, choice);
    assert.ok(await page.locator(`${VIEW} [data-control="answer"]`).first().isDisabled(), 'one answer per exercise');
    const recorded = await page.evaluate(() => JSON.parse(localStorage.getItem('attnlab:progress:v1')).patterns);
    assert.equal(recorded[`which-pattern:${seed}`], right, 'the answer is recorded in the progress');
  }

  // "Next" moves on to a fresh, unanswered exercise, whose weights are the core's too.
  const last = EXERCISE_SEEDS.at(-1);
  await page.locator(`${VIEW} [data-control="next"]`).click();
  await settle(page);
  assert.deepEqual((await labState(page)).viewState, { seed: last + 1, choice: null });
  assert.equal(await page.locator(`${VIEW} [data-role="verdict"]`).count(), 0);
  assert.equal(await page.locator(`${VIEW} [data-control="answer"]`).first().isDisabled(), false);
  const diff = maxAbsDiff(
    await viewTable(page, 'patterns', '[data-role="exercise"] table[data-matrix="weights"]'),
    lab.attention(exerciseInputs(last + 1).request).weights,
  );
  assert.ok(diff <= TOLERANCE, `seed ${last + 1}: max abs diff ${diff}`);
  assertClean(problems);
});

test('an answered exercise reopens from the URL with its verdict', async (t) => {
  const seed = EXERCISE_SEEDS[1];
  const { pattern } = exerciseInputs(seed);
  const { page, problems } = await openPatterns(t, { seed, choice: pattern });
  assert.equal(await page.locator(`${VIEW} [data-role="verdict"]`).getAttribute('data-correct'), 'true');
  assertClean(problems);
});
