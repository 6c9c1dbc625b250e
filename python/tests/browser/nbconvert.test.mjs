// Jupyter's own static export, offline. One notebook, run by nbclient (no browser) with its
// widget state saved, as JupyterLab saves it, and attnlab.static_outputs() on; then two exports:
// - `jupyter nbconvert --to html --template attnlab`: the saved widget state drawn by Jupyter's
//   widget manager for static pages, with the manager, RequireJS and anywidget's front end
//   inlined from the installed packages (nbconvert's own template loads them from a CDN);
// - the default template with the widget state left out (ClearMetadataPreprocessor): the
//   outputs' self-contained text/html copies that static_outputs() wrote.
// Chromium opens each page from 127.0.0.1 with every other request refused: two steppers draw
// the core's numbers (≤ 1e-5 of Node's) and stay independent under an edit, and the geometry
// view renders. Only the page furniture of nbconvert's lab template (MathJax, mermaid) may try
// the network, and only the second page needs anything from a CDN that it does not get
// (RequireJS, which nothing on it uses).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

import { createAttnLab } from '../../../dist/attnlab.js';
import { launchChromium } from '../../../scripts/chromium.mjs';
import { serveStatic } from '../../../scripts/serve.mjs';
import { maxAbsDiff } from '../../../tests/support/compare.js';
import { stateToTraceRequest } from '../../../tests/support/state-request.js';
import { notebook, offlinePage, softmaxTables } from './jupyter.mjs';

const BIN = fileURLToPath(new URL('../../.venv/bin/', import.meta.url));
const TOLERANCE = 1e-5;
const Q = [[1, 0], [0, 1]];
const K = [[1, 0], [1, 1], [0, 1]];
const V = [[1, 0], [0, 2], [1, 1]];
const lab = await createAttnLab();
const softmax = (request) => lab.trace(request).steps.filter((s) => s.id === 'softmax').map((s) => s.values);
const worst = (got, want) => (got.length === want.length ? Math.max(...want.map((m, h) => maxAbsDiff(got[h], m))) : Infinity);
// What nbconvert's lab template itself fetches, which no widget needs.
const FURNITURE = /\/ajax\/libs\/(mathjax|mermaid(-layout-elk)?)\/|\/npm\/mermaid/;

let folder;
let server;
let browser;
before(async () => {
  folder = await mkdtemp(join(tmpdir(), 'attnlab-nbconvert-'));
  const cells = [
    `import attnlab\nattnlab.static_outputs()\nattnlab.Stepper(Q=${JSON.stringify(Q)}, K=${JSON.stringify(K)}, V=${JSON.stringify(V)}, causal=True, step="softmax")`,
    'attnlab.Stepper(preset="two-heads", step="softmax")',
    'attnlab.View("geometry")',
  ];
  await writeFile(join(folder, 'export.ipynb'), notebook(cells));
  const env = { ...process.env, JUPYTER_RUNTIME_DIR: join(folder, '.runtime'), JUPYTER_CONFIG_DIR: join(folder, '.config'), IPYTHONDIR: join(folder, '.ipython') };
  const jupyter = (...args) => execFileSync(`${BIN}jupyter`, ['nbconvert', ...args], { env, stdio: 'pipe' });
  jupyter('--to', 'notebook', '--execute', '--inplace', '--ExecutePreprocessor.store_widget_state=True', join(folder, 'export.ipynb'));
  jupyter('--to', 'html', '--template', 'attnlab', '--output', 'saved-state', join(folder, 'export.ipynb'));
  jupyter('--to', 'html', '--ClearMetadataPreprocessor.enabled=True', '--output', 'outputs', join(folder, 'export.ipynb'));
  server = await serveStatic(folder);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

async function checkPage(t, name) {
  const { page, refused, errors } = await offlinePage(browser, t);
  await page.goto(`${server.url}/${name}`);
  await page.waitForFunction(() => [...document.querySelectorAll('attn-lab')].filter((l) => l.shadowRoot?.querySelector('[data-role="result"] table[data-matrix="softmax"] td[data-value]')).length >= 2, null, { timeout: 60_000 });
  const stepper = (i) => page.locator('attn-lab').nth(i);
  assert.ok(worst(await stepper(0).evaluate(softmaxTables), softmax({ Q, K, V, causal: true })) <= TOLERANCE, 'the first stepper does not draw the core\'s numbers');
  const bState = await stepper(1).evaluate((l) => l.getState());
  const b = await stepper(1).evaluate(softmaxTables);
  assert.equal(b.length, 2, 'two heads');
  assert.ok(worst(b, softmax(stateToTraceRequest(bState))) <= TOLERANCE, 'the second stepper does not draw the core\'s numbers');
  await page.locator('attn-lab attn-geometry-view [data-role="plane"]').waitFor({ timeout: 30_000 });
  // An edit in one stepper recomputes it (no kernel needed) and leaves the other as it was.
  await stepper(0).locator('[data-role="inputs"] table[data-matrix="Q"] td[data-row="0"][data-col="0"] input').fill('3');
  await page.waitForFunction(() => document.querySelector('attn-lab').getState().Q[0][0] === 3);
  assert.ok(worst(await stepper(0).evaluate(softmaxTables), softmax({ Q: [[3, 0], [0, 1]], K, V, causal: true })) <= TOLERANCE);
  assert.deepEqual(await stepper(1).evaluate((l) => l.getState()), bState, 'the second stepper changed with the first');
  return { page, refused: refused.filter((url) => !FURNITURE.test(url)), errors };
}

test('nbconvert --template attnlab: the saved widget state renders offline through Jupyter\'s widget manager, with the core\'s numbers', async (t) => {
  const html = await readFile(join(folder, 'saved-state.html'), 'utf8');
  const sources = [...html.matchAll(/<script\b[^>]{0,300}\bsrc="([^"]*)"/g)].map((m) => m[1]);
  assert.deepEqual(sources.filter((src) => !FURNITURE.test(src)), [], 'the page loads a script from the network');
  const { page, refused, errors } = await checkPage(t, 'saved-state.html');
  // Drawn by the widget manager from the saved state (its views' wrapper), not by a text/html copy.
  assert.equal(await page.locator('.widget-subarea attn-lab, .jp-OutputArea-output .lm-Widget attn-lab').count() >= 2, true, 'the widgets are not the manager\'s views');
  assert.equal(await page.locator('.attnlab-static').count(), 0, 'a text/html copy was shown instead of the saved state');
  assert.deepEqual(refused, []);
  assert.deepEqual(errors.filter((e) => !/MathJax|mermaid/i.test(e)), []);
});

test('nbconvert without the widget state: static_outputs()\'s self-contained copies render offline', async (t) => {
  const { page, refused, errors } = await checkPage(t, 'outputs.html');
  assert.ok((await page.locator('.attnlab-static').count()) >= 3);
  assert.deepEqual(refused.filter((url) => !/\/ajax\/libs\/require\.js\//.test(url)), []);
  assert.deepEqual(errors.filter((e) => !/require|mermaid|MathJax/i.test(e)), []);
});
