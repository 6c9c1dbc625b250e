// The cost view: a live measurement of the naive and flash kernels against n. Times vary,
// so they are checked for shape only; the peak memory is the core's own count and must
// match the same calls made in Node, and the charts must plot the measured figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { encodeHash, presetState } from './support/expected.js';
import { assertClean, labState } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const lab = await createAttnLab();
const view = 'attn-lab attn-cost-view';

// The peak bytes the core holds for one call at size n, measured in Node.
function nodePeak(method, n, d) {
  const m = { rows: n, cols: d, data: new Float32Array(n * d).fill(0.5) };
  lab.resetPeakMemory();
  const before = lab.memoryStats().trackedBytes;
  lab[method]({ Q: m, K: m, V: m, causal: false });
  return lab.memoryStats().peakTrackedBytes - before;
}

const readRuns = (page) =>
  page.locator(`${view} [data-role="cost-runs"] tbody tr`).evaluateAll((rows) =>
    rows.map((row) => {
      const cell = (kernel, key) => Number(row.querySelector(`td[data-kernel="${kernel}"][data-${key}]`)?.dataset[key]);
      return {
        n: Number(row.dataset.n),
        naiveMs: cell('naive', 'ms'),
        naiveBytes: cell('naive', 'bytes'),
        flashMs: cell('flash', 'ms'),
        flashBytes: cell('flash', 'bytes'),
      };
    }),
  );

const chartPoints = (page, series) =>
  page.locator(`${view} [data-series="${series}"] circle`).evaluateAll((circles) => circles.map((c) => [Number(c.dataset.x), Number(c.dataset.y)]));

test("measuring fills the table and both log-log charts with the core's figures", async (t) => {
  const d = 32;
  const { page, problems } = await session.open(t, `index.html${encodeHash({ ...presetState('tiny'), view: 'cost', viewState: { maxN: 512, d } })}`, {
    view: 'cost',
  });
  await page.locator(`${view} [data-action="measure"]`).click();
  await page.waitForFunction(
    () =>
      document.querySelector('attn-lab').shadowRoot.querySelector('attn-cost-view').shadowRoot.querySelectorAll('[data-role="cost-runs"] td[data-bytes]')
        .length === 8,
    null,
    { timeout: 60_000 },
  );
  const runs = await readRuns(page);
  assert.deepEqual(
    runs.map((r) => r.n),
    [64, 128, 256, 512],
  );
  for (const r of runs) {
    for (const ms of [r.naiveMs, r.flashMs]) assert.ok(Number.isFinite(ms) && ms >= 0, `n=${r.n}: a time in ms, got ${ms}`);
    // The naive kernel holds at least one n×n float32 matrix; the flash one never does.
    assert.ok(r.naiveBytes >= 4 * r.n * r.n, `n=${r.n}: naive peak ${r.naiveBytes} B ≥ 4n²`);
    for (const [kernel, method] of [
      ['naive', 'naiveAttention'],
      ['flash', 'flashAttention'],
    ]) {
      const shown = r[`${kernel}Bytes`];
      const expected = nodePeak(method, r.n, d);
      assert.ok(Math.abs(shown - expected) <= 0.02 * expected, `n=${r.n} ${kernel}: ${shown} B in the page, ${expected} B in Node`);
    }
  }
  const last = runs.at(-1);
  assert.ok(last.flashBytes < last.naiveBytes / 4, `at n=512 the flash kernel holds far less (${last.flashBytes} vs ${last.naiveBytes})`);
  // Doubling n: the naive memory about ×4, the flash one at most about ×2.
  assert.ok(last.naiveBytes / runs.at(-2).naiveBytes > 3, 'naive memory grows like n²');
  assert.ok(last.flashBytes / runs.at(-2).flashBytes < 2.5, 'flash memory grows like n');

  assert.deepEqual(
    await chartPoints(page, 'time-naive'),
    runs.map((r) => [r.n, r.naiveMs]),
  );
  assert.deepEqual(
    await chartPoints(page, 'memory-flash'),
    runs.map((r) => [r.n, r.flashBytes]),
  );
  assert.equal(await page.locator(`${view} [data-series="memory-n-by-n"] polyline`).count(), 1, 'the 4n² line');

  // New settings drop figures measured under the old ones, and land in the state.
  await page.locator(`${view} [data-control="headWidth"]`).selectOption('64');
  await page.waitForFunction(
    () => !document.querySelector('attn-lab').shadowRoot.querySelector('attn-cost-view').shadowRoot.querySelector('[data-role="cost-runs"]'),
  );
  assert.equal((await labState(page)).viewState.headWidth, 64);
  assertClean(problems);
});

test('a bad seed is refused with a message and the settings stay', async (t) => {
  const { page, problems } = await session.open(t, `index.html${encodeHash({ ...presetState('tiny'), view: 'cost' })}`, { view: 'cost' });
  await page.locator(`${view} [data-control="seed"]`).fill('-3');
  await page.locator(`${view} [data-control="seed"]`).press('Enter');
  await page.locator(`${view} [data-role="cost-status"]`).filter({ hasText: 'seed must be' }).waitFor();
  assert.equal((await labState(page)).viewState.seed, 1);
  // An emptied field is no seed at all, not seed 0 (Number('') is 0).
  await page.locator(`${view} [data-control="seed"]`).fill('7');
  await page.locator(`${view} [data-control="seed"]`).press('Enter');
  await page.locator(`${view} [data-role="cost-status"]`).filter({ hasText: 'seed must be' }).waitFor({ state: 'detached' });
  assert.equal((await labState(page)).viewState.seed, 7);
  await page.locator(`${view} [data-control="seed"]`).fill('');
  await page.locator(`${view} [data-control="seed"]`).press('Enter');
  await page.locator(`${view} [data-role="cost-status"]`).filter({ hasText: 'seed must be a whole number from 0 to 2147483647, not ""' }).waitFor();
  assert.equal((await labState(page)).viewState.seed, 7);
  assertClean(problems);
});
