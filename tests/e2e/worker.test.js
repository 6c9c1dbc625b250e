// Heavy work off the page's thread (issue 14): the long-sequence and cost views run the core
// in a Worker, so no task of the page's thread lasts over 100 ms while a run goes on (Chromium's
// 'longtask' entries); a run ends, its worker terminated and its CPU work stopped, when it is
// cancelled, replaced, its settings change, another view is chosen or the element is removed;
// where no Worker can start, the work runs on the page with a note. The numbers are compared
// with the core's in Node.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { maxAbsDiff } from '../support/compare.js';
import { normalQKV } from '../support/normal-qkv.js';
import { encodeHash, presetState } from './support/expected.js';
import { assertClean, labState } from './support/lab-page.js';
import { cpuAfterStop, longTasks, openWatched, pause, workers } from './support/worker-page.js';

const lab = await createAttnLab();
const LONG = 'attn-lab attn-long-sequence-view';
const COST = 'attn-lab attn-cost-view';
const README_POLICY = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'";

const openView = (t, view, viewState, options) => openWatched(t, { path: `index.html${encodeHash({ ...presetState('tiny'), view, viewState })}`, ...options });

const shown = (page, view) => page.locator(`attn-lab attn-${view}-view`).first().waitFor();

// The sampled weights the long-sequence view shows, with their 0-based query rows and key columns.
const sampledWeights = (page) =>
  page.locator(`${LONG} table[data-matrix="sampled-weights"]`).evaluate((table) => {
    const labels = (selector) => [...table.querySelectorAll(selector)].map((th) => Number(th.textContent.slice(1)) - 1);
    const weights = [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td[data-value]')].map((td) => Number(td.dataset.value)));
    return { rows: labels('tbody th'), cols: labels('thead th'), weights };
  });

// Asserts that the view shows the core's weights for its inputs (n tokens, d = 64 and causal
// unless given, seed 1).
async function assertCoreWeights(page, n, { d = 64, causal = true } = {}) {
  const { rows, cols, weights } = await sampledWeights(page);
  const [Q, K] = normalQKV(lab, { n, d, seed: 1 });
  assert.equal(weights.length, 12);
  assert.ok(maxAbsDiff(weights, lab.sampledWeights({ Q, K, causal, rows, cols })) <= 1e-6, `n = ${n}: the weights differ from the core's`);
}

test("a long-sequence run at n = 4,096 and a cost measurement up to n = 2,048 leave no main-thread task over 100 ms, and show the core's numbers", async (t) => {
  const { page, problems } = await openView(t, 'long-sequence', { n: 4096 });
  await shown(page, 'long-sequence');
  await page.evaluate(() => (window.__longTasks = [])); // loading the page is not the run
  await page.locator(`${LONG} [data-action="run"]`).click();
  await page.locator(`${LONG} table[data-matrix="sampled-weights"]`).waitFor({ timeout: 300_000 });
  const ms = Number(await page.locator(`${LONG} tr[data-backend="wasm"] td[data-ms]`).getAttribute('data-ms'));
  // A long task is one over 50 ms (the Long Tasks API): the run is one, had it run on the page.
  assert.ok(ms > 50, `the run took ${ms} ms: a long task, had it run on the page`);
  assert.deepEqual(
    (await longTasks(page)).filter((d) => d > 100),
    [],
    'main-thread tasks over 100 ms during the long-sequence run',
  );
  assert.match((await workers(page))[0]?.url ?? '', /\/assets\/attnlab-worker-[\w-]+\.js$/, 'the run started the bundled worker');
  await assertCoreWeights(page, 4096);

  await page.evaluate(() => document.querySelector('attn-lab').setState({ view: 'cost', viewState: { maxN: 2048 } }));
  await shown(page, 'cost');
  assert.deepEqual(
    (await workers(page)).map((w) => w.terminated),
    [true],
    'the view that left ended its idle worker',
  );
  await page.evaluate(() => (window.__longTasks = []));
  await page.locator(`${COST} [data-action="measure"]`).click();
  await page.locator(`${COST} tr[data-n="2048"] td[data-kernel="flash"][data-bytes]`).waitFor({ timeout: 120_000 });
  assert.deepEqual(
    (await longTasks(page)).filter((d) => d > 100),
    [],
    'main-thread tasks over 100 ms during the measurement',
  );
  const naiveMs = Number(await page.locator(`${COST} tr[data-n="2048"] td[data-kernel="naive"][data-ms]`).getAttribute('data-ms'));
  assert.ok(naiveMs > 50, `the naive kernel at n = 2048 took ${naiveMs} ms, over a long task's worth (50 ms)`);
  const naiveBytes = Number(await page.locator(`${COST} tr[data-n="2048"] td[data-kernel="naive"][data-bytes]`).getAttribute('data-bytes'));
  assert.ok(naiveBytes >= 4 * 2048 * 2048, `the naive kernel held ${naiveBytes} B, at least one n×n matrix`);
  assert.equal((await page.locator(`${COST} [data-role="worker-note"]`).count()) + (await page.locator(`${LONG} [data-role="worker-note"]`).count()), 0);
  assertClean(problems);
});

test('embedded from dist/element.js, the view starts dist/attnlab-worker.js, which finds the wasm beside it', async (t) => {
  const { page, problems } = await openWatched(t, { root: '.', path: 'tests/e2e/fixtures/blank.html' });
  await page.addScriptTag({ type: 'module', url: '/dist/element.js' });
  await page.evaluate(() => document.body.append(Object.assign(document.createElement('attn-lab'), { preset: 'long-sequence' })));
  await page.locator(`${LONG} [data-control="n"]`).selectOption('4096');
  await page.evaluate(() => (window.__longTasks = []));
  await page.locator(`${LONG} [data-action="run"]`).click();
  await page.locator(`${LONG} table[data-matrix="sampled-weights"]`).waitFor({ timeout: 120_000 });
  assert.deepEqual(
    (await workers(page)).map((w) => new URL(w.url).pathname),
    ['/dist/attnlab-worker.js'],
  );
  assert.deepEqual(
    (await longTasks(page)).filter((d) => d > 100),
    [],
  );
  assert.equal(await page.locator(`${LONG} [data-role="worker-note"]`).count(), 0);
  await assertCoreWeights(page, 4096);
  assertClean(problems);
});

test('Stop, Cancel, a new run and new settings each end the work under way: its worker is terminated and the CPU work stops', async (t) => {
  // A measurement up to n = 4,096 with d = 128, stopped while under way.
  const measuring = await openView(t, 'cost', { maxN: 4096, headWidth: 128 });
  await shown(measuring.page, 'cost');
  await measuring.page.locator(`${COST} [data-action="measure"]`).click();
  await measuring.page.waitForFunction(() => window.__workers.length === 1);
  await measuring.page.locator(`${COST} [data-action="stop"]`).click();
  const status = (await measuring.page.locator(`${COST} [data-role="cost-status"]`).textContent()).trim();
  const [, done, total] = /Stopped after (\d+) of (\d+) runs/.exec(status) ?? [];
  assert.ok(Number(done) < Number(total), `stopped while under way: ${status}`);
  assert.deepEqual(
    (await workers(measuring.page)).map((w) => w.terminated),
    [true],
  );
  assert.ok((await cpuAfterStop(measuring.cpuSeconds)) < 0.1, 'CPU work goes on after Stop');

  // Within the core's limits one long-sequence call is short (about 80 ms causal at n = 4,096,
  // d = 64, on this project's AVX-512 machine), so Cancel right after Run, on the heaviest
  // settings: non-causal, the widest heads.
  const { page, problems, cpuSeconds } = await openView(t, 'long-sequence', { n: 4096, headWidth: 128, causal: false });
  await shown(page, 'long-sequence');
  const run = page.locator(`${LONG} [data-action="run"]`);
  const cancel = page.locator(`${LONG} [data-action="cancel"]`);
  assert.equal(await cancel.isDisabled(), true, 'nothing to cancel before a run');
  await run.click();
  await page.waitForFunction(() => window.__workers.length === 1);
  await cancel.click();
  assert.deepEqual(
    (await workers(page)).map((w) => w.terminated),
    [true],
  );
  assert.equal((await page.locator(`${LONG} [data-role="message"]`).textContent()).trim(), 'Cancelled.');
  assert.equal(await cancel.isDisabled(), true);
  assert.ok((await cpuAfterStop(cpuSeconds)) < 0.1, 'CPU work goes on after Cancel');
  assert.equal(await page.locator(`${LONG} table[data-matrix="sampled-weights"]`).count(), 0, 'a cancelled run shows no result');

  // Run while a run goes on: the first worker ends and a second one starts.
  await run.click();
  await page.waitForFunction(() => window.__workers.length === 2);
  await run.click();
  await page.waitForFunction(() => window.__workers.length === 3);
  assert.deepEqual(
    (await workers(page)).map((w) => w.terminated),
    [true, true, false],
  );
  // New settings: the run for the old ones ends, and nothing it computed is shown.
  await page.locator(`${LONG} [data-control="n"]`).selectOption('256');
  assert.deepEqual(
    (await workers(page)).map((w) => w.terminated),
    [true, true, true],
  );
  assert.equal((await labState(page)).viewState.n, 256);
  assert.ok((await cpuAfterStop(cpuSeconds)) < 0.1, 'CPU work goes on after the settings changed');
  assert.equal(await page.locator(`${LONG} table[data-matrix="sampled-weights"]`).count(), 0);
  // The view still works: a run with the new settings gives the core's numbers.
  await run.click();
  await page.locator(`${LONG} table[data-matrix="sampled-weights"]`).waitFor({ timeout: 60_000 });
  await assertCoreWeights(page, 256, { d: 128, causal: false });
  assertClean(problems);
});

for (const [leave, how] of [
  ['choosing another view', (page) => page.evaluate(() => document.querySelector('attn-lab').setState({ view: 'stepper' }))],
  ['removing the element', (page) => page.evaluate(() => document.querySelector('attn-lab').remove())],
]) {
  test(`${leave} during a run or a measurement terminates its worker and stops the CPU work`, async (t) => {
    const { page, problems, cpuSeconds } = await openView(t, 'long-sequence', { n: 4096, headWidth: 128 });
    await shown(page, 'long-sequence');
    await page.locator(`${LONG} [data-action="run"]`).click();
    await page.waitForFunction(() => window.__workers.length === 1);
    await pause(100);
    await how(page);
    assert.deepEqual(
      (await workers(page)).map((w) => w.terminated),
      [true],
    );
    assert.ok((await cpuAfterStop(cpuSeconds)) < 0.1, `CPU work goes on after ${leave}`);

    // The cost view, measuring up to n = 4096 with d = 128 (the naive kernel alone takes seconds there).
    await page.evaluate(() => {
      document.querySelector('attn-lab')?.remove();
      document.body.append(
        Object.assign(document.createElement('attn-lab'), { state: JSON.stringify({ view: 'cost', viewState: { maxN: 4096, headWidth: 128 } }) }),
      );
    });
    await shown(page, 'cost');
    await page.locator(`${COST} [data-action="measure"]`).click();
    await page.waitForFunction(() => window.__workers.length === 2);
    await how(page);
    assert.deepEqual(
      (await workers(page)).map((w) => w.terminated),
      [true, true],
    );
    assert.ok((await cpuAfterStop(cpuSeconds)) < 0.1, `CPU work goes on after ${leave}`);
    assertClean(problems);
  });
}

test("where no worker can start (a policy forbids workers, or the worker's file is missing), the work runs on the page, with a note", async (t) => {
  const ways = {
    "worker-src 'none'": { headers: { 'content-security-policy': `${README_POLICY}; worker-src 'none'` } },
    'a missing worker file': { setup: (page) => page.route(/attnlab-worker-[\w-]+\.js$/, (route) => route.fulfill({ status: 404 })) },
  };
  for (const [way, options] of Object.entries(ways)) {
    const { page, problems } = await openView(t, 'long-sequence', { n: 4096 }, options);
    await shown(page, 'long-sequence');
    assert.equal(await page.locator(`${LONG} [data-role="worker-note"]`).count(), 0, `${way}: no note before a worker was tried`);
    await page.evaluate(() => (window.__longTasks = []));
    await page.locator(`${LONG} [data-action="run"]`).click();
    await page.locator(`${LONG} table[data-matrix="sampled-weights"]`).waitFor({ timeout: 120_000 });
    assert.match(
      await page.locator(`${LONG} [data-role="worker-note"]`).textContent(),
      /could not start a background worker, so the work runs on the page itself/,
      way,
    );
    await assertCoreWeights(page, 4096);
    // On the page the kernel is one long task: what the test above checks can fail.
    assert.ok(Math.max(0, ...(await longTasks(page))) > 100, `${way}: the kernel ran on the page's thread`);
    // Apart from the browser's report of the refused worker, nothing goes wrong.
    assertClean({ ...problems, consoleErrors: problems.consoleErrors.filter((text) => !/worker|404/i.test(text)) });
  }
});
