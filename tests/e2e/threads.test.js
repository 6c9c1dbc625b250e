// The threaded core in Chromium (issue 15, target 3): on a cross-origin-isolated page
// (COOP same-origin + COEP require-corp) createAttnLab({ threads: true }) gets the core with
// pthreads and its results equal the single-threaded core's; on a page without those headers
// it falls back to the single-threaded core.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { launchChromium } from '../../scripts/chromium.mjs';
import { serveStatic } from '../../scripts/serve.mjs';

const ISOLATED = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };

// In the page: both cores on the same inputs; timings are printed, not judged.
async function runInPage(t, headers) {
  const server = await serveStatic('.', { headers });
  const browser = await launchChromium();
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${server.url}/tests/e2e/fixtures/blank.html`);
  const result = await page.evaluate(async () => {
    const { createAttnLab } = await import('/dist/attnlab.js');
    const threaded = await createAttnLab({ threads: true });
    const single = await createAttnLab();
    const n = 2048;
    const values = (seed) => Float32Array.from({ length: n * 64 }, (_, i) => Math.sin(seed * 1000 + i * 12.9898) % 1);
    const [Q, K, V] = [1, 2, 3].map((seed) => ({ rows: n, cols: 64, data: values(seed) }));
    const time = (lab, threads) => {
      const start = performance.now();
      const { output } = lab.flashAttention({ Q, K, V, threads });
      return { ms: performance.now() - start, output: Array.from(output.data) };
    };
    const one = time(threaded, 1);
    const all = time(threaded, 0);
    const reference = time(single, 0);
    return {
      isolated: globalThis.crossOriginIsolated,
      hardware: navigator.hardwareConcurrency,
      threads: threaded.threads,
      same: one.output.every((v, i) => v === reference.output[i]) && all.output.every((v, i) => v === reference.output[i]),
      ms: { single: reference.ms, oneThread: one.ms, allThreads: all.ms },
    };
  });
  assert.deepEqual(errors, []);
  return result;
}

test("a cross-origin-isolated page gets the threaded core, with the single-threaded core's results", async (t) => {
  const result = await runInPage(t, ISOLATED);
  console.log(`threads in Chromium, n = 2,048, d = 64: ${JSON.stringify(result.ms)} ms, ${result.threads} threads`);
  assert.equal(result.isolated, true);
  assert.equal(result.threads, Math.min(4, result.hardware));
  assert.ok(result.same, "every output value equals the single-threaded core's");
});

test('a page without those headers falls back to the single-threaded core', async (t) => {
  const result = await runInPage(t, {});
  assert.equal(result.isolated, false);
  assert.equal(result.threads, 1);
  assert.ok(result.same);
});
