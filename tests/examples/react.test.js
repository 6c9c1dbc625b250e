// web/examples/react: a React 19 app (Vite, TSX) rendering <attn-lab>, built from the packed
// package and opened in Chromium. It type-checks under --strict with attnlab's typings, and
// React passes the element's props through: properties (preset, step, inputs, noQuiz), an
// attribute (no-predict) and a listener (onstep-change).
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, test } from 'node:test';

import { PRESET_IDS, TOLERANCE, diffStep, expectedTrace } from '../e2e/support/expected.js';
import { assertClean, dataStep, labState, renderedResults, settle } from '../e2e/support/lab-page.js';
import { SCREENSHOT_DIR, browserSession } from '../e2e/support/session.js';
import { copyExample, exampleDir, tool } from './support/example.js';

const dir = exampleDir('react');
before(async () => {
  await copyExample('react');
  await tool(dir, 'vite', ['build', '--logLevel', 'error']);
});
const session = browserSession(join(dir, 'dist'));

const inShadow = (page, selector) => page.evaluate((s) => document.querySelector('attn-lab').shadowRoot.querySelector(s) !== null, selector);
const stepShownByReact = (page) => page.locator('#step').textContent();

async function assertNumbers(page, step) {
  const state = await labState(page);
  assert.equal(state.step, step);
  const diff = diffStep(await renderedResults(page), expectedTrace(state), step);
  assert.ok(diff <= TOLERANCE, `${step}: max abs diff ${diff} from lab.trace()`);
  return state;
}

test('the app, and every preset the element offers as a PresetId, type-check under --strict', async () => {
  // A preset the built element offers (read from it in Chromium) but the typings lack fails here.
  const offered = `import type { PresetId } from 'attnlab/element';\nexport const offered: PresetId[] = ${JSON.stringify(PRESET_IDS)};\n`;
  await writeFile(join(dir, 'src/offered-presets.ts'), offered);
  await tool(dir, 'tsc', ['-p', '.', '--strict', '--noEmit']);
});

test("React's props reach <attn-lab> as properties, an attribute and an event listener", async (t) => {
  const { page, problems } = await session.open(t);
  const state = await assertNumbers(page, 'softmax');
  assert.equal(state.causal, true, 'preset="causal" gives the causal mask');
  assert.equal(await inShadow(page, '[data-role="step"].result-first'), true, 'step: the embed leads with the result');
  assert.equal(await inShadow(page, 'details[data-role="inputs-toggle"]'), true, 'inputs="collapsed"');
  assert.equal(await inShadow(page, '[data-control="predict"]'), false, 'no-predict leaves out the predict switch');
  assert.deepEqual(
    await page.evaluate(() => {
      const lab = document.querySelector('attn-lab');
      return { noPredict: lab.hasAttribute('no-predict'), noQuiz: lab.noQuiz, reflected: lab.hasAttribute('no-quiz') };
    }),
    { noPredict: true, noQuiz: true, reflected: true },
  );

  assert.equal(await stepShownByReact(page), 'softmax', 'step-change reached React on load');
  await page.locator('attn-lab [data-action="next"]').click();
  await settle(page);
  const next = await dataStep(page);
  assert.notEqual(next, 'softmax');
  assert.equal(await stepShownByReact(page), next, 'step-change reached React after "next"');
  await page.screenshot({ path: `${SCREENSHOT_DIR}/example-react.png`, fullPage: true });
  assertClean(problems);
});

test('a change of React state reaches the element: a new preset, recomputed', async (t) => {
  const { page, problems } = await session.open(t);
  await page.locator('#two-heads').click();
  await page.waitForFunction(() => document.querySelector('attn-lab').getState()?.heads === 2);
  await settle(page);
  await assertNumbers(page, 'softmax');
  assertClean(problems);
});

// dist/element.js starts its Worker with new Worker(new URL('./attnlab-worker.js', import.meta.url)):
// the app's bundler (Vite) recognises the line and bundles the worker, which then loads its
// core. Had it not, the view would run on the page and show its note.
test("the app's bundle carries the element's worker, and the long-sequence view runs in it", async (t) => {
  const { page, problems } = await session.open(t);
  await page.evaluate(() => document.querySelector('attn-lab').setState({ view: 'long-sequence', viewState: { n: 256 } }));
  const view = 'attn-lab attn-long-sequence-view';
  await page.locator(`${view} [data-action="run"]`).click();
  await page.locator(`${view} table[data-matrix="sampled-weights"] td[data-value]`).first().waitFor({ timeout: 60_000 });
  assert.equal(await page.locator(`${view} [data-role="worker-note"]`).count(), 0, 'the work fell back to the page');
  const scripts = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname));
  assert.ok(
    scripts.some((path) => /^\/assets\/attnlab-worker-[\w-]+\.js$/.test(path)),
    scripts.join(', '),
  );
  assertClean(problems);
});
