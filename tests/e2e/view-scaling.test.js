// The scaling view: change d_k (slider over powers of two, the number field) and the seed;
// every chart point, bar, table cell and summary number equals lab.scalingStudy() computed
// here in Node by the built package.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { encodeHash, presetState } from './support/expected.js';
import { assertClean, labState, settle } from './support/lab-page.js';
import { auditThemes } from './support/axe.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const lab = await createAttnLab();
const VIEW = 'attn-lab attn-scaling-view';
const POWERS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
const STUDY = { keys: 16, samples: 256 }; // what the view asks for
// The page and this test run the same wasm: only the decimal round trip through data-* may differ.
const TOLERANCE = 1e-12;

const open = (t, viewState = {}) => session.open(t, `index.html${encodeHash({ ...presetState('tiny'), view: 'scaling', viewState })}`, { view: 'scaling' });

// The numbers the view shows: chart points per series, bars, the example table, the summary.
function shown(page) {
  return page.evaluate(() => {
    const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-scaling-view').shadowRoot;
    const points = (chart, series) =>
      [...root.querySelectorAll(`[data-role="${chart}"] [data-series="${series}"] circle`)].map((c) => [Number(c.dataset.x), Number(c.dataset.y)]);
    const bars = (series) =>
      [...root.querySelectorAll(`[data-role="example-chart"] [data-series="${series}"] rect[data-value]`)].map((r) => Number(r.dataset.value));
    const table = [];
    for (const cell of root.querySelectorAll('table[data-matrix="example"] td[data-row]')) {
      (table[Number(cell.dataset.row)] ??= [])[Number(cell.dataset.col)] = Number(cell.dataset.value);
    }
    const summary = Object.fromEntries(Object.entries(root.querySelector('[data-role="summary"]').dataset).map(([k, v]) => [k, Number(v)]));
    return {
      charts: {
        scoreStd: points('spread-chart', 'score-std'),
        maxWeightScaled: points('max-weight-chart', 'max-weight-scaled'),
        maxWeightUnscaled: points('max-weight-chart', 'max-weight-unscaled'),
        entropyScaled: points('entropy-chart', 'entropy-scaled'),
        entropyUnscaled: points('entropy-chart', 'entropy-unscaled'),
      },
      chartCount: root.querySelectorAll('svg[role="img"][aria-label]').length,
      bars: { scaled: bars('scaled'), unscaled: bars('unscaled') },
      table,
      summary,
      message: root.querySelector('[data-role="message"]').textContent.trim(),
      dkField: root.querySelector('[data-control="headWidth"]').value,
    };
  });
}

const near = (a, b) => Math.abs(a - b) <= TOLERANCE;
function assertList(got, want, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  got.forEach((v, i) => assert.ok(near(v, want[i]), `${what}[${i}]: ${v} vs ${want[i]}`));
}

/** Asserts the charts show the study over POWERS and the rest shows d_k `dk`, for `seed`. */
async function assertShowsCore(page, dk, seed) {
  const study = lab.scalingStudy({ dims: POWERS, seed, ...STUDY });
  const point = lab.scalingStudy({ dims: [dk], seed, ...STUDY }).points[0];
  const got = await shown(page);
  assert.equal(got.chartCount, 4, 'three line charts and the bars, each an SVG with role="img" and a label');
  for (const [key, points] of Object.entries(got.charts)) {
    assertList(
      points.map(([x]) => x),
      POWERS,
      `${key} x`,
    );
    assertList(
      points.map(([, y]) => y),
      study.points.map((p) => p[key]),
      `${key} y`,
    );
  }
  assertList(got.bars.scaled, point.exampleWeightsScaled, 'scaled bars');
  assertList(got.bars.unscaled, point.exampleWeightsUnscaled, 'unscaled bars');
  // One row per key: its score and its two weights.
  const column = (c) => got.table.map((row) => row[c]);
  assertList(column(0), point.exampleScores, 'example scores');
  assertList(column(1), point.exampleWeightsScaled, 'example scaled weights');
  assertList(column(2), point.exampleWeightsUnscaled, 'example unscaled weights');
  assert.equal(got.summary.dk, dk);
  for (const key of ['scoreStd', 'sqrtDk', 'maxWeightScaled', 'maxWeightUnscaled', 'entropyScaled', 'entropyUnscaled']) {
    assert.ok(near(got.summary[key], point[key]), `summary ${key}: ${got.summary[key]} vs ${point[key]}`);
  }
  assert.ok(near(got.summary.maxEntropy, study.maxEntropy));
  return { got, point };
}

test('scaling view: the default d_k = 64, every chart point and number equals the core', async (t) => {
  const { page, problems } = await open(t);
  assert.deepEqual((await labState(page)).viewState, { headWidth: 64, seed: 1 });
  const { point } = await assertShowsCore(page, 64, 1);
  // What the view teaches, read off the numbers it shows.
  assert.ok(Math.abs(point.scoreStd / point.sqrtDk - 1) < 0.1);
  assert.ok(point.maxWeightUnscaled > 2 * point.maxWeightScaled);
  assertClean(problems);
});

test('scaling view: the d_k slider (keyboard) and the number field change d_k; bad text keeps the last good d_k', async (t) => {
  const { page, problems } = await open(t);
  const slider = page.locator(`${VIEW} [data-control="dk-power"]`);
  await slider.focus();
  await slider.press('ArrowRight');
  await settle(page);
  assert.equal((await labState(page)).viewState.headWidth, 128);
  await assertShowsCore(page, 128, 1);
  for (let i = 0; i < 2; i++) await slider.press('ArrowRight');
  await settle(page);
  const { point } = await assertShowsCore(page, 512, 1);
  assert.ok(point.maxWeightUnscaled > 0.9, 'near one-hot without scaling at d_k = 512');

  const field = page.locator(`${VIEW} [data-control="headWidth"]`);
  await field.fill('100');
  await field.press('Enter');
  await settle(page);
  assert.equal((await labState(page)).viewState.headWidth, 100);
  await assertShowsCore(page, 100, 1);

  await field.fill('600');
  await field.press('Enter');
  await settle(page);
  let got = (await assertShowsCore(page, 100, 1)).got;
  assert.match(got.message, /dₖ must be a whole number from 1 to 512, not "600"/);
  assert.equal(got.dkField, '600', 'the rejected text stays for the learner to fix');
  assert.equal((await labState(page)).viewState.headWidth, 100);

  await slider.press('ArrowLeft'); // a good value clears the error
  await settle(page);
  got = (await assertShowsCore(page, 32, 1)).got;
  assert.equal(got.message, '');
  assertClean(problems);
});

test('scaling view: a new seed draws new numbers, and the charts follow the core', async (t) => {
  const { page, problems } = await open(t, { headWidth: 8 });
  const before = (await shown(page)).table[0];
  await page.locator(`${VIEW} [data-action="new-seed"]`).click();
  await settle(page);
  assert.deepEqual((await labState(page)).viewState, { headWidth: 8, seed: 2 });
  const { got } = await assertShowsCore(page, 8, 2);
  assert.notDeepEqual(got.table[0], before);

  const seed = page.locator(`${VIEW} [data-control="seed"]`);
  await seed.fill('12345');
  await seed.press('Enter');
  await settle(page);
  await assertShowsCore(page, 8, 12345);
  await seed.fill('-3');
  await seed.press('Enter');
  await settle(page);
  assert.match((await shown(page)).message, /seed must be a whole number from 0 to 2147483647, not "-3"/);
  assert.equal((await labState(page)).viewState.seed, 12345);
  assertClean(problems);
});

test('scaling view has no serious or critical axe violations, light or dark', async (t) => {
  const { page } = await open(t, { headWidth: 100 });
  assert.deepEqual(await auditThemes(page), []);
});
