// Visiting every step of the page's <attn-lab> with its buttons and with the keyboard.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertStepMatches, encodeHash, expectedTrace, presetState, stepIds } from './support/expected.js';
import { assertClean, dataStep, labState, settle } from './support/lab-page.js';
import { SCREENSHOT_DIR, browserSession } from './support/session.js';

const session = browserSession('web/dist');

test('every step can be visited with the buttons (a screenshot of each)', async (t) => {
  const { page, problems } = await session.open(t);
  const trace = expectedTrace(await labState(page));
  const ids = stepIds(trace);
  const button = (selector) => page.locator(`attn-lab ${selector}`).first();
  const click = async (selector) => {
    await button(selector).click();
    await settle(page);
    return dataStep(page);
  };

  // From the first step, "next" until it is disabled (or stays put) at the end.
  if (await button('[data-action="first"]').isEnabled()) await click('[data-action="first"]');
  const visited = [await dataStep(page)];
  while (visited.length <= ids.length && (await button('[data-action="next"]').isEnabled())) {
    const step = await click('[data-action="next"]');
    if (step === visited.at(-1)) break;
    visited.push(step);
  }
  assert.deepEqual(visited, ids, 'first, then next until the end');

  for (const [i, id] of ids.entries()) {
    assert.equal(await click(`[data-goto="${id}"]`), id, `step button ${id}`);
    await assertStepMatches(page, trace, id);
    await page.locator('attn-lab').screenshot({ path: `${SCREENSHOT_DIR}/page-step-${i + 1}-${id}.png` });
  }
  assert.equal(await click('[data-action="prev"]'), ids.at(-2), 'prev');
  assert.equal(await click('[data-action="first"]'), ids[0], 'first');
  assert.equal(await click('[data-action="last"]'), ids.at(-1), 'last');
  assertClean(problems);
});

test('every step can be visited with ←, →, Home and End', async (t) => {
  // causal has the most steps of the single-head presets
  const state = { ...presetState('causal'), step: 'scores' };
  const { page, problems } = await session.open(t, encodeHash(state));
  const ids = stepIds(expectedTrace(state));
  // The keys act wherever focus is inside the element, except in a text field. The host
  // itself takes no focus (no tabindex), so focus one of its step buttons.
  await page.locator(`attn-lab [data-goto="${state.step}"]`).focus();
  const press = async (key) => {
    await page.keyboard.press(key);
    await settle(page);
    return dataStep(page);
  };

  assert.equal(await press('Home'), ids[0], 'Home');
  for (const id of ids.slice(1)) assert.equal(await press('ArrowRight'), id, '→');
  assert.equal(await press('ArrowRight'), ids.at(-1), '→ at the end stays');
  assert.equal(await press('ArrowLeft'), ids.at(-2), '←');
  assert.equal(await press('Home'), ids[0], 'Home');
  assert.equal(await press('ArrowLeft'), ids[0], '← at the start stays');
  assert.equal(await press('End'), ids.at(-1), 'End');
  assertClean(problems);
});
