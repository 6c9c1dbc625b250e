// The train view's life (issue 29): a learning module that cannot load shows a message
// naming it and stops (no retry loop, CPU idle); the view owns its one Worker, ended when the
// view leaves, idle or not; a refused first state with backward falls back to the default
// example; two elements never share a trainer, even without Workers; the progress survives a
// view switch. The numbers are compared with the trainer called from Node.
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { encodeHash } from './support/expected.js';
import { assertClean, waitForLabs } from './support/lab-page.js';
import { cpuOver, liveWorkers, openWatched, workers } from './support/worker-page.js';

const lab = await createAttnLab();
const README_POLICY = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'";
const TRAIN = 'attn-train-view';

// A blank page (root '.') with the packaged element and `count` elements of `attributes`.
async function openElements(t, { count = 1, attributes = { state: JSON.stringify({ view: 'train' }) }, root = '.', headers } = {}) {
  const opened = await openWatched(t, { root, path: 'tests/e2e/fixtures/blank.html', headers });
  await opened.page.addScriptTag({ type: 'module', url: '/dist/element.js' });
  await opened.page.evaluate(
    ([count, attributes]) => {
      for (let i = 0; i < count; i++) {
        const element = document.createElement('attn-lab');
        for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
        document.body.append(element);
      }
    },
    [count, attributes],
  );
  return opened;
}

// The train view of element `index`, by Playwright locator.
const trainOf = (page, index = 0) => page.locator(`attn-lab >> nth=${index}`).locator(TRAIN);
const statusField = async (page, name, index = 0) =>
  Number(await trainOf(page, index).locator(`[data-role="train-status"] [data-field="${name}"]`).getAttribute('data-value'));
const headsShown = (page, index = 0) => trainOf(page, index).locator('[data-layer="0"] table').first().waitFor();
// Clicks Step and waits for step `expected`.
async function stepTo(page, expected, index = 0) {
  await trainOf(page, index).locator('[data-action="step"]:not([disabled])').click();
  await trainOf(page, index).locator(`[data-field="step"][data-value="${expected}"]`).waitFor();
}
const showView = (page, view, index = 0) => page.evaluate(([view, index]) => document.querySelectorAll('attn-lab')[index].showView(view), [view, index]);

// The Node trainer's progress after `steps` single steps of `config`.
async function nodeProgress(config, steps) {
  const trainer = await lab.trainer(config);
  let progress;
  for (let s = 0; s < steps; s++) progress = trainer.step(1);
  trainer.delete();
  return progress;
}

test('a learning module that cannot load (404) is named on screen, tried a few times only, and leaves the CPU idle', async (t) => {
  // The packaged files without the learning module's wasm: a 404 for it, in the page and its worker.
  const root = await mkdtemp(join(tmpdir(), 'attnlab-404-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  await cp('dist', join(root, 'dist'), { recursive: true, filter: (source) => !source.endsWith('attnlab-learn.wasm') });
  await cp('tests/e2e/fixtures', join(root, 'tests/e2e/fixtures'), { recursive: true });
  const { page, problems, cpuSeconds } = await openElements(t, { root });
  const status = trainOf(page).locator('[data-role="train-status"]');
  await status.filter({ hasText: 'learning module' }).waitFor({ timeout: 15_000 });
  assert.match(await status.textContent(), /attnlab's learning module \(attnlab-learn\.js and attnlab-learn\.wasm\) could not load: .*tried 3 times/);
  // No loop: no CPU work after the message, no request after another view or the removal.
  const idle = await cpuOver(cpuSeconds, 1500);
  assert.ok(idle < 0.15, `${idle.toFixed(2)} CPU seconds over 1.5 s after the failure`);
  await showView(page, 'stepper');
  await page.evaluate(() => document.querySelector('attn-lab').remove());
  assert.ok(
    (await workers(page)).every((w) => w.terminated),
    'every worker ended',
  );
  assert.ok((await cpuOver(cpuSeconds, 1000)) < 0.1);
  // Only the browser's reports of the missing file, and nothing uncaught.
  assertClean({ ...problems, consoleErrors: problems.consoleErrors.filter((text) => !/404|attnlab-learn|wasm|could not load/i.test(text)) });
});

test('the train view owns one Worker: 30 idle round trips to the stepper leave at most one alive, none after the removal', async (t) => {
  const { page, problems } = await openElements(t);
  await headsShown(page);
  const live = await page.evaluate(async (TRAIN) => {
    const element = document.querySelector('attn-lab');
    const most = [];
    for (let i = 0; i < 30; i++) {
      element.showView('stepper');
      await element.updateComplete;
      element.showView('train');
      await element.updateComplete;
      // The view shows its untrained heads again: its worker answered.
      const view = element.shadowRoot.querySelector(TRAIN);
      while (!view.shadowRoot.querySelector('[data-layer="0"] table')) await new Promise((done) => setTimeout(done, 10));
      most.push(window.__workers.filter((w) => !w.terminated).length);
    }
    return most;
  }, TRAIN);
  assert.ok(Math.max(...live) <= 1, `live workers after each round trip: ${live.join(', ')}`);
  await page.evaluate(() => document.querySelector('attn-lab').remove());
  assert.equal(await liveWorkers(page), 0, 'a worker outlived its element');
  assertClean(problems);
});

test('a first state with backward that the core refuses falls back to the default example, with a message, tabs and inputs', async (t) => {
  const refused = { backward: true, heads: 4 };
  for (const [way, open] of [
    ['the state attribute', () => openElements(t, { attributes: { state: JSON.stringify(refused), tabs: '' } })],
    ['a #s= link', () => openWatched(t, { path: `index.html${encodeHash(refused)}` })],
  ]) {
    const { page, problems } = await open();
    await waitForLabs(page);
    const shown = await page.evaluate(() => {
      const element = document.querySelector('attn-lab');
      const root = element.shadowRoot;
      return {
        message: root.querySelector('[data-role="message"]').textContent,
        tabs: root.querySelectorAll('[role="tab"]').length,
        inputs: root.querySelectorAll('[data-role="inputs"] input').length,
        heads: element.getState().heads,
      };
    });
    assert.match(shown.message, /so the default example is shown/, way);
    assert.match(shown.message, /heads/, `${way}: the message names the problem`);
    assert.ok(shown.tabs >= 10 && shown.inputs > 0, `${way}: ${JSON.stringify(shown)}`);
    assert.equal(shown.heads, 1, way);
    assertClean(problems);
  }
});

test("without a Worker (worker-src 'none') two train elements keep their own trainers", async (t) => {
  const { page, problems } = await openElements(t, { count: 2, headers: { 'content-security-policy': `${README_POLICY}; worker-src 'none'` } });
  await headsShown(page, 0);
  await headsShown(page, 1);
  for (const step of [1, 2, 3]) await stepTo(page, step, 0);
  // B starts over and steps; A goes on from its own step 3.
  await trainOf(page, 1).locator('[data-action="reset"]').click();
  await stepTo(page, 1, 1);
  await stepTo(page, 4, 0);
  const expected = await nodeProgress({ seed: 1 }, 4);
  assert.ok(Math.abs((await statusField(page, 'loss', 0)) - expected.loss) <= 1e-6 * Math.max(1, expected.loss), 'A continued its own trainer');
  assert.match(await trainOf(page, 0).locator('[data-role="worker-note"]').textContent(), /could not start a background worker/);
  assertClean({ ...problems, consoleErrors: problems.consoleErrors.filter((text) => !/worker/i.test(text)) });
});

test('training progress survives a view switch: train → stepper → train goes on from the same step and trainer', async (t) => {
  const { page, problems } = await openElements(t);
  await headsShown(page);
  for (const step of [1, 2, 3]) await stepTo(page, step);
  const loss = await statusField(page, 'loss');
  await showView(page, 'stepper');
  await showView(page, 'train');
  await trainOf(page).locator('[data-field="step"][data-value="3"]').waitFor();
  assert.equal(await statusField(page, 'loss'), loss);
  assert.equal(await trainOf(page).locator('[data-series="heldOutLoss"] circle').count(), 3, 'the curve came back');
  // The trainer was rebuilt at step 3: one more step is the Node trainer's step 4.
  await stepTo(page, 4);
  const expected = await nodeProgress({ seed: 1 }, 4);
  assert.ok(Math.abs((await statusField(page, 'loss')) - expected.loss) <= 1e-6 * Math.max(1, expected.loss));
  assert.ok((await liveWorkers(page)) <= 1);
  assertClean(problems);
});
