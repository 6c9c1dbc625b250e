// The widget in marimo (mo.ui.anywidget), end to end: `marimo run` on 127.0.0.1 with a token,
// marimo_app.py in headless Chromium with every other request refused. The numbers drawn and
// those Python reads back (stepper.values) are the core's from Node (≤ 1e-5); an edit in the
// widget reaches Python; a button whose handler sets a.Q in Python redraws the widget; the
// second stepper stays as it was; every teaching view renders; nothing is fetched from the network.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

import { createAttnLab } from '../../../dist/attnlab.js';
import { launchChromium } from '../../../scripts/chromium.mjs';
import { maxAbsDiff } from '../../../tests/support/compare.js';
import { stateToTraceRequest } from '../../../tests/support/state-request.js';
import { freePort, offlinePage, softmaxTables } from './jupyter.mjs';

const MARIMO = fileURLToPath(new URL('../../.venv/bin/marimo', import.meta.url));
const APP = fileURLToPath(new URL('./marimo_app.py', import.meta.url));
const TOLERANCE = 1e-5;
const K = [[1, 0], [1, 1], [0, 1]];
const V = [[1, 0], [0, 2], [1, 1]];
const NEW_Q = [[0.5, -1], [2, 0.25], [1, 1]]; // marimo_app.py's
const VIEWS = ['geometry', 'softmax', 'model', 'scaling', 'patterns', 'tokens', 'positions', 'cost', 'flash', 'variants', 'long-sequence', 'train', 'quiz']; // marimo_app.py's
const lab = await createAttnLab();
const softmax = (request) => lab.trace(request).steps.filter((s) => s.id === 'softmax').map((s) => s.values);
const causal = (Q) => softmax({ Q, K, V, causal: true });
const worst = (got, want) => (got.length === want.length ? Math.max(...want.map((m, h) => maxAbsDiff(got[h], m))) : Infinity);

let server;
let url;
let browser;
before(async () => {
  const token = randomBytes(12).toString('hex');
  const port = await freePort();
  server = spawn(MARIMO, ['run', APP, '--headless', '--host', '127.0.0.1', '--port', String(port), '--token-password', token, '--no-sandbox', '--no-check'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MARIMO_SKIP_UPDATE_CHECK: '1' } });
  let log = '';
  server.stdout.on('data', (d) => (log += d));
  server.stderr.on('data', (d) => (log += d));
  for (let i = 0; ; i++) {
    if (server.exitCode !== null) throw new Error(`marimo exited: ${log}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (i > 600) throw new Error(`marimo did not start in 60 s: ${log}`);
    await new Promise((done) => setTimeout(done, 100));
  }
  url = `http://127.0.0.1:${port}/?access_token=${token}`;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
});

// marimo draws outputs in shadow roots: Playwright's locators pierce them, querySelector does not.
const probe = async (page, ready) => {
  const handle = await page.waitForFunction(
    ([element, ready]) => {
      const text = element?.innerText;
      if (!text || text.includes('waiting')) return null;
      const seen = JSON.parse(text);
      return new Function('seen', `return ${ready}`)(seen) ? seen : null;
    },
    [await page.locator('#probe').elementHandle(), ready],
    { timeout: 30_000 },
  );
  return handle.jsonValue();
};
const lab0 = (page, index) => page.locator('attn-lab').nth(index);
const shownSoftmax = (page, index) => lab0(page, index).evaluate(softmaxTables);

test('in marimo, offline: the core\'s numbers, both directions of the sync, two independent steppers, every view', async (t) => {
  const { page, refused, errors } = await offlinePage(browser, t);
  await page.goto(url);
  await page.locator('attn-lab').nth(1).locator('[data-role="result"] td[data-value]').first().waitFor({ timeout: 60_000 });

  let seen = await probe(page, 'true');
  assert.ok(worst([seen.a], causal([[1, 0], [0, 1]])) <= TOLERANCE, 'a.values("softmax")');
  assert.ok(worst(seen.b, softmax(stateToTraceRequest(seen.bState))) <= TOLERANCE, 'b.values("softmax")');
  assert.ok(worst(await shownSoftmax(page, 0), causal([[1, 0], [0, 1]])) <= TOLERANCE, 'a as drawn');
  const bState = seen.bState;

  await lab0(page, 0).locator('[data-role="inputs"] table[data-matrix="Q"] td[data-row="0"][data-col="0"] input').fill('3');
  seen = await probe(page, 'seen.aQ[0][0] === 3');
  assert.ok(worst([seen.a], causal([[3, 0], [0, 1]])) <= TOLERANCE, 'a.values() after the edit');
  assert.deepEqual(seen.bState, bState);

  await page.getByRole('button', { name: 'set Q from Python' }).click();
  await page.waitForFunction((element) => element.getState().Q.length === 3, await lab0(page, 0).elementHandle(), { timeout: 30_000 });
  assert.deepEqual(await lab0(page, 0).evaluate((element) => element.getState().Q), NEW_Q);
  assert.ok(worst(await shownSoftmax(page, 0), causal(NEW_Q)) <= TOLERANCE, 'a redrawn after a.Q = …');
  seen = await probe(page, 'seen.aQ.length === 3');
  assert.ok(worst([seen.a], causal(NEW_Q)) <= TOLERANCE);
  assert.deepEqual(seen.bState, bState, 'b changed with a');

  // Every teaching view renders, with no error message (the model view with its packaged model).
  for (const [i, view] of VIEWS.entries()) {
    const inner = lab0(page, 2 + i).locator(`[data-role="view"][data-view="${view}"] attn-${view}-view`);
    await inner.waitFor({ timeout: 30_000 });
    assert.ok(await inner.evaluate((e) => e.shadowRoot?.childElementCount > 0), `the ${view} view is empty`);
    const message = await lab0(page, 2 + i).evaluate((l) => l.shadowRoot.querySelector('[data-role="message"]')?.innerText.trim() ?? '');
    assert.equal(message, '', `the ${view} view shows a message`);
  }
  await page.locator('attn-lab attn-model-view [data-role="next-tokens"] tbody tr').first().waitFor({ timeout: 60_000 });
  await page.screenshot({ path: 'test-results/python/marimo.png' });
  assert.deepEqual(refused, []);
  assert.deepEqual(errors, []);
});
