// The train view: the core trains a tiny transformer in a Worker while the page stays live.
// Previous-token must reach 95% accuracy within 10 s of training, and a layer-1 head must then
// put at least 0.8 of its weight on the previous token, read from the view's cells; the same
// seed's trainer called from Node gives the same curve and weights. The trained layer opens in
// the stepper. A screenshot mid-run goes to test-results/e2e/train-mid-run.png.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { audit } from './support/axe.js';
import { encodeHash, presetState } from './support/expected.js';
import { assertClean, labState } from './support/lab-page.js';
import { browserSession, SCREENSHOT_DIR } from './support/session.js';

const session = browserSession('web/dist');
const lab = await createAttnLab();
const view = 'attn-lab attn-train-view';

const field = (page, name) => page.locator(`${view} [data-role="train-status"] [data-field="${name}"]`).getAttribute('data-value').then(Number);

// Every head of layer `layer`: its weights as shown, cell by cell, from data-value.
const shownHeads = (page, layer) =>
  page.locator(`${view} [data-layer="${layer}"] table`).evaluateAll((tables) =>
    tables.map((table) => [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td[data-value]')].map((td) => Number(td.dataset.value)))),
  );

const onPrevious = (weights) => weights.slice(1).reduce((sum, row, i) => sum + row[i], 0) / (weights.length - 1);

test('previous-token reaches 95% within 10 s of training; a layer-1 head then looks one token back', async (t) => {
  const seed = 3;
  const { page, problems } = await session.open(t, `index.html${encodeHash({ ...presetState('tiny'), view: 'train', viewState: { seed } })}`, { view: 'train' });
  await page.locator(`${view} [data-layer="0"] table`).first().waitFor();
  const untrained = Math.max(...(await shownHeads(page, 0)).map(onPrevious));

  const start = Date.now();
  await page.locator(`${view} [data-action="train"]`).click();
  // Mid-run: the page answers while the worker trains.
  await page.locator(`${view} [data-field="step"]`).waitFor();
  assert.equal(await page.evaluate(() => 1 + 1), 2);
  await page.screenshot({ path: `${SCREENSHOT_DIR}/train-mid-run.png`, fullPage: true });
  await page.waitForFunction(
    () => {
      const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-train-view').shadowRoot;
      return Number(root.querySelector('[data-field="accuracy"]')?.dataset.value) >= 0.95;
    },
    null,
    { timeout: 10_000 },
  );
  const seconds = (Date.now() - start) / 1000;
  await page.locator(`${view} [data-action="pause"]`).click();
  await page.locator(`${view} [data-action="train"]:not([disabled])`).waitFor();
  const step = await field(page, 'step');
  const accuracy = await field(page, 'accuracy');
  const loss = await field(page, 'loss');
  console.log(`previous-token: ${(100 * accuracy).toFixed(1)}% at step ${step} after ${seconds.toFixed(1)} s`);
  assert.ok(accuracy >= 0.95);

  // The view's heads on the sample; the best puts ≥ 0.8 on the previous token on average.
  const heads = await shownHeads(page, 0);
  const best = Math.max(...heads.map(onPrevious));
  console.log(`mean weight on the previous token: ${best.toFixed(3)} (untrained ${untrained.toFixed(3)})`);
  assert.ok(best >= 0.8, `best head ${best}`);
  assert.ok(untrained < 0.8);

  // The same seed in Node: the same loss and accuracy at that step, the same weights.
  const trainer = await lab.trainer({ seed });
  let progress;
  for (let done = 0; done < step; done += 5) progress = trainer.step(5);
  assert.equal(progress.step, step);
  assert.ok(Math.abs(progress.loss - loss) <= 1e-6 * Math.max(1, loss));
  assert.ok(Math.abs(progress.accuracy - accuracy) <= 1e-6);
  const expected = trainer.attention().weights[0];
  const diff = Math.max(...expected.flatMap((head, h) => head.flatMap((row, i) => row.map((w, j) => Math.abs(w - heads[h][i][j])))));
  assert.ok(diff <= 1e-6, `weights differ by ${diff}`);
  trainer.delete();

  // The loss curve and the accuracy curve plot what was recorded.
  assert.ok((await page.locator(`${view} [data-series="loss"] circle`).count()) >= step / 5);
  assertClean(problems);
});

test('the trained layer opens in the stepper; settings land in the state; the view is accessible', async (t) => {
  const { page, problems } = await session.open(t, `index.html${encodeHash({ ...presetState('tiny'), view: 'train' })}`, { view: 'train' });
  await page.locator(`${view} [data-control="heads"]`).selectOption('2');
  await page.locator(`${view} [data-layer="0"] table >> nth=1`).waitFor();
  assert.equal((await labState(page)).viewState.heads, 2);
  await page.locator(`${view} [data-action="step"]`).click();
  await page.locator(`${view} [data-field="step"][data-value="1"]`).waitFor();
  const violations = await audit(page);
  assert.deepEqual(violations, []);

  const shown = await shownHeads(page, 0);
  await page.locator(`${view} [data-action="open-stepper"]`).click();
  await page.waitForFunction(() => document.querySelector('attn-lab').getState()?.view === 'stepper');
  const state = await labState(page);
  assert.equal(state.heads, 2);
  assert.equal(state.causal, true);
  assert.equal(state.step, 'softmax');
  // The stepper's own trace of that layer gives the weights the train view showed.
  const trace = lab.trace({ X: state.X, Wq: state.Wq, Wk: state.Wk, Wv: state.Wv, Wo: state.Wo, heads: 2, causal: true });
  for (const s of trace.steps.filter((x) => x.id === 'softmax')) {
    const diff = Math.max(...s.values.flatMap((row, i) => row.map((w, j) => Math.abs(w - shown[s.head][i][j]))));
    assert.ok(diff <= 1e-5, `head ${s.head}: ${diff}`);
  }
  assertClean(problems);
});
