// A link reopens with its preset named: a "#s=" link holding a preset's inputs, or the
// readable "#view=stepper" (the default's), shows that preset in the selector, not "Your own
// inputs"; a link whose inputs were edited still says they are the learner's own.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DEFAULT_PRESET, encodeHash, presetState } from './support/expected.js';
import { assertClean } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const selected = (page) => page.locator('attn-lab select[data-control="preset"]').inputValue();

for (const [name, hash, preset] of [
  ['the causal preset at its softmax step', encodeHash({ ...presetState('causal'), step: 'softmax' }), 'causal'],
  ['the two-head preset with predict on', encodeHash({ ...presetState('two-heads'), predict: true }), 'two-heads'],
  ['#view=stepper', '#view=stepper', DEFAULT_PRESET],
]) {
  test(`a link to ${name} reopens with its preset selected`, async (t) => {
    const { page, problems } = await session.open(t, `index.html${hash}`, { wait: false });
    await page.waitForSelector('attn-lab select[data-control="preset"]');
    assert.equal(await selected(page), preset);
    assertClean(problems);
  });
}

test("a link with edited inputs reopens as the learner's own", async (t) => {
  const state = presetState('causal');
  state.Wq[0][0] = 2;
  const { page, problems } = await session.open(t, `index.html${encodeHash(state)}`, { wait: false });
  await page.waitForSelector('attn-lab select[data-control="preset"]');
  assert.equal(await selected(page), '');
  assertClean(problems);
});
