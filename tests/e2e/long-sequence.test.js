// The page's long-sequence view: WebGPU where Chromium offers it (SwiftShader here), with
// the two backends agreeing; WebAssembly where it does not.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { launchChromium, WEBGPU_ARGS } from '../../scripts/chromium.mjs';
import { serveStatic } from '../../scripts/serve.mjs';
import { createAttnLab } from '../../dist/attnlab.js';
import { normalMatrix, seededRandom } from '../../web/element/shared/random.js';
import { maxAbsDiff } from '../support/compare.js';

const lab = await createAttnLab();

async function openPage(t, extraArgs) {
  const server = await serveStatic('web/dist');
  const browser = await launchChromium({ extraArgs });
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${server.url}/`);
  await page.waitForFunction(() => {
    const view = document.querySelector('attn-long-sequence');
    return view?.shadowRoot && !view.shadowRoot.querySelector('[data-role="gpu-status"]').textContent.includes('Looking');
  });
  return { page, errors };
}

const view = (selector) => `attn-long-sequence ${selector}`;

// Runs with n = 256 and returns what the view shows.
async function run(page, action) {
  await page.locator(view('[data-control="n"]')).selectOption('256');
  await page.locator(view(`[data-action="${action}"]`)).click();
  await page.locator(view('table[data-matrix="sampled-weights"]')).waitFor({ timeout: 120_000 });
  return page.evaluate(() => {
    const root = document.querySelector('attn-long-sequence').shadowRoot;
    const weights = [];
    for (const cell of root.querySelectorAll('table[data-matrix="sampled-weights"] td[data-row]')) {
      (weights[Number(cell.dataset.row)] ??= [])[Number(cell.dataset.col)] = Number(cell.dataset.value);
    }
    const labels = (selector) => [...root.querySelectorAll(selector)].map((th) => Number(th.textContent.slice(1)) - 1);
    return {
      rows: labels('table[data-matrix="sampled-weights"] tbody th'),
      cols: labels('table[data-matrix="sampled-weights"] thead th'),
      status: root.querySelector('[data-role="gpu-status"]').textContent,
      backends: [...root.querySelectorAll('[data-role="runs"] tr[data-backend]')].map((tr) => tr.dataset.backend),
      agreement: root.querySelector('[data-role="agreement"]')?.dataset.value,
      weights,
    };
  });
}

// The view's inputs for n = 256, d = 64, seed 1 (its defaults), made the way it makes them.
function viewInputs(n, d, seed) {
  const random = seededRandom(seed);
  return [0, 1, 2].map(() => normalMatrix(n, d, random));
}

test('with WebGPU the view runs both backends, they agree, and the sampled weights are the core\'s', async (t) => {
  const { page, errors } = await openPage(t, WEBGPU_ARGS);
  const shown = await run(page, 'compare');
  assert.match(shown.status, /WebGPU is available/);
  assert.deepEqual(shown.backends, ['webgpu', 'wasm']);
  assert.ok(Number(shown.agreement) <= 1e-4, `backends differ by ${shown.agreement}`);
  const [Q, K] = viewInputs(256, 64, 1);
  const expected = lab.sampledWeights({ Q, K, causal: true, rows: shown.rows, cols: shown.cols });
  assert.equal(shown.weights.length, 12);
  assert.ok(maxAbsDiff(shown.weights, expected) <= 1e-6);
  assert.deepEqual(errors, []);
});

test('without WebGPU the view says so and runs on WebAssembly', async (t) => {
  const { page, errors } = await openPage(t, ['--disable-webgpu']);
  const shown = await run(page, 'run');
  assert.match(shown.status, /runs use WebAssembly/);
  assert.deepEqual(shown.backends, ['wasm']);
  assert.deepEqual(errors, []);
});
