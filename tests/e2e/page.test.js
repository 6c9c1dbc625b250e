// The built site (web/dist) in headless Chromium: the page shell around <attn-lab url-state>.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DEFAULT_PRESET, assertStepMatches, expectedTrace, presetState } from './support/expected.js';
import { assertClean, labState, waitForLabs } from './support/lab-page.js';
import { SCREENSHOT_DIR, browserSession } from './support/session.js';

const session = browserSession('web/dist');

test('the page loads without errors and renders the default preset', async (t) => {
  const { page, problems } = await session.open(t);
  assert.equal(await page.locator('header h1').textContent(), 'attnlab');
  assert.ok((await page.locator('main .intro').textContent()).length > 100, 'the intro paragraph');
  assert.equal(await page.locator('footer a[href="examples/tutorial.html"]').count(), 1, 'footer link to the tutorial');

  const state = await labState(page);
  assert.deepEqual(state, presetState(DEFAULT_PRESET));
  await assertStepMatches(page, expectedTrace(state), state.step);
  await page.screenshot({ path: `${SCREENSHOT_DIR}/page-default.png`, fullPage: true });
  assertClean(problems);
});

test('the theme switch sets the page colours and the element theme, and is remembered', async (t) => {
  const { page, problems } = await session.open(t, '', { colorScheme: 'light' });
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await background();
  await page.getByLabel('Dark').check();
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  assert.equal(await page.getAttribute('attn-lab', 'theme'), 'dark');
  assert.notEqual(await background(), light);
  await page.reload();
  await waitForLabs(page);
  assert.equal(await page.getAttribute('attn-lab', 'theme'), 'dark', 'remembered');
  await page.getByLabel('Auto').check();
  assert.equal(await page.getAttribute('attn-lab', 'theme'), 'auto');
  assert.equal(await background(), light, 'auto follows the (light) system scheme');
  assertClean(problems);
});

test('at phone width (375px) the page does not scroll sideways', async (t) => {
  const { page, problems } = await session.open(t, '', { viewport: { width: 375, height: 800 } });
  await page.screenshot({ path: `${SCREENSHOT_DIR}/page-phone.png`, fullPage: true });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 375, `the page is ${width}px wide`);
  assertClean(problems);
});

test('with reduced motion the page has no transitions', async (t) => {
  const { page, problems } = await session.open(t, '', { reducedMotion: 'reduce' });
  const duration = await page.evaluate(() => getComputedStyle(document.querySelector('.theme-switch label')).transitionDuration);
  assert.equal(duration, '0s');
  assertClean(problems);
});
