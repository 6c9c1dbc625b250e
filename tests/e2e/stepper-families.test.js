// The stepper walks the cheaper attentions' steps (state field family: trace()'s family), from
// a link and from its Attention menu, each step's tables the package's numbers.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { waitForLinkState } from '../support/state-link.js';
import { stateToTraceRequest } from '../support/state-request.js';
import { assertStepMatches, encodeHash, presetState, stepIds } from './support/expected.js';
import { assertClean, dataStep, labState, settle } from './support/lab-page.js';
import { SCREENSHOT_DIR, browserSession } from './support/session.js';

const session = browserSession('web/dist');

// The families' steps are traced by the learning module (the element loads it on demand too).
const lab = await createAttnLab();
await lab.loadLearning();
const expectedTrace = (state, extra) => lab.trace({ ...stateToTraceRequest(state), ...extra });

test('a link with family linear: the stepper walks feature-q … implied-weights with the core’s numbers', async (t) => {
  const state = { ...presetState('causal'), family: 'linear', step: 'feature-q' };
  const { page, problems } = await session.open(t, encodeHash(state));
  await page.waitForFunction(() => document.querySelector('attn-lab').getState()?.family === 'linear');
  await settle(page);
  const trace = expectedTrace(state, { family: 'linear' });
  const ids = stepIds(trace);
  for (const id of ['feature-q', 'feature-k', 'kv-state', 'normalizer', 'implied-weights', 'aggregate']) assert.ok(ids.includes(id), id);
  assert.ok(!ids.includes('softmax'));
  const next = page.locator('attn-lab [data-action="next"]').first();
  for (const [i, id] of ids.slice(ids.indexOf('feature-q')).entries()) {
    if (i > 0) {
      await next.click();
      await settle(page);
    }
    await assertStepMatches(page, trace, id);
    if (['kv-state', 'implied-weights'].includes(id)) await page.locator('attn-lab').screenshot({ path: `${SCREENSHOT_DIR}/family-linear-${id}.png` });
  }
  assertClean(problems);
});

test('the Attention menu switches the stepper to retention and back, the state and link following', async (t) => {
  const { page, problems } = await session.open(t, encodeHash({ ...presetState('causal'), step: 'scores' }));
  const menu = page.locator('attn-lab [data-control="family"]');
  await menu.selectOption('retention');
  // The families' steps come with the learning module, loaded on this first use.
  await page.waitForFunction(() => document.querySelector('attn-lab').getState()?.family === 'retention');
  await settle(page);
  const state = await labState(page);
  assert.equal(state.family, 'retention');
  assert.equal(state.decay, 0.9);
  const trace = expectedTrace(state, { family: 'retention', decay: 0.9 });
  assert.ok(stepIds(trace).includes('decay'));
  await page.evaluate(() => document.querySelector('attn-lab').goToStep('decay'));
  await settle(page);
  await assertStepMatches(page, trace, 'decay');
  // The link follows a moment after the last change: wait for the one that names this step, not
  // just any new link (under load the family's own link could land after the step was taken).
  await waitForLinkState(page, (linked) => linked.family === 'retention' && linked.step === 'decay', 10_000);
  // Reopened from its link, the state is the same family.
  const reopened = await session.open(t, await page.evaluate(() => location.hash));
  await reopened.page.waitForFunction(() => document.querySelector('attn-lab').getState()?.family === 'retention');
  await settle(reopened.page);
  assert.equal(await dataStep(reopened.page), 'decay');
  await menu.selectOption('softmax');
  await settle(page);
  const back = await labState(page);
  assert.equal(back.family, 'softmax');
  assert.equal(back.decay, undefined, 'no decay outside retention');
  assertClean(problems);
  assertClean(reopened.problems);
});

test('the Attention menu’s FAVOR+ choice walks the random features with the core’s numbers; softmax drops them', async (t) => {
  const { page, problems } = await session.open(t, encodeHash({ ...presetState('causal'), step: 'scores' }));
  const menu = page.locator('attn-lab [data-control="family"]');
  await menu.selectOption('linear:favor');
  await page.waitForFunction(() => document.querySelector('attn-lab').getState()?.featureMap === 'favor');
  await settle(page);
  const state = await labState(page);
  assert.equal(state.family, 'linear');
  assert.ok(Number.isInteger(state.features) && state.features >= 1, `features ${state.features}`);
  assert.ok(Number.isInteger(state.seed), `seed ${state.seed}`);
  assert.equal(await menu.inputValue(), 'linear:favor');
  // The oracle: the package's own trace of the same request, m features drawn from the seed.
  const trace = expectedTrace(state, { family: 'linear', featureMap: 'favor', features: state.features, seed: state.seed });
  const featureQ = trace.groups.find((g) => g.id === 'feature-q').steps[0];
  assert.equal(featureQ.shape[1], state.features, 'φ(Q) has m columns');
  for (const id of ['feature-q', 'feature-k', 'kv-state', 'implied-weights']) {
    await page.evaluate((step) => document.querySelector('attn-lab').goToStep(step), id);
    await settle(page);
    await assertStepMatches(page, trace, id);
  }
  await page.locator('attn-lab').screenshot({ path: `${SCREENSHOT_DIR}/family-favor-implied-weights.png` });
  await menu.selectOption('softmax');
  await settle(page);
  const back = await labState(page);
  assert.equal(back.family, 'softmax');
  assert.equal(back.features, undefined, 'no features outside FAVOR+');
  assert.equal(back.seed, undefined, 'no seed outside FAVOR+');
  assertClean(problems);
});
