// The page under a strict Content-Security-Policy: no inline scripts or styles, no eval; only
// WebAssembly compilation is allowed ('wasm-unsafe-eval'). Everything must still work, and
// the browser must report no violation.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { launchChromium } from '../../scripts/chromium.mjs';
import { serveStatic } from '../../scripts/serve.mjs';
import { assertClean, settle, waitForLabs, watch } from './support/lab-page.js';

const POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
].join('; ');

test('the page works under a strict Content-Security-Policy', async (t) => {
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
  await page.goto(`${server.url}/`);
  await waitForLabs(page);
  // An edit goes through the wasm core and re-renders every step.
  await page.locator('attn-lab [data-role="inputs"] table[data-matrix="Q"] td[data-row="0"][data-col="0"] input').fill('2');
  await settle(page);
  const scores = await page.evaluate(() =>
    Number(document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="result"] table[data-matrix="scores"] td[data-row="0"][data-col="0"]').dataset.value),
  );
  assert.equal(scores, 2); // q₁ = (2, 0), k₁ = (1, 0)
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assertClean(problems);
});
