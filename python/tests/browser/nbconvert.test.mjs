// Jupyter's own static export, offline: a notebook run by nbclient (no browser) with
// attnlab.static_outputs() on, its widget state not saved, converted by `jupyter nbconvert --to
// html`. The page's outputs are attnlab's self-contained copies; Chromium opens it from
// 127.0.0.1 with every other request refused (nbconvert's own MathJax and RequireJS from a CDN
// are refused too and are not needed): the stepper draws the core's numbers (≤ 1e-5 of Node's)
// and the geometry view renders.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

import { createAttnLab } from '../../../dist/attnlab.js';
import { launchChromium } from '../../../scripts/chromium.mjs';
import { serveStatic } from '../../../scripts/serve.mjs';
import { maxAbsDiff } from '../../../tests/support/compare.js';
import { notebook, offlinePage, softmaxTables } from './jupyter.mjs';

const BIN = fileURLToPath(new URL('../../.venv/bin/', import.meta.url));
const Q = [[1, 0], [0, 1]];
const K = [[1, 0], [1, 1], [0, 1]];
const V = [[1, 0], [0, 2], [1, 1]];
const lab = await createAttnLab();
const softmax = lab.trace({ Q, K, V, causal: true }).steps.find((s) => s.id === 'softmax').values;

let folder;
let server;
let browser;
before(async () => {
  folder = await mkdtemp(join(tmpdir(), 'attnlab-nbconvert-'));
  const cells = [`import attnlab\nattnlab.static_outputs()\nattnlab.Stepper(Q=${JSON.stringify(Q)}, K=${JSON.stringify(K)}, V=${JSON.stringify(V)}, causal=True, step="softmax")`, 'attnlab.View("geometry")'];
  await writeFile(join(folder, 'export.ipynb'), notebook(cells));
  const env = { ...process.env, JUPYTER_RUNTIME_DIR: join(folder, '.runtime'), JUPYTER_CONFIG_DIR: join(folder, '.config'), IPYTHONDIR: join(folder, '.ipython') };
  execFileSync(`${BIN}jupyter`, ['nbconvert', '--to', 'notebook', '--execute', '--inplace', '--ExecutePreprocessor.store_widget_state=False', join(folder, 'export.ipynb')], { env, stdio: 'pipe' });
  execFileSync(`${BIN}jupyter`, ['nbconvert', '--to', 'html', join(folder, 'export.ipynb')], { env, stdio: 'pipe' });
  server = await serveStatic(folder);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('nbconvert\'s HTML export renders the widgets offline, with the core\'s numbers', async (t) => {
  const { page, refused, errors } = await offlinePage(browser, t);
  await page.goto(`${server.url}/export.html`);
  await page.waitForFunction(() => document.querySelector('attn-lab')?.shadowRoot?.querySelector('[data-role="result"] table[data-matrix="softmax"] td[data-value]'), null, { timeout: 30_000 });
  const [shown] = await page.locator('attn-lab').first().evaluate(softmaxTables);
  assert.ok(maxAbsDiff(shown, softmax) <= 1e-5, JSON.stringify(shown));
  await page.locator('attn-lab attn-geometry-view [data-role="plane"]').waitFor({ timeout: 30_000 });
  // Only nbconvert's own page furniture may have tried the network.
  assert.deepEqual(refused.filter((url) => !/\/ajax\/libs\/(mathjax|require\.js|mermaid(-layout-elk)?)\//.test(url)), []);
  assert.deepEqual(errors.filter((e) => !/require|mermaid|MathJax/i.test(e)), []);
});
