// attnlab.save_html: the widgets as one HTML page, with no kernel and no network. Python (the
// installed wheel, python/.venv) writes the page; headless Chromium opens it from 127.0.0.1
// with every other request refused. The stepper's numbers are the core's from Node (≤ 1e-5),
// the geometry view and show_attention's grid render, and an edit in the page still recomputes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

import { createAttnLab } from '../../../dist/attnlab.js';
import { launchChromium } from '../../../scripts/chromium.mjs';
import { serveStatic } from '../../../scripts/serve.mjs';
import { maxAbsDiff } from '../../../tests/support/compare.js';
import { offlinePage, softmaxTables } from './jupyter.mjs';

const PYTHON = fileURLToPath(new URL('../../.venv/bin/python', import.meta.url));
const TOLERANCE = 1e-5;
const Q = [[1, 0], [0, 1]];
const K = [[1, 0], [1, 1], [0, 1]];
const V = [[1, 0], [0, 2], [1, 1]];
const lab = await createAttnLab();
const softmax = (q) => lab.trace({ Q: q, K, V, causal: true }).steps.find((s) => s.id === 'softmax').values;

let folder;
let server;
let browser;
before(async () => {
  folder = await mkdtemp(join(tmpdir(), 'attnlab-static-'));
  execFileSync(PYTHON, ['-c', `
import numpy as np, attnlab
a = attnlab.Stepper(Q=${JSON.stringify(Q)}, K=${JSON.stringify(K)}, V=${JSON.stringify(V)}, causal=True, step="softmax")
b = attnlab.Stepper(preset="two-heads")
grid = attnlab.show_attention(np.array([[[[0.5, 0.5, 0], [0.25, 0.5, 0.25], [0, 0, 1]]]]), ["The", "cat", "sat"])
attnlab.save_html(${JSON.stringify(join(folder, 'page.html'))}, a, b, attnlab.View("geometry"), grid)
`]);
  server = await serveStatic(folder);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const shown = async (page, index) => (await page.locator('attn-lab').nth(index).evaluate(softmaxTables))[0];

test('save_html: the page renders offline with no kernel, the core\'s numbers, two independent steppers', async (t) => {
  const { page, refused, errors } = await offlinePage(browser, t);
  await page.goto(`${server.url}/page.html`);
  await page.waitForFunction(() => document.querySelectorAll('attn-lab').length === 3 && [...document.querySelectorAll('attn-lab')].slice(0, 2).every((l) => l.shadowRoot?.querySelector('[data-role="result"] td[data-value]')), null, { timeout: 30_000 });
  assert.ok(maxAbsDiff(await shown(page, 0), softmax(Q)) <= TOLERANCE);
  await page.locator('attn-lab attn-geometry-view [data-role="plane"]').waitFor({ timeout: 30_000 });
  await page.locator('attn-attention-import [data-role="imported"]').waitFor({ timeout: 30_000 });

  const before = await page.evaluate(() => document.querySelectorAll('attn-lab')[1].getState());
  await page.locator('attn-lab >> nth=0 >> [data-role="inputs"] table[data-matrix="Q"] td[data-row="0"][data-col="0"] input').fill('3');
  await page.waitForFunction(() => document.querySelector('attn-lab').getState().Q[0][0] === 3);
  assert.ok(maxAbsDiff(await shown(page, 0), softmax([[3, 0], [0, 1]])) <= TOLERANCE);
  assert.deepEqual(await page.evaluate(() => document.querySelectorAll('attn-lab')[1].getState()), before);
  assert.deepEqual(refused, []);
  assert.deepEqual(errors, []);
});
