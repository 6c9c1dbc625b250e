// The softmax view: edit a score, move the temperature, press "Large scores"; every number
// and bar on screen equals lab.softmaxBreakdown() computed here in Node by the built package,
// and the naive panel shows the core's real float32 Infinity and NaN.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { encodeHash, presetState } from './support/expected.js';
import { assertClean, labState, settle } from './support/lab-page.js';
import { auditThemes } from './support/axe.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const lab = await createAttnLab();
const VIEW = 'attn-lab attn-softmax-view';
// The page and this test run the same wasm, so the numbers agree exactly; the tolerance only
// allows for the decimal round trip through data-value.
const TOLERANCE = 1e-12;
const STAGES = ['scaled', 'shifted', 'exponentials', 'weights', 'withoutMax.exponentials', 'withoutMax.weights'];
const SINGLES = ['max', 'sum', 'withoutMax.sum'];
// A stage's values in lab.softmaxBreakdown's result: 'weights' or 'withoutMax.weights'.
const at = (result, path) => path.split('.').reduce((value, key) => value[key], result);

const open = (t, viewState = {}) => session.open(t, `index.html${encodeHash({ ...presetState('tiny'), view: 'softmax', viewState })}`, { view: 'softmax' });

// Everything the view shows, as the strings in its data-value attributes.
function shown(page) {
  return page.evaluate(
    ({ stages, singles }) => {
      const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-softmax-view').shadowRoot;
      const values = (selector) => [...root.querySelectorAll(selector)].map((el) => el.dataset.value);
      const naive = root.querySelector('[data-role="naive"]');
      return {
        stages: Object.fromEntries(stages.map((s) => [s, values(`td[data-stage="${s}"]`)])),
        singles: Object.fromEntries(singles.map((s) => [s, root.querySelector(`[data-role="${s}"]`).dataset.value])),
        bars: values('[data-role="weights-chart"] rect[data-value]'),
        temperature: root.querySelector('[data-role="temperature"]').dataset.value,
        overflowed: naive.dataset.overflowed,
        underflowed: naive.dataset.underflowed,
        naiveText: naive.textContent,
        // Text outside the deliberately labelled naive panel.
        otherText:
          [...root.children]
            .filter((el) => el !== naive && !el.contains(naive))
            .map((el) => el.textContent)
            .join(' ') +
          [...root.querySelector('.figures').children]
            .filter((el) => el !== naive)
            .map((el) => el.textContent)
            .join(' '),
        cellError: root.querySelector('.cell-error')?.textContent ?? null,
        message: root.querySelector('[data-role="message"]').textContent.trim(),
      };
    },
    { stages: STAGES, singles: SINGLES },
  );
}

const close = (got, want) => got === want || (Number.isNaN(got) && Number.isNaN(want)) || Math.abs(got - want) <= TOLERANCE;

/** Asserts that the view shows exactly lab.softmaxBreakdown(scores, temperature). */
async function assertShowsCore(page, scores, temperature) {
  const want = lab.softmaxBreakdown(scores, temperature);
  const got = await shown(page);
  assert.equal(Number(got.temperature), temperature);
  for (const stage of STAGES) {
    assert.equal(got.stages[stage].length, scores.length, stage);
    got.stages[stage].forEach((v, i) => assert.ok(close(Number(v), at(want, stage)[i]), `${stage}[${i}]: ${v} vs ${at(want, stage)[i]}`));
  }
  for (const single of SINGLES) assert.ok(close(Number(got.singles[single]), at(want, single)), `${single}: ${got.singles[single]}`);
  assert.equal(got.bars.length, scores.length, 'one bar per weight');
  got.bars.forEach((v, i) => assert.ok(close(Number(v), want.weights[i]), `bar ${i}`));
  assert.equal(got.overflowed, String(want.withoutMax.overflowed));
  assert.equal(got.underflowed, String(want.withoutMax.underflowed));
  assert.doesNotMatch(got.otherText, /NaN/, 'NaN appears only in the naive panel');
  return got;
}

const scoreCell = (i) => `${VIEW} table[data-matrix="scores"] td[data-col="${i}"] input`;

test('softmax view: the default row, stage by stage, equals the core', async (t) => {
  const { page, problems } = await open(t);
  const { viewState } = await labState(page);
  assert.deepEqual(viewState, { scores: [2, 1, 0.1], temperature: 1 });
  const got = await assertShowsCore(page, [2, 1, 0.1], 1);
  assert.equal(got.overflowed, 'false');
  assert.equal(await page.locator(`${VIEW} [data-role="formula"] math`).count(), 1, 'the KaTeX formula is rendered');
  assertClean(problems);
});

test('softmax view: editing a score recomputes; bad text gets an inline error and keeps the last good row', async (t) => {
  const { page, problems } = await open(t);
  await page.locator(scoreCell(1)).fill('3');
  await settle(page);
  assert.deepEqual((await labState(page)).viewState.scores, [2, 3, 0.1]);
  await assertShowsCore(page, [2, 3, 0.1], 1);

  await page.locator(scoreCell(0)).fill('2..5');
  await settle(page);
  const got = await shown(page);
  assert.match(got.cellError, /"2\.\.5" is not a number/);
  assert.match(got.message, /Score 1/);
  assert.deepEqual((await labState(page)).viewState.scores, [2, 3, 0.1], 'the state keeps the last good row');
  await assertShowsCore(page, [2, 3, 0.1], 1);

  await page.locator(scoreCell(0)).fill('−1.5'); // a typographic minus is accepted
  await settle(page);
  assert.equal((await shown(page)).cellError, null);
  await assertShowsCore(page, [-1.5, 3, 0.1], 1);

  await page.locator(`${VIEW} [data-action="add-score"]`).click();
  await settle(page);
  await assertShowsCore(page, [-1.5, 3, 0.1, 0], 1);
  await page.locator(`${VIEW} [data-action="remove-score"]`).click();
  await page.locator(`${VIEW} [data-action="remove-score"]`).click();
  await settle(page);
  await assertShowsCore(page, [-1.5, 3], 1);
  assertClean(problems);
});

test('softmax view: the temperature slider (keyboard) flattens or sharpens the weights', async (t) => {
  const { page, problems } = await open(t);
  const slider = page.locator(`${VIEW} [data-control="temperature"]`);
  await slider.focus();
  for (let i = 0; i < 4; i++) await slider.press('ArrowRight'); // log10 T: 0 → 0.2
  await settle(page);
  const warm = (await labState(page)).viewState.temperature;
  assert.equal(warm, 1.58);
  const got = await assertShowsCore(page, [2, 1, 0.1], warm);
  const plain = lab.softmaxBreakdown([2, 1, 0.1], 1);
  assert.ok(Number(got.stages.weights[0]) < plain.weights[0], 'a higher temperature flattens the row');

  for (let i = 0; i < 10; i++) await slider.press('ArrowLeft'); // 0.2 → −0.3
  await settle(page);
  const cold = (await labState(page)).viewState.temperature;
  assert.equal(cold, 0.5);
  const sharp = await assertShowsCore(page, [2, 1, 0.1], cold);
  assert.ok(Number(sharp.stages.weights[0]) > plain.weights[0], 'a lower temperature sharpens it');
  assertClean(problems);
});

test('softmax view: large scores overflow to Infinity and NaN without the max, labelled, beside the stable result', async (t) => {
  const { page, problems } = await open(t, { scores: [1, 2], temperature: 3 });
  await page.locator(`${VIEW} [data-action="large-scores"]`).click();
  await settle(page);
  assert.deepEqual((await labState(page)).viewState, { scores: [100, 99, 98], temperature: 1 });
  const got = await assertShowsCore(page, [100, 99, 98], 1);
  assert.equal(got.overflowed, 'true');
  assert.deepEqual(got.stages['withoutMax.exponentials'], ['Infinity', 'Infinity', 'Infinity']);
  assert.deepEqual(got.stages['withoutMax.weights'], ['NaN', 'NaN', 'NaN']);
  assert.equal(got.singles['withoutMax.sum'], 'Infinity');
  assert.match(got.naiveText, /What goes wrong without subtracting the max/);
  assert.match(got.naiveText, /Overflow/);
  assert.ok(
    got.stages.weights.every((v) => Number.isFinite(Number(v))),
    'the stable weights stay finite',
  );

  // Sharpen past the overflow: at T = 0.1 even [10, 9] overflows (100, 90 after dividing).
  await page.evaluate(() => document.querySelector('attn-lab').setState({ viewState: { scores: [10, 9], temperature: 0.1 } }));
  await settle(page);
  await assertShowsCore(page, [10, 9], 0.1);
  assertClean(problems);
});

test('softmax view with the overflow panel showing has no serious or critical axe violations, light or dark', async (t) => {
  const { page } = await open(t, { scores: [100, 99, 98], temperature: 1 });
  assert.deepEqual(await auditThemes(page), []);
});
