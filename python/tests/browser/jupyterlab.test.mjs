// The widget in JupyterLab 4 and Notebook 7, end to end: a server on 127.0.0.1 with a token, a
// notebook run cell by cell in headless Chromium with every request outside 127.0.0.1 refused.
// In both, the same checks (checkNotebook): the stepper's numbers (drawn in the widget, and read
// back in Python by stepper.values()) are the core's computed again here in Node from the built
// package (≤ 1e-5), an edit in the widget reaches Python and an assignment in Python reaches the
// widget, two steppers on one page stay independent, every teaching view renders (the model view
// with its packaged model, the cost view with its Worker), show_attention renders, and nothing
// was fetched from the network. In JupyterLab also screenshots, light and dark (switched from
// JupyterLab's menu), into test-results/python/.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, test } from 'node:test';

import { createAttnLab } from '../../../dist/attnlab.js';
import { launchChromium } from '../../../scripts/chromium.mjs';
import { maxAbsDiff } from '../../../tests/support/compare.js';
import { stateToTraceRequest } from '../../../tests/support/state-request.js';
import { kernelIdle, notebook, offlinePage, runAndRead, runCell, softmaxTables, startJupyterLab } from './jupyter.mjs';

const TOLERANCE = 1e-5;
const SHOTS = 'test-results/python';
const lab = await createAttnLab();
const model = await lab.loadModel();

const Q = [[1, 0], [0, 1]];
const K = [[1, 0], [1, 1], [0, 1]];
const V = [[1, 0], [0, 2], [1, 1]];
const NEW_Q = [[0.5, -1], [2, 0.25], [1, 1]];
const ATTENTION = [[[0.5, 0.5, 0], [0.25, 0.5, 0.25], [0, 0, 1]], [[1, 0, 0], [0.5, 0.5, 0], [0.2, 0.3, 0.5]]];

// Every teaching view, the model view third (its index among the <attn-lab> below).
const VIEWS = ['geometry', 'softmax', 'model', 'scaling', 'patterns', 'tokens', 'positions', 'cost', 'flash', 'variants', 'long-sequence', 'train', 'quiz'];

const CELLS = [
  `import json, numpy as np, ipywidgets, attnlab
def probe():
    return {"aQ": a.Q.tolist(), "aState": a.state, "a": a.values("softmax").tolist(), "bState": b.state, "b": b.values("softmax").tolist(), "aError": a.error}`,
  `a = attnlab.Stepper(Q=np.array(${JSON.stringify(Q)}), K=${JSON.stringify(K)}, V=${JSON.stringify(V)}, causal=True, step="softmax")\na`,
  `b = attnlab.Stepper(preset="two-heads", step="softmax")\nb`,
  `ipywidgets.VBox([attnlab.View(v, view_state={"maxN": 256, "headWidth": 32} if v == "cost" else None) for v in ${JSON.stringify(VIEWS)}])`,
  `attnlab.show_attention(np.array([${JSON.stringify(ATTENTION)}]), ["The", "cat", "sat"])`,
  `print("PROBE " + json.dumps(probe()))`,
  `a.Q = ${JSON.stringify(NEW_Q)}`,
  'a.Q = [[1, 2, 3]]  # three columns against K\'s two: the core refuses it',
];
const PROBE = 5;

const expected = (request) => lab.trace(request).steps.filter((s) => s.id === 'softmax').map((s) => s.values);
const causal = (q) => expected({ Q: q, K, V, causal: true });

// Every <attn-lab> on the page in notebook order: a, b, then the views.
const shownSoftmax = (page, index) => page.locator('attn-lab').nth(index).evaluate(softmaxTables);

const worst = (got, want) => (got.length === want.length ? Math.max(...want.map((m, h) => maxAbsDiff(got[h], m))) : Infinity);

// The first stepper's cell, its code and the top of its widget, as JupyterLab draws them.
async function shoot(page, path) {
  const cell = page.locator('.jp-Notebook .jp-Cell').nth(1);
  await cell.evaluate((c) => c.scrollIntoView({ block: 'start' }));
  await page.waitForTimeout(300);
  const box = await cell.boundingBox();
  await page.screenshot({ path, clip: { x: box.x, y: box.y, width: box.width, height: Math.min(box.height, 760) } });
}

let browser;
let jupyter;
before(async () => {
  await mkdir(SHOTS, { recursive: true });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await jupyter?.stop();
});

async function openNotebook(t, cells, options = {}) {
  jupyter = await startJupyterLab({ 'attnlab.ipynb': notebook(cells) }, options);
  const server = jupyter;
  t.after(() => server.stop());
  const { page, refused, errors: pageErrors } = await offlinePage(browser, t);
  await page.goto(jupyter.open('attnlab.ipynb'));
  await page.locator('.jp-NotebookPanel .jp-Cell').first().waitFor({ timeout: 60_000 });
  await kernelIdle(page, options.app);
  return { page, refused, pageErrors };
}

const rendered = (page, count) =>
  page.waitForFunction((count) => {
    const labs = [...document.querySelectorAll('attn-lab')];
    return labs.length >= count && labs.slice(0, Math.min(2, count)).every((l) => l.shadowRoot?.querySelector('[data-role="result"] table td[data-value]'));
  }, count, { timeout: 90_000 });

// Runs CELLS in the open notebook and checks everything but the theme: the same in JupyterLab
// and Notebook 7.
async function checkNotebook(page) {
  for (let i = 0; i < PROBE; i++) await runCell(page, i);
  await rendered(page, 5);

  // The widget draws the core's numbers.
  assert.ok(worst(await shownSoftmax(page, 0), causal(Q)) <= TOLERANCE, 'a: the softmax drawn is not the core\'s');
  // And Python reads them back as NumPy arrays, the two steppers each their own.
  let seen = await runAndRead(page, PROBE, 'PROBE ');
  assert.ok(worst([seen.a], causal(Q)) <= TOLERANCE, `a.values("softmax") ${JSON.stringify(seen.a)}`);
  assert.ok(worst(seen.b, expected(stateToTraceRequest(seen.bState))) <= TOLERANCE, 'b.values("softmax") is not the core\'s');
  assert.equal(seen.b.length, 2, 'the two-heads preset has two heads');
  assert.ok(worst(await shownSoftmax(page, 1), seen.b) <= TOLERANCE);
  const bState = seen.bState;

  // An edit in the widget reaches Python: Q[0][0] = 3 in a's editor.
  await page.locator('attn-lab >> nth=0 >> [data-role="inputs"] table[data-matrix="Q"] td[data-row="0"][data-col="0"] input').fill('3');
  const edited = [[3, 0], [0, 1]];
  await page.waitForFunction(() => document.querySelector('attn-lab').getState().Q[0][0] === 3);
  seen = await runAndRead(page, PROBE, 'PROBE ');
  assert.deepEqual(seen.aQ, edited);
  assert.ok(worst([seen.a], causal(edited)) <= TOLERANCE, 'a.values() after the edit');
  assert.deepEqual(seen.bState, bState, 'b changed with a');

  // An assignment in Python reaches the widget.
  await runCell(page, PROBE + 1);
  await page.waitForFunction((q) => JSON.stringify(document.querySelector('attn-lab').getState().Q) === JSON.stringify(q), NEW_Q, { timeout: 30_000 });
  assert.ok(worst(await shownSoftmax(page, 0), causal(NEW_Q)) <= TOLERANCE, 'the widget after a.Q = …');
  assert.ok(worst(await shownSoftmax(page, 1), seen.b) <= TOLERANCE, 'b redrew with a');
  seen = await runAndRead(page, PROBE, 'PROBE ');
  assert.deepEqual(seen.aQ, NEW_Q);
  assert.ok(worst([seen.a], causal(NEW_Q)) <= TOLERANCE);
  assert.equal(seen.aError, '');

  // A state the core refuses: the widget keeps the last good one, and Python gets it back with the message.
  await runCell(page, PROBE + 2);
  await page.waitForFunction(() => document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="message"]')?.innerText.trim(), null, { timeout: 30_000 });
  seen = await runAndRead(page, PROBE, 'PROBE ');
  assert.deepEqual(seen.aQ, NEW_Q);
  assert.match(seen.aError, /Q|K|columns|width/);
  assert.ok(worst(await shownSoftmax(page, 0), causal(NEW_Q)) <= TOLERANCE);

  // Every teaching view renders, with no error message; the model view runs the packaged model
  // (its next token as in Node).
  await page.locator('attn-lab attn-geometry-view [data-role="plane"]').waitFor({ timeout: 30_000 });
  for (const [i, view] of VIEWS.entries()) {
    const shown = await page.waitForFunction(
      ({ index, view }) => {
        const root = document.querySelectorAll('attn-lab')[index]?.shadowRoot;
        const inner = root?.querySelector(`[data-role="view"][data-view="${view}"] attn-${view}-view`);
        return inner?.shadowRoot?.childElementCount > 0 && { message: root.querySelector('[data-role="message"]')?.innerText.trim() ?? '' };
      },
      { index: 2 + i, view },
      { timeout: 30_000 },
    );
    assert.equal((await shown.jsonValue()).message, '', `the ${view} view shows a message`);
  }
  const next = page.locator('attn-lab attn-model-view [data-role="next-tokens"] tbody tr').first();
  await next.waitFor({ timeout: 60_000 });
  const text = await page.evaluate(() => document.querySelectorAll('attn-lab')[4].getState().viewState.text);
  const forward = model.forward(model.tokenize(text).tokenIds);
  const top = model.nextTokenDistribution(forward.logits.at(-1), {});
  const shownTop = await next.evaluate((tr) => [Number(tr.dataset.token), Number(tr.dataset.value)]);
  assert.equal(shownTop[0], top.tokenIds[0]);
  assert.ok(Math.abs(shownTop[1] - top.probabilities[0]) <= TOLERANCE, `model view: ${shownTop[1]} against ${top.probabilities[0]}`);

  // The cost view measures in its Worker, started from the blob: URL of dist/attnlab-worker.js.
  const cost = 'attn-lab attn-cost-view';
  await page.locator(`${cost} [data-action="measure"]`).click();
  await page.waitForFunction(() => document.querySelectorAll('attn-lab')[2 + 7].shadowRoot.querySelector('attn-cost-view').shadowRoot.querySelectorAll('[data-role="cost-runs"] td[data-bytes]').length === 6, null, { timeout: 60_000 });
  assert.equal(await page.locator(`${cost} [data-role="worker-note"]`).count(), 0, 'the cost view ran without its Worker');

  // show_attention: the head grid of the imported weights, as the core scored them.
  await page.locator('attn-attention-import [data-role="imported"]').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('attn-attention-import [data-role="import-summary"]').innerText(), /1 layers × 2 heads over 3 tokens/);
}

test('in JupyterLab, offline: the core\'s numbers, both directions of the sync, two independent steppers, every view and show_attention', async (t) => {
  const { page, refused, pageErrors } = await openNotebook(t, CELLS);
  await checkNotebook(page);

  await shoot(page, `${SHOTS}/jupyterlab-light.png`);

  // JupyterLab's dark theme, chosen from its Settings menu: the widgets follow it as it changes.
  assert.equal(await page.locator('attn-lab').first().getAttribute('theme'), 'light');
  await page.locator('.lm-MenuBar-itemLabel', { hasText: 'Settings' }).click();
  await page.locator('.lm-Menu-itemLabel', { hasText: /^Theme$/ }).click();
  await page.locator('.lm-Menu-itemLabel', { hasText: /^JupyterLab Dark$/ }).click();
  await page.waitForFunction(() => [...document.querySelectorAll('attn-lab')].every((l) => l.getAttribute('theme') === 'dark'), null, { timeout: 30_000 });
  const background = await page.locator('attn-lab').first().evaluate((l) => getComputedStyle(l).backgroundColor);
  const [r, g, b] = background.match(/\d+/g).map(Number);
  assert.ok(r + g + b < 3 * 100, `a dark background, got ${background}`);
  await shoot(page, `${SHOTS}/jupyterlab-dark.png`);
  assert.deepEqual(refused, [], 'requests left 127.0.0.1');
  assert.deepEqual(pageErrors, []);
});

test('in Notebook 7, offline: the same notebook, the same checks', async (t) => {
  const { page, refused, pageErrors } = await openNotebook(t, CELLS, { app: 'notebook' });
  await checkNotebook(page);
  assert.deepEqual(refused, [], 'requests left 127.0.0.1');
  // Notebook 7.6's own shortcuts plugin throws once on a settings change ("reading 'schema'",
  // in its notebook_core bundle, not in the widget's code): only errors from elsewhere count.
  assert.deepEqual(pageErrors.filter((e) => !e.includes('/static/notebook/notebook_core.')), []);
});
