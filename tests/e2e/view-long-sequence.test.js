// The long-sequence view: WebGPU where Chromium offers it (SwiftShader here), with the two
// backends agreeing; WebAssembly where it does not. Opened both ways a reader meets it: the
// page's tab link #view=long-sequence, and a bare page embedding <attn-lab preset="long-sequence">
// from the built library (dist/element.js, which loads dist/webgpu.js when the view shows).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { launchChromium, WEBGPU_ARGS } from '../../scripts/chromium.mjs';
import { serveStatic } from '../../scripts/serve.mjs';
import { createAttnLab } from '../../dist/attnlab.js';
import { maxAbsDiff } from '../support/compare.js';
import { normalQKV } from '../support/normal-qkv.js';

const lab = await createAttnLab();
const VIEW = 'attn-lab attn-long-sequence-view';
const DEFAULTS = { n: 1024, d: 64, causal: true, seed: 1 };

// Where the view is opened from: the page (web/dist) or a bare page of the repository that
// loads the built element and embeds the preset.
const OPENINGS = {
  page: { root: 'web/dist', path: 'index.html#view=long-sequence' },
  embed: { root: '.', path: 'tests/e2e/fixtures/blank.html', embed: true },
};

async function openView(t, opening, extraArgs) {
  const { root, path, embed } = OPENINGS[opening];
  const server = await serveStatic(root);
  const browser = await launchChromium({ extraArgs });
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${server.url}/${path}`);
  if (embed) {
    await page.addScriptTag({ type: 'module', url: '/dist/element.js' });
    await page.evaluate(() => document.body.append(Object.assign(document.createElement('attn-lab'), { preset: 'long-sequence' })));
  }
  await page.waitForFunction(() => {
    const view = document.querySelector('attn-lab')?.shadowRoot?.querySelector('attn-long-sequence-view');
    const status = view?.shadowRoot?.querySelector('[data-role="gpu-status"]');
    return status && !status.textContent.includes('Looking');
  });
  return { page, errors };
}

const labState = (page) => page.evaluate(() => document.querySelector('attn-lab').getState());

// Runs with n = 256 and returns what the view shows.
async function run(page, action) {
  await page.locator(`${VIEW} [data-control="n"]`).selectOption('256');
  await page.locator(`${VIEW} [data-action="${action}"]`).click();
  await page.locator(`${VIEW} table[data-matrix="sampled-weights"]`).waitFor({ timeout: 120_000 });
  return page.evaluate(() => {
    const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-long-sequence-view').shadowRoot;
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

// The view's documented inputs: Q, K, V are the three row blocks of
// lab.normalMatrix({ rows: 3n, cols: d, seed }).
const viewInputs = (n, d, seed) => normalQKV(lab, { n, d, seed });

for (const opening of Object.keys(OPENINGS)) {
  test(`${opening}: with WebGPU the view runs both backends, they agree, and the sampled weights are the core's`, async (t) => {
    const { page, errors } = await openView(t, opening, WEBGPU_ARGS);
    assert.deepEqual(await labState(page).then((s) => [s.view, s.viewState]), ['long-sequence', DEFAULTS]);
    const shown = await run(page, 'compare');
    assert.match(shown.status, /WebGPU is available/);
    assert.deepEqual(shown.backends, ['webgpu', 'wasm']);
    assert.ok(Number(shown.agreement) <= 1e-4, `backends differ by ${shown.agreement}`);
    assert.deepEqual((await labState(page)).viewState, { ...DEFAULTS, n: 256 }, 'the settings are in the state');
    const [Q, K] = viewInputs(256, 64, 1);
    const expected = lab.sampledWeights({ Q, K, causal: true, rows: shown.rows, cols: shown.cols });
    assert.equal(shown.weights.length, 12);
    assert.ok(maxAbsDiff(shown.weights, expected) <= 1e-6);
    // Inputs of another seed give other weights: the comparison above can fail.
    const [Q2, K2] = viewInputs(256, 64, 2);
    assert.ok(maxAbsDiff(shown.weights, lab.sampledWeights({ Q: Q2, K: K2, causal: true, rows: shown.rows, cols: shown.cols })) > 1e-3);
    assert.deepEqual(errors, []);
  });

  test(`${opening}: without WebGPU the view says so and runs on WebAssembly`, async (t) => {
    const { page, errors } = await openView(t, opening, ['--disable-webgpu']);
    const shown = await run(page, 'run');
    assert.match(shown.status, /runs use WebAssembly/);
    assert.deepEqual(shown.backends, ['wasm']);
    const [Q, K] = viewInputs(256, 64, 1);
    assert.ok(maxAbsDiff(shown.weights, lab.sampledWeights({ Q, K, causal: true, rows: shown.rows, cols: shown.cols })) <= 1e-6);
    assert.deepEqual(errors, []);
  });
}

test('the settings come from the state: a link with n, d, causal and seed opens with them, and a bad one is refused', async (t) => {
  const { page, errors } = await openView(t, 'page', ['--disable-webgpu']);
  await page.evaluate(() => document.querySelector('attn-lab').setState({ viewState: { n: 4096, d: 32, causal: false, seed: 7 } }));
  await page.evaluate(() => document.querySelector('attn-lab').updateComplete);
  assert.equal(await page.locator(`${VIEW} [data-control="n"]`).inputValue(), '4096');
  assert.equal(await page.locator(`${VIEW} [data-control="d"]`).inputValue(), '32');
  assert.equal(await page.locator(`${VIEW} [data-control="causal"]`).isChecked(), false);
  assert.equal(await page.locator(`${VIEW} [data-control="seed"]`).inputValue(), '7');
  await page.evaluate(() => document.querySelector('attn-lab').setState({ viewState: { n: 1000 } }));
  const message = await page.evaluate(() => document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="message"]').textContent);
  assert.match(message, /long-sequence view's "n" must be one of 256, 1024, 4096, 16384/);
  assert.equal((await labState(page)).viewState.n, 4096, 'the last good state stays');
  assert.deepEqual(errors, []);
});
