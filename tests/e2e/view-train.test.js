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
  page
    .locator(`${view} [data-layer="${layer}"] table`)
    .evaluateAll((tables) =>
      tables.map((table) =>
        [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td[data-value]')].map((td) => Number(td.dataset.value))),
      ),
    );

// The sample sequence's tokens of a trainer of `config`, from Node, and how a position is labelled.
async function sampleTokens(config) {
  const trainer = await lab.trainer(config);
  const { tokenIds: tokens } = trainer.attention();
  trainer.delete();
  return tokens;
}
const positionLabel = (token, i) => `t${'₁₂₃₄₅₆₇₈'[i]} (${token})`;

const onPrevious = (weights) => weights.slice(1).reduce((sum, row, i) => sum + row[i], 0) / (weights.length - 1);

test('previous-token reaches 95% within 10 s of training; a layer-1 head then looks one token back', async (t) => {
  const seed = 3;
  const { page, problems } = await session.open(t, `index.html${encodeHash({ ...presetState('tiny'), view: 'train', viewState: { seed } })}`, {
    view: 'train',
  });
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
  // Train stops by itself once the task is learned (≥ 99% on held-out sequences), and says so.
  await page.locator(`${view} [data-action="train"]:not([disabled])`).waitFor({ timeout: 10_000 });
  assert.match(await page.locator(`${view} [data-role="train-status"]`).textContent(), /Learned, so training stopped here/);
  const step = await field(page, 'step');
  const accuracy = await field(page, 'accuracy');
  const loss = await field(page, 'loss');
  console.log(`previous-token: ${(100 * accuracy).toFixed(1)}% at step ${step} after ${seconds.toFixed(1)} s`);
  assert.ok(accuracy >= 0.99);

  // The view's heads on the sample; the best puts ≥ 0.8 on the previous token on average.
  const heads = await shownHeads(page, 0);
  const best = Math.max(...heads.map(onPrevious));
  console.log(`mean weight on the previous token: ${best.toFixed(3)} (untrained ${untrained.toFixed(3)})`);
  assert.ok(best >= 0.8, `best head ${best}`);
  assert.ok(untrained < 0.8);

  // The same seed in Node: the same loss and accuracy at that step, the same weights.
  const trainer = await lab.trainer({ seed });
  let progress;
  for (let done = 0; done < step; done += 5) progress = trainer.step(Math.min(5, step - done));
  assert.equal(progress.step, step);
  assert.ok(Math.abs(progress.loss - loss) <= 1e-6 * Math.max(1, loss));
  assert.ok(Math.abs(progress.accuracy - accuracy) <= 1e-6);
  const expected = trainer.attention().weights[0];
  const diff = Math.max(...expected.flatMap((head, h) => head.flatMap((row, i) => row.map((w, j) => Math.abs(w - heads[h][i][j])))));
  assert.ok(diff <= 1e-6, `weights differ by ${diff}`);
  trainer.delete();

  // The loss curve and the accuracy curve plot what was recorded.
  assert.ok((await page.locator(`${view} [data-series="heldOutLoss"] circle`).count()) >= step / 5);
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
  // Rows are positions with their token, so a repeated token never makes two rows alike.
  assert.deepEqual(state.tokens, (await sampleTokens({ heads: 2 })).map(positionLabel));
  // The stepper's own trace of that layer gives the weights the train view showed.
  const trace = lab.trace({ X: state.X, Wq: state.Wq, Wk: state.Wk, Wv: state.Wv, Wo: state.Wo, heads: 2, causal: true });
  for (const s of trace.steps.filter((x) => x.id === 'softmax')) {
    const diff = Math.max(...s.values.flatMap((row, i) => row.map((w, j) => Math.abs(w - shown[s.head][i][j]))));
    assert.ok(diff <= 1e-5, `head ${s.head}: ${diff}`);
  }
  assertClean(problems);
});

test('a train view to watch: slow by default, a speed control, stops when learned, real loss digits, positions as labels, the shortcut said', async (t) => {
  const { page, problems } = await session.open(t, `index.html${encodeHash({ ...presetState('tiny'), view: 'train' })}`, { view: 'train' });
  await page.locator(`${view} [data-layer="0"] table`).first().waitFor();
  assert.equal(await page.locator(`${view} [data-control="speed"]`).inputValue(), 'slow');
  await page.locator(`${view} [data-action="train"]`).click();
  await page.locator(`${view} [data-field="step"]`).waitFor();
  await new Promise((done) => setTimeout(done, 1500));
  const early = await field(page, 'step');
  // 10 steps a second: the pattern forms over seconds, not in the first frames.
  assert.ok(early >= 3 && early <= 25, `step ${early} after 1.5 s at the slow speed`);
  // It stops once learned, long before the 2,000-step cap, so the step axis spans the learning.
  await page.locator(`${view} [data-action="train"]:not([disabled])`).waitFor({ timeout: 30_000 });
  const learned = await field(page, 'step');
  assert.ok(learned < 200 && (await field(page, 'accuracy')) >= 0.99, `stopped at step ${learned}`);
  const ticks = await page.locator(`${view} svg.chart >> nth=0`).locator('.axis g text').allTextContents();
  assert.ok(Math.max(...ticks.map(Number).filter(Number.isFinite)) <= 2 * learned, `x ticks ${ticks.join(' ')}`);
  // The loss with its digits: the text reads back as the value to 3 significant digits, never "0".
  const loss = page.locator(`${view} [data-role="train-status"] [data-field="loss"]`);
  const value = Number(await loss.getAttribute('data-value'));
  const text = (await loss.textContent()).trim();
  assert.notEqual(Number(text.replace('−', '-')), 0, text);
  assert.ok(Math.abs(Number(text.replace('−', '-')) - value) <= 0.005 * value, `${text} for ${value}`);

  // Positions as labels, t₁ … t₈ with the token beside it, the tokens the core's sample.
  const rows = await page.locator(`${view} [data-layer="0"] table >> nth=0`).locator('tbody th').allTextContents();
  assert.deepEqual(
    rows.map((r) => r.trim()),
    (await sampleTokens({})).map(positionLabel),
  );

  // Faster on demand; once learned, Train goes on.
  await page.locator(`${view} [data-control="speed"]`).selectOption('fast');
  await page.locator(`${view} [data-action="train"]`).click();
  await page.waitForFunction(
    (learned) =>
      Number(document.querySelector('attn-lab').shadowRoot.querySelector('attn-train-view').shadowRoot.querySelector('[data-field="step"]').dataset.value) >
      learned + 100,
    learned,
    { timeout: 10_000 },
  );
  await page.locator(`${view} [data-action="pause"]`).click();
  await page.locator(`${view} [data-control="log-axis"]`).check();
  assert.match(await page.locator(`${view} svg.chart >> nth=0`).textContent(), /step \(log\)/);

  // Induction says what its fixed split gives away, and offers the honest variant.
  await page.locator(`${view} [data-control="task"]`).selectOption('induction');
  assert.match(await page.locator(`${view} [data-role="shortcut"]`).textContent(), /always starts halfway[\s\S]*3 positions back/);
  await page.locator(`${view} [data-control="task"]`).selectOption('induction-anywhere');
  assert.match(await page.locator(`${view} [data-role="shortcut"]`).textContent(), /no fixed\s+offset works/);
  assert.equal((await labState(page)).viewState.task, 'induction-anywhere');
  assertClean(problems);
});
