// The phase change, live (issue 38, item 5): the train view's honest induction task at its
// default settings (two layers, the slow speed) reaches its accuracy within about a minute,
// and the chart shows the held-out loss dropping as layer 2's induction score rises. The
// numbers are read from the chart's points (data-x, data-y) and checked against the same
// seed's trainer called from Node; then the trained layer 1 opens in the stepper and its trace
// gives the weights the view showed. A screenshot of the chart goes to
// test-results/e2e/train-induction.png.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { encodeHash, presetState } from './support/expected.js';
import { assertClean, labState } from './support/lab-page.js';
import { browserSession, SCREENSHOT_DIR } from './support/session.js';

const session = browserSession('web/dist');
const lab = await createAttnLab();
const view = 'attn-lab attn-train-view';

const field = (page, name) => page.locator(`${view} [data-role="train-status"] [data-field="${name}"]`).getAttribute('data-value').then(Number);
// A curve as drawn: [step, value] per point.
const curve = (page, id) =>
  page.locator(`${view} [data-series="${id}"] circle`).evaluateAll((circles) => circles.map((c) => [Number(c.dataset.x), Number(c.dataset.y)]));

test('induction-anywhere forms its induction head within two minutes: the loss drops as the head’s score rises on the chart', async (t) => {
  const seed = 1;
  const { page, problems } = await session.open(t, `index.html${encodeHash({ ...presetState('tiny'), view: 'train', viewState: { seed } })}`, {
    view: 'train',
  });
  await page.locator(`${view} [data-layer="0"] table`).first().waitFor();
  await page.locator(`${view} [data-control="task"]`).selectOption('induction-anywhere');
  // The honest task starts with the two layers it needs.
  await page.locator(`${view} [data-layer="1"] table`).first().waitFor();
  const { viewState } = await labState(page);
  assert.deepEqual([viewState.task, viewState.layers, viewState.heads], ['induction-anywhere', 2, 1]);
  assert.equal(await page.locator(`${view} [data-control="speed"]`).inputValue(), 'slow');

  const start = Date.now();
  await page.locator(`${view} [data-action="train"]`).click();
  await page.locator(`${view} [data-field="step"]`).waitFor();
  // Train stops by itself at the task's accuracy (90%: ambiguous copies cap it near 95%).
  await page.locator(`${view} [data-action="train"]:not([disabled])`).waitFor({ timeout: 150_000 });
  const seconds = (Date.now() - start) / 1000;
  const step = await field(page, 'step');
  const accuracy = await field(page, 'accuracy');
  assert.ok(accuracy >= 0.9, `accuracy ${accuracy} at step ${step}`);
  assert.match(await page.locator(`${view} [data-role="train-status"]`).textContent(), /Learned, so training stopped here/);
  assert.ok(seconds <= 120, `${seconds} s`);

  // The chart: layer 2's induction score starts near uniform attention's and ends high; the
  // held-out loss falls to a fraction of its start; the step the sentence names is where the
  // score first reached 0.5.
  const induction = await curve(page, 'induction');
  const loss = await curve(page, 'heldOutLoss');
  assert.equal(induction.at(-1)[0], step);
  assert.ok(induction[0][1] < 0.2, `induction score ${induction[0][1]} at step ${induction[0][0]}`);
  assert.ok(induction.at(-1)[1] >= 0.5, `induction score ${induction.at(-1)[1]} at step ${step}`);
  assert.ok(loss.at(-1)[1] < loss[0][1] / 3, `held-out loss ${loss[0][1]} → ${loss.at(-1)[1]}`);
  const formed = Number(await page.locator(`${view} [data-role="phase"] [data-field="formed"]`).getAttribute('data-value'));
  const at = induction.findIndex(([x]) => x === formed);
  assert.ok(at > 0 && induction[at][1] >= 0.5 && induction[at - 1][1] < 0.5, `formed at step ${formed}`);
  assert.match(await page.locator(`${view} [data-role="phase"]`).textContent(), /plateau[\s\S]*L2 H1[\s\S]*passed 0\.5 at step/);
  console.log(
    `induction-anywhere, seed ${seed}: ${(100 * accuracy).toFixed(1)}% at step ${step} after ${seconds.toFixed(1)} s; induction score ` +
      `${induction[0][1].toFixed(3)} → ${induction.at(-1)[1].toFixed(3)}, past 0.5 at step ${formed}; held-out loss ${loss[0][1].toFixed(3)} → ${loss.at(-1)[1].toFixed(3)}`,
  );
  await page.locator(`${view} svg.chart`).screenshot({ path: `${SCREENSHOT_DIR}/train-induction.png` });

  // The same seed's trainer from Node, stepped as the view steps (one step a message at the
  // slow speed): the chart's last points are its numbers.
  const trainer = await lab.trainer({ task: 'induction-anywhere', layers: 2, heads: 1, seed, contextLength: 16, vocab: 32 });
  let progress;
  for (let done = 0; done < step; done++) progress = trainer.step(1);
  const layerTwo = trainer.attention().weights[1];
  trainer.delete();
  assert.ok(Math.abs(progress.induction[1][0] - induction.at(-1)[1]) <= 1e-6, `${progress.induction[1][0]} against ${induction.at(-1)[1]}`);
  assert.ok(Math.abs(progress.heldOutLoss - loss.at(-1)[1]) <= 1e-6 * Math.max(1, loss.at(-1)[1]));
  const previous = await curve(page, 'previousToken');
  assert.ok(Math.abs(Math.max(...progress.previousToken[0]) - previous.at(-1)[1]) <= 1e-6);

  // Then the heads open in the stepper: layer 2 (the induction head's) by default, on the
  // sample; the stepper's trace of it gives the trainer's weights of layer 2.
  assert.equal(await page.locator(`${view} [data-control="open-layer"]`).inputValue(), '1');
  await page.locator(`${view} [data-action="open-stepper"]`).click();
  await page.waitForFunction(() => document.querySelector('attn-lab').getState()?.view === 'stepper');
  const state = await labState(page);
  assert.equal(state.tokens.length, 16);
  const trace = lab.trace({ X: state.X, Wq: state.Wq, Wk: state.Wk, Wv: state.Wv, Wo: state.Wo, heads: state.heads, causal: true });
  assert.ok(trace.steps.some((x) => x.id === 'softmax'));
  for (const s of trace.steps.filter((x) => x.id === 'softmax')) {
    const diff = Math.max(...s.values.flatMap((row, i) => row.map((w, j) => Math.abs(w - layerTwo[s.head ?? 0][i][j]))));
    assert.ok(diff <= 1e-5, `head ${s.head}: ${diff}`);
  }
  assertClean(problems);
});
