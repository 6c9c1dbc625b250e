// No accidental ties: the examples a learner meets first (the default, the two-head and tokens
// examples, every teaching view's preset) give every query one best key, so what the page
// says about "the best" key is true and predict asks all its questions on the default; where
// a learner makes a tie, the text names every key in it, as the tokens view does.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DEFAULT_PRESET, encodeHash, expectedTrace, PRESET_IDS, presetState } from './support/expected.js';
import { assertClean, goToStep, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
// Presets whose point is a tie: equal scores (uniform), a band of equals (local), and the
// causal pair drawn from the same band.
const TIED_ON_PURPOSE = new Set(['uniform', 'local', 'causal', 'bidirectional']);

// The indices of a row's largest entries, to 4 decimals (what the page prints).
const largest = (row) => {
  const top = Math.max(...row.filter(Number.isFinite)).toFixed(4);
  return row.flatMap((v, j) => (Number.isFinite(v) && v.toFixed(4) === top ? [j] : []));
};
const why = (page) =>
  page.evaluate(() => document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="why"]').textContent.replace(/\s+/g, ' ').trim());

test("the examples a learner meets first have one best key in every row (the core's scores and weights)", () => {
  const checked = PRESET_IDS.filter((id) => !TIED_ON_PURPOSE.has(id));
  assert.ok(checked.includes(DEFAULT_PRESET) && checked.includes('two-heads') && checked.includes('tokens'));
  for (const id of checked) {
    const trace = expectedTrace(presetState(id));
    for (const step of trace.steps.filter((s) => s.id === 'scores' || s.id === 'softmax')) {
      step.values.forEach((row, i) =>
        assert.equal(largest(row).length, 1, `${id}, ${step.id}${step.head === undefined ? '' : ` head ${step.head + 1}`}, row ${i + 1}: ${row}`),
      );
    }
  }
});

test("the default example's why names its one best key; a tie the learner makes names both keys", async (t) => {
  const state = presetState(DEFAULT_PRESET);
  const scores = expectedTrace(state).steps.find((s) => s.id === 'scores').values[0];
  const [best] = largest(scores);
  const { page, problems } = await session.open(t);
  assert.match(await why(page), new RegExp(`it matches “${state.tokens[best]}” \\(${scores[best]}\\) best\\.`));

  // k₁ = (1, 0), k₂ = (1, 1), k₃ = (0, 1): q₁ = (1, 0) scores 1, 1, 0.
  await page.evaluate(() =>
    document.querySelector('attn-lab').setState({
      K: [
        [1, 0],
        [1, 1],
        [0, 1],
      ],
    }),
  );
  await settle(page);
  assert.match(await why(page), /it matches “k₁” and “k₂” \(1 each\) best equally\./);
  await goToStep(page, 'scale');
  assert.match(await why(page), /the gap between the largest score \(“k₁” and “k₂”\) and the smallest \(“k₃”\) goes from 1 to 0\.7071/);
  assertClean(problems);
});

test('predict on the default example asks every kind of question; the title and why keep the answer hidden', async (t) => {
  const { page, problems } = await session.open(t, `index.html${encodeHash({ ...presetState(DEFAULT_PRESET), predict: true })}`, { wait: false });
  await page.waitForSelector('attn-lab [data-role="predict"]');
  const kinds = () => page.locator('attn-lab [data-role="predict"] fieldset').evaluateAll((f) => f.map((x) => x.dataset.question));
  assert.deepEqual(await kinds(), ['shape', 'largest']);
  await goToStep(page, 'softmax');
  assert.deepEqual(await kinds(), ['shape', 'largest', 'row-sum']);
  const title = await page.locator('attn-lab [data-role="step"] h2').textContent();
  const text = `${title} ${await why(page)}`;
  assert.doesNotMatch(text, /sums? to 1|add(ing)? up to 1/, `the row sum is not given away: ${text}`);
  await page.locator('attn-lab [data-action="predict-reveal"]').click();
  await settle(page);
  assert.match(await page.locator('attn-lab [data-role="step"] h2').textContent(), /sum to 1/, "revealed, the core's title");
  assertClean(problems);
});
