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
import { audit } from './support/axe.js';
import { luminance } from './support/wcag.js';
import { normalQKV } from '../support/normal-qkv.js';

const lab = await createAttnLab();
const VIEW = 'attn-lab attn-long-sequence-view';
const DEFAULTS = { n: 1024, headWidth: 64, causal: true, seed: 1 };

// Where the view is opened from: the page (web/dist) or a bare page of the repository that
// loads the built element and embeds the preset.
const OPENINGS = {
  page: { root: 'web/dist', path: 'index.html#view=long-sequence' },
  embed: { root: '.', path: 'tests/e2e/fixtures/blank.html', embed: true },
};

// `init` runs in the page before any of its scripts (page.addInitScript).
async function openView(t, opening, extraArgs, init) {
  const { root, path, embed } = OPENINGS[opening];
  const server = await serveStatic(root);
  const browser = await launchChromium({ extraArgs });
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  const page = await browser.newPage();
  const errors = [];
  const warnings = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    // (a bare fixture page has no favicon: that 404 is not the view's)
    if (['warning', 'error'].includes(message.type()) && !message.location().url?.endsWith('/favicon.ico')) warnings.push(message.text());
  });
  if (init) await page.addInitScript(init);
  await page.goto(`${server.url}/${path}`);
  if (embed) {
    await page.addScriptTag({ type: 'module', url: '/dist/element.js' });
    await page.evaluate(() => document.body.append(Object.assign(document.createElement('attn-lab'), { preset: 'long-sequence' })));
  }
  await page.waitForFunction(() => {
    const view = document.querySelector('attn-lab')?.shadowRoot?.querySelector('attn-long-sequence-view');
    return view?.shadowRoot?.querySelector('[data-role="gpu-status"]')?.textContent.trim();
  });
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  return { page, errors, warnings };
}

const labState = (page) => page.evaluate(() => document.querySelector('attn-lab').getState());

// Runs with n tokens (256 unless given) and returns what the view shows.
async function run(page, action, n = '256') {
  await page.locator(`${VIEW} [data-control="n"]`).selectOption(n);
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
      backgrounds: [...root.querySelectorAll('table[data-matrix="sampled-weights"] td[data-row]')].map((td) => getComputedStyle(td).backgroundColor),
      note: root.querySelector('[data-role="even-share"]')?.textContent.replace(/\s+/g, ' ').trim(),
      explanation: root.querySelector('[data-role="explanation"]')?.textContent.trim(),
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
    assert.match(shown.status, /Runs use your graphics card: this browser offers WebGPU/);
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
    assert.match(shown.status, /no access to a graphics card \(no WebGPU\), so runs use the processor instead \(WebAssembly\)/);
    assert.deepEqual(shown.backends, ['wasm']);
    const [Q, K] = viewInputs(256, 64, 1);
    assert.ok(maxAbsDiff(shown.weights, lab.sampledWeights({ Q, K, causal: true, rows: shown.rows, cols: shown.cols })) <= 1e-6);
    assert.deepEqual(errors, []);
  });
}

test('the settings come from the state: a link with n, d, causal and seed opens with them, and a bad one is refused', async (t) => {
  const { page, errors } = await openView(t, 'page', ['--disable-webgpu']);
  await page.evaluate(() => document.querySelector('attn-lab').setState({ viewState: { n: 4096, headWidth: 32, causal: false, seed: 7 } }));
  await page.evaluate(() => document.querySelector('attn-lab').updateComplete);
  assert.equal(await page.locator(`${VIEW} [data-control="n"]`).inputValue(), '4096');
  assert.equal(await page.locator(`${VIEW} [data-control="headWidth"]`).inputValue(), '32');
  assert.equal(await page.locator(`${VIEW} [data-control="causal"]`).isChecked(), false);
  assert.equal(await page.locator(`${VIEW} [data-control="seed"]`).inputValue(), '7');
  await page.evaluate(() => document.querySelector('attn-lab').setState({ viewState: { n: 1000 } }));
  const message = await page.evaluate(() => document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="message"]').textContent);
  assert.match(message, /long-sequence view's "n" must be one of 256, 1024, 4096, 16384/);
  assert.equal((await labState(page)).viewState.n, 4096, 'the last good state stays');
  assert.deepEqual(errors, []);
});

test('d, the older name of headWidth in the view state, still opens (saved links hold it)', async (t) => {
  const { page, errors } = await openView(t, 'page', ['--disable-webgpu']);
  await page.evaluate(() => document.querySelector('attn-lab').setState({ viewState: { n: 256, d: 32 } }));
  await page.evaluate(() => document.querySelector('attn-lab').updateComplete);
  assert.equal(await page.locator(`${VIEW} [data-control="headWidth"]`).inputValue(), '32');
  assert.equal((await labState(page)).viewState.headWidth, 32);
  assert.equal('d' in (await labState(page)).viewState, false, 'the state holds the new name only');
  await page.evaluate(() => document.querySelector('attn-lab').setState({ viewState: { d: 16, headWidth: 16 } }));
  const message = await page.evaluate(() => document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="message"]').textContent);
  assert.match(message, /long-sequence view's "d" is the older name of "headWidth": give one of them/);
  assert.equal((await labState(page)).viewState.headWidth, 32, 'the last good state stays');
  assert.deepEqual(errors, []);
});

// Counts navigator.gpu.requestAdapter calls in window.__adapterRequests, from before the page's scripts run.
function countAdapterRequests() {
  window.__adapterRequests = 0;
  const gpu = navigator.gpu;
  if (!gpu) return;
  const request = gpu.requestAdapter.bind(gpu);
  gpu.requestAdapter = (...args) => {
    window.__adapterRequests += 1;
    return request(...args);
  };
}
const adapterRequests = (page) => page.evaluate(() => window.__adapterRequests);

for (const opening of Object.keys(OPENINGS)) {
  test(`${opening}: no WebGPU request (and no console warning) until the learner presses Run, and the status is in plain words`, async (t) => {
    const { page, errors, warnings } = await openView(t, opening, WEBGPU_ARGS, countAdapterRequests);
    assert.equal(await page.evaluate(() => typeof navigator.gpu?.requestAdapter), 'function', 'this browser offers WebGPU');
    assert.equal(await adapterRequests(page), 0, 'a WebGPU adapter was requested before Run');
    assert.deepEqual(warnings, []);
    const before = await page.locator(`${VIEW} [data-role="gpu-status"]`).textContent();
    assert.match(before, /^Nothing has run yet\. A run uses your graphics card/);
    const shown = await run(page, 'run');
    assert.ok((await adapterRequests(page)) >= 1, 'Run asked for a WebGPU adapter');
    assert.deepEqual(shown.backends, ['webgpu']);
    for (const text of [before, shown.status]) assert.doesNotMatch(text, /navigator|adapter|wasm|GFLOP/i);
    assert.deepEqual(errors, []);
  });
}

// The hover text: "A(i, j) = weight: ratio times the even share 1/n" → [i, j, weight].
function parseExplanation(text) {
  const match = /^A\((\d+), (\d+)\) = ([\d.e+-]+): ([\d.e+-]+) times the even share 1\/(\d+)$/.exec(text);
  assert.ok(match, `explanation: ${text}`);
  return { i: Number(match[1]), j: Number(match[2]), weight: Number(match[3]), ratio: Number(match[4]), share: Number(match[5]) };
}

test('the hover text stays current: after a rerun with another seed it reads the new weights', async (t) => {
  const { page, errors } = await openView(t, 'page', ['--disable-webgpu']);
  const table = `${VIEW} table[data-matrix="sampled-weights"]`;
  await page.locator(`${VIEW} [data-control="causal"]`).uncheck();
  const first = await run(page, 'run');
  // Focus (the keyboard's hover) picks the cell: a mouse resting where a rerun redraws the
  // table would hover whichever cell lands under it.
  await page.mouse.move(1, 1);
  await page.locator(`${table} td[data-row="4"][data-col="3"]`).focus();
  const read = async () =>
    parseExplanation(
      await page
        .locator(`${VIEW} [data-role="explanation"]`)
        .textContent()
        .then((s) => s.trim()),
    );
  const weightOf = (seed, i, j) => {
    const [Q, K] = viewInputs(256, 64, seed);
    return lab.sampledWeights({ Q, K, causal: false, rows: [i - 1], cols: [j - 1] })[0][0];
  };
  const before = await read();
  assert.deepEqual([before.i, before.j], [first.rows[4] + 1, first.cols[3] + 1]);
  assert.ok(Math.abs(before.weight - weightOf(1, before.i, before.j)) <= 5e-3 * before.weight);
  assert.equal(before.share, 256);
  assert.ok(Math.abs(before.ratio - before.weight * 256) <= 0.05 * before.ratio + 0.01);

  const seed = page.locator(`${VIEW} [data-control="seed"]`);
  await seed.fill('2');
  await seed.dispatchEvent('change');
  await page.locator(`${VIEW} [data-action="run"]`).press('Enter');
  await page.locator(table).waitFor({ timeout: 120_000 });
  const after = await read(); // the cell explained before, read from the new run
  const want = weightOf(2, after.i, after.j);
  assert.deepEqual([after.i, after.j], [before.i, before.j]);
  assert.ok(Math.abs(after.weight - want) <= 5e-3 * want, `shows ${after.weight}, the new run has ${want}`);
  assert.ok(Math.abs(want - weightOf(1, after.i, after.j)) > 1e-2 * want, 'the two seeds give different weights there');
  await page.locator(table).scrollIntoViewIfNeeded();
  await page.locator(`${table} td[data-row="7"][data-col="9"]`).hover();
  const other = await read();
  assert.deepEqual([other.i, other.j], [first.rows[7] + 1, first.cols[9] + 1]);
  assert.ok(Math.abs(other.weight - weightOf(2, other.i, other.j)) <= 5e-3 * other.weight);
  assert.deepEqual(errors, []);
});

test("the sample's colours show structure around the even share 1/n, with a note saying what 1/n means", async (t) => {
  const { page, errors } = await openView(t, 'page', ['--disable-webgpu']);
  await page.locator(`${VIEW} [data-control="causal"]`).uncheck();
  const shown = await run(page, 'run', '1024');
  assert.match(shown.note, /each key it may see would get the even share 1\/n \(here 1\/1,024 ≈ 0\.00098\)/);
  // Viridis' middle, rgb(33, 144, 141), is "exactly the even share": weights above 1/n are
  // lighter than it and weights below darker, whatever the rest of the sample holds.
  const middle = luminance('rgb(33, 144, 141)');
  const cells = shown.weights.flat().map((w, k) => ({ ratio: w * 1024, light: luminance(shown.backgrounds[k]) }));
  for (const { ratio, light } of cells) {
    if (ratio > 1.25) assert.ok(light > middle, `${ratio} × 1/n is not lighter than the middle`);
    if (ratio < 0.8) assert.ok(light < middle, `${ratio} × 1/n is not darker than the middle`);
  }
  assert.ok(cells.some((c) => c.ratio > 1.25) && cells.some((c) => c.ratio < 0.8), 'the sample has weights on both sides of 1/n');
  assert.ok(new Set(shown.backgrounds).size >= 8, `only ${new Set(shown.backgrounds).size} colours in 144 cells`);
  assert.match(await page.locator(`${VIEW} [data-role="legend"]`).textContent(), /compared with the even share, log scale/);
  assert.deepEqual(await audit(page), [], 'the coloured sample keeps its text readable (axe)');
  assert.deepEqual(errors, []);
});

test('without WebGPU the view offers only what the processor runs, and says the rest as information', async (t) => {
  const { page, errors } = await openView(t, 'page', ['--disable-webgpu']);
  const message = () =>
    page.evaluate(() => {
      const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-long-sequence-view').shadowRoot;
      const line = root.querySelector('[data-role="message"]');
      return { text: line.textContent.trim(), error: line.classList.contains('error'), role: line.getAttribute('role') };
    });
  const option = (n) => page.locator(`${VIEW} [data-control="n"] option[value="${n}"]`);
  assert.match(await option(16384).textContent(), /16384 \(graphics card only\)/);
  await run(page, 'compare');
  assert.deepEqual(await message(), { text: "Without a graphics card there is only the processor's run to show.", error: false, role: 'status' });
  // The probe found no graphics card: sizes beyond the processor's are no longer offered.
  assert.equal(await option(16384).isDisabled(), true);
  assert.equal(await option(4096).isDisabled(), false);
  assert.deepEqual(errors, []);
});
