// The page and the tutorial under a strict Content-Security-Policy: no inline scripts or
// styles, no eval; only WebAssembly compilation is allowed ('wasm-unsafe-eval'). The policy is
// the one the docs state (docs/hardening.md, read from there, so the two cannot drift apart). Everything must
// still work, and the browser must report no violation.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { launchChromium } from '../../scripts/chromium.mjs';
import { serveStatic } from '../../scripts/serve.mjs';
import { assertClean, settle, waitForLabs, watch } from './support/lab-page.js';

const stated = [...(await readFile('docs/hardening.md', 'utf8')).matchAll(/^\s*Content-Security-Policy: (.+)$/gm)].map((m) => m[1].trim());

test('the docs state one policy, without unsafe-inline or unsafe-eval', () => {
  assert.equal(stated.length, 1, stated.join('\n'));
  assert.doesNotMatch(stated[0], /'unsafe-inline'|'unsafe-eval'/);
  assert.match(stated[0], /script-src 'self' 'wasm-unsafe-eval'/);
});

const POLICY = stated[0];

// Opens `path` of the built site, served with the policy, after a listener for violations.
async function openUnderPolicy(t, path, labs) {
  const server = await serveStatic('web/dist', { headers: { 'content-security-policy': POLICY } });
  const browser = await launchChromium();
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  const page = await browser.newPage();
  const problems = watch(page);
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective}: ${e.blockedURI}`));
  });
  await page.goto(`${server.url}/${path}`);
  await waitForLabs(page, labs);
  return { page, problems };
}

// Sets Q[0][0] of the first element to 2 (q₁ = (2, 0)) and reads result cell (0, 0) of `matrix`.
async function editAndRead(page, matrix) {
  await page.locator('attn-lab >> nth=0 >> [data-role="inputs"] table[data-matrix="Q"] td[data-row="0"][data-col="0"] input').fill('2');
  await settle(page);
  return page.evaluate(
    (matrix) =>
      Number(
        document.querySelector('attn-lab').shadowRoot.querySelector(`[data-role="result"] table[data-matrix="${matrix}"] td[data-row="0"][data-col="0"]`)
          .dataset.value,
      ),
    matrix,
  );
}

test('the page works under the policy', async (t) => {
  const { page, problems } = await openUnderPolicy(t, '', 1);
  // An edit goes through the wasm core and re-renders every step.
  assert.equal(await editAndRead(page, 'scores'), 4); // q₁ = (2, 0), k₁ = (2, 0)
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assertClean(problems);
});

test('the tutorial works under the policy, its styles applied', async (t) => {
  const { page, problems } = await openUnderPolicy(t, 'examples/tutorial.html', 2);
  // The tutorial's first element shows softmax of the tiny example: with q₁ = (2, 0) and keys
  // (2, 0), (1, 1), (0, 2) the scores of row 1 are (4, 2, 0), scaled by 1/√2, so the first
  // weight is a/(a + b + 1), a = e^(4/√2), b = e^(2/√2).
  const [a, b] = [Math.exp(4 / Math.SQRT2), Math.exp(2 / Math.SQRT2)];
  assert.ok(Math.abs((await editAndRead(page, 'softmax')) - a / (a + b + 1)) < 1e-6);
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).maxWidth), '960px'); // 60rem: the stylesheet loaded
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assertClean(problems);
});

// The long-sequence view's work runs in a Worker (the page's bundled one, the tutorial's
// pkg/attnlab-worker.js): the policy's script-src 'self' covers it, and 'wasm-unsafe-eval'
// lets it compile the core. Without the worker the view would show its on-page note.
for (const [where, path, labs] of [
  ['page', '', 1],
  ['tutorial', 'examples/tutorial.html', 2],
]) {
  test(`the ${where}'s long-sequence view runs in its worker under the policy`, async (t) => {
    const { page, problems } = await openUnderPolicy(t, path, labs);
    await page.evaluate(() => document.querySelector('attn-lab').setState({ view: 'long-sequence', viewState: { n: 256 } }));
    const view = 'attn-lab >> nth=0 >> attn-long-sequence-view';
    await page.locator(`${view} [data-action="run"]`).click();
    await page.locator(`${view} table[data-matrix="sampled-weights"] td[data-value]`).first().waitFor({ timeout: 60_000 });
    assert.deepEqual(await page.locator(`${view} tr[data-backend]`).evaluateAll((rows) => rows.map((row) => row.dataset.backend)), ['wasm']);
    assert.equal(await page.locator(`${view} [data-role="worker-note"]`).count(), 0, 'the work fell back to the page');
    assert.deepEqual(await page.evaluate(() => window.__violations), []);
    assertClean(problems);
  });
}

// The model view fetches the packaged model (the page's bundled copy, the tutorial's model/
// beside pkg/): connect-src 'self' (default-src) must cover every file, none inlined as data:.
for (const [where, path, labs] of [
  ['page', '', 1],
  ['tutorial', 'examples/tutorial.html', 2],
]) {
  test(`the ${where}'s model view loads the packaged model under the policy`, async (t) => {
    const { page, problems } = await openUnderPolicy(t, path, labs);
    await page.evaluate(() => document.querySelector('attn-lab').setState({ view: 'model' }));
    await page.locator('attn-lab >> nth=0 >> attn-model-view [data-role="next-tokens"] tbody tr').first().waitFor({ timeout: 60_000 });
    assert.deepEqual(await page.evaluate(() => window.__violations), []);
    assertClean(problems);
  });
}
