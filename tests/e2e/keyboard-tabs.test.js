// The view tabs follow the WAI-ARIA tabs pattern: the tab list is one Tab stop (the selected
// tab), ←/→/Home/End move between the tabs and show the view reached, and those keys on a
// tab change the tab, never the step; on the step navigation they still step.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { dataStep, assertClean, settle, waitForView } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');

const focused = (page) =>
  page.evaluate(() => {
    const active = document.querySelector('attn-lab').shadowRoot.activeElement;
    return active?.getAttribute('role') === 'tab' ? active.dataset.view : (active?.dataset.goto ?? active?.tagName ?? null);
  });

test('the tabs are one Tab stop; arrow keys, Home and End move between them and leave the step alone', async (t) => {
  const { page, problems } = await session.open(t);
  const tabs = await page
    .locator('attn-lab [role="tab"]')
    .evaluateAll((all) => all.map((tab) => [tab.dataset.view, tab.tabIndex, tab.getAttribute('aria-selected')]));
  assert.deepEqual(
    tabs.filter(([, index]) => index === 0),
    [['stepper', 0, 'true']],
    'only the selected tab is in the Tab order',
  );
  const views = tabs.map(([view]) => view);

  // Tab from the tab list leaves it at once: the next stop is not another tab.
  await page.locator('attn-lab [role="tab"][data-view="stepper"]').focus();
  await page.keyboard.press('Tab');
  assert.notEqual(await page.evaluate(() => document.querySelector('attn-lab').shadowRoot.activeElement?.getAttribute('role')), 'tab');

  await page.locator('attn-lab [role="tab"][data-view="stepper"]').focus();
  const step = await dataStep(page);
  await page.keyboard.press('ArrowRight');
  await waitForView(page, views[1]);
  assert.equal(await focused(page), views[1], '→ focuses the next tab');
  assert.equal(await page.locator(`attn-lab [role="tab"][data-view="${views[1]}"]`).getAttribute('tabindex'), '0');
  await page.keyboard.press('End');
  await waitForView(page, views.at(-1));
  assert.equal(await focused(page), views.at(-1));
  await page.keyboard.press('ArrowRight'); // wraps round to the first
  await settle(page);
  assert.equal(await focused(page), views[0]);
  await page.keyboard.press('ArrowLeft');
  await waitForView(page, views.at(-1));
  await page.keyboard.press('Home');
  await settle(page);
  assert.equal(await focused(page), 'stepper');
  assert.equal(await dataStep(page), step, 'the step did not move');

  // On the steps, → is still the next step.
  await page.locator('attn-lab [data-goto]').first().focus();
  await page.keyboard.press('ArrowRight');
  await settle(page);
  assert.notEqual(await dataStep(page), step, '→ on the steps moves the step');
  assertClean(problems);
});
