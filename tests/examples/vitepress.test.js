// web/examples/vitepress: a VitePress docs site whose Markdown page imports attnlab/element
// and embeds <attn-lab>, built (with its server-side render in Node) from the packed package
// and opened in Chromium.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, test } from 'node:test';

import { TOLERANCE, diffStep, expectedTrace } from '../e2e/support/expected.js';
import { assertClean, labState, renderedResults } from '../e2e/support/lab-page.js';
import { SCREENSHOT_DIR, browserSession } from '../e2e/support/session.js';
import { copyExample, exampleDir, tool } from './support/example.js';

const dir = exampleDir('vitepress');
const site = join(dir, '.vitepress/dist');
before(async () => {
  await copyExample('vitepress');
  await tool(dir, 'vitepress', ['build']);
});
const session = browserSession(site);

test('the server-side render imported the element in Node and wrote the page with the tag', async () => {
  const html = await readFile(join(site, 'index.html'), 'utf8');
  assert.match(html, /<h1[^>]*>Attention, step by step/);
  assert.match(html, /<attn-lab preset="causal" step="softmax" inputs="collapsed" controls="minimal"><\/attn-lab>/);
});

test('in the browser the Markdown page hydrates and <attn-lab> upgrades and computes', async (t) => {
  const { page, problems } = await session.open(t, 'index.html');
  assert.equal(await page.evaluate(() => Boolean(document.querySelector('#app').__vue_app__)), true, 'Vue hydrated the page');
  const state = await labState(page);
  assert.equal(state.step, 'softmax');
  assert.equal(state.causal, true, 'preset="causal" gives the causal mask');
  const diff = diffStep(await renderedResults(page), expectedTrace(state), 'softmax');
  assert.ok(diff <= TOLERANCE, `softmax: max abs diff ${diff} from lab.trace()`);
  const minimal = await page.evaluate(() => document.querySelector('attn-lab').shadowRoot.querySelector('select[data-control="preset"]') === null);
  assert.equal(minimal, true, 'controls="minimal" leaves out the options');
  await page.screenshot({ path: `${SCREENSHOT_DIR}/example-vitepress.png`, fullPage: true });
  assertClean(problems);
});
