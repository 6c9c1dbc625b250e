// The element's state on the page: cell edits, #s= links (good and malformed), and token
// labels that look like HTML.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DEFAULT_PRESET, TOLERANCE, assertStepMatches, diffStep, encodeHash, expectedTrace, maxAbsDiff, presetState, stepIds } from './support/expected.js';
import { assertClean, cellInput, dataStep, goToStep, labState, messageText, renderedResults, settle, waitForLabs } from './support/lab-page.js';
import { browserSession } from './support/session.js';
import { waitForLinkState } from '../support/state-link.js';
import { sameTrace } from '../../web/element/state.js';

const session = browserSession('web/dist');

const base64url = (text) => Buffer.from(text, 'utf8').toString('base64url');
const stateHas = (page, predicate, arg) => page.waitForFunction(predicate, arg, { timeout: 5_000 });

test('editing a cell recomputes every step (Enter and Tab commit)', async (t) => {
  const { page, problems } = await session.open(t);
  const before = await labState(page);
  const renderedBefore = {};
  for (const id of stepIds(expectedTrace(before))) {
    await goToStep(page, id);
    renderedBefore[id] = await renderedResults(page);
  }

  await page.locator(cellInput('Q', 0, 0)).fill('2.5');
  await page.locator(cellInput('Q', 0, 0)).press('Enter');
  await stateHas(page, () => document.querySelector('attn-lab').getState().Q[0][0] === 2.5);
  await page.locator(cellInput('K', 1, 0)).fill('-1');
  await page.locator(cellInput('K', 1, 0)).press('Tab');
  await stateHas(page, () => document.querySelector('attn-lab').getState().K[1][0] === -1);

  const after = await labState(page);
  const K = structuredClone(before.K);
  K[1][0] = -1;
  assert.deepEqual(after, {
    ...before,
    Q: [
      [2.5, 0],
      [0, 1],
    ],
    K,
    step: after.step,
  });
  const trace = expectedTrace(after);
  for (const id of stepIds(trace)) {
    await goToStep(page, id);
    const rendered = await renderedResults(page);
    const diff = diffStep(rendered, trace, id);
    assert.ok(diff <= TOLERANCE, `step ${id} after the edit: max abs diff ${diff} from lab.trace()`);
    const changed = rendered.some((table, i) => maxAbsDiff(table.values, renderedBefore[id][i]?.values ?? []) > 0);
    assert.ok(changed, `step ${id} did not change after the edit`);
  }
  assertClean(problems);
});

test('the URL keeps the edited state: a reload shows the same state', async (t) => {
  const { page, problems } = await session.open(t);
  await page.locator(cellInput('V', 2, 1)).fill('3');
  await page.locator(cellInput('V', 2, 1)).press('Enter');
  await stateHas(page, () => document.querySelector('attn-lab').getState().V[2][1] === 3);
  const edited = await labState(page);
  // The element writes the URL shortly after an edit, not on every keystroke.
  assert.deepEqual(await waitForLinkState(page, (linked) => linked.V[2][1] === 3), edited);
  await page.reload();
  await waitForLabs(page);
  assert.deepEqual(await labState(page), edited);
  assertClean(problems);
});

test('a #s= link reproduces the same numbers at every step', async (t) => {
  const state = presetState('two-heads');
  state.X[0][0] = 0.75;
  state.causal = true;
  state.temperature = 0.5;
  state.step = 'softmax';
  const { page, problems } = await session.open(t, encodeHash(state));
  assert.equal(await dataStep(page), 'softmax');
  assert.deepEqual(await labState(page), state);
  const trace = expectedTrace(state);
  for (const id of stepIds(trace)) {
    await goToStep(page, id);
    await assertStepMatches(page, trace, id);
  }
  assertClean(problems);
});

for (const [name, hash] of [
  ['not base64url', '#s=%%%'],
  ['not JSON', `#s=${base64url('{not json')}`],
]) {
  test(`a malformed link (${name}) shows a message and falls back to the default preset`, async (t) => {
    const { page, problems } = await session.open(t, hash);
    assert.ok(await messageText(page), 'a message in [data-role="message"]');
    const state = await labState(page);
    assert.deepEqual({ ...state, step: undefined }, { ...presetState(DEFAULT_PRESET), step: undefined });
    await assertStepMatches(page, expectedTrace(state), state.step);
    assert.deepEqual(problems.pageErrors, []);
  });
}

const HTML_LABEL = '<img src=x onerror=alert(1)>';

async function assertLabelIsText(page) {
  await settle(page);
  await page.waitForTimeout(300); // time for an injected onerror to fire
  const images = await page.evaluate(() => {
    const count = (root) =>
      root.querySelectorAll('img').length + [...root.querySelectorAll('*')].reduce((sum, el) => sum + (el.shadowRoot ? count(el.shadowRoot) : 0), 0);
    return count(document);
  });
  assert.equal(images, 0, 'no <img> created');
  const text = await page.evaluate(() => document.querySelector('attn-lab').shadowRoot.textContent);
  assert.ok(text.includes(HTML_LABEL), 'the label shows as text');
}

test('token labels containing HTML render as text (typed in)', async (t) => {
  const { page, problems } = await session.open(t);
  const token = page.locator('attn-lab input[data-token="0"]');
  await token.fill(HTML_LABEL);
  await token.press('Enter');
  await stateHas(page, (label) => document.querySelector('attn-lab').getState().tokens[0] === label, HTML_LABEL);
  await assertLabelIsText(page);
  assertClean(problems); // no dialog either
});

test('token labels containing HTML render as text (from a link)', async (t) => {
  const state = presetState('causal');
  state.tokens[1] = HTML_LABEL;
  state.step = 'softmax';
  const { page, problems } = await session.open(t, encodeHash(state));
  await assertLabelIsText(page);
  assertClean(problems);
});

test('state-change and step-change events carry the new state and step', async (t) => {
  const { page } = await session.open(t);
  const events = await page.evaluate(async () => {
    const lab = document.querySelector('attn-lab');
    const seen = [];
    lab.addEventListener('state-change', (e) => seen.push(['state', e.detail.state.Q[0][0]]));
    lab.addEventListener('step-change', (e) => seen.push(['step', e.detail.step]));
    document.addEventListener('state-change', () => seen.push(['bubbled']), { once: true });
    lab.setState({
      Q: [
        [5, 0],
        [0, 1],
      ],
    });
    lab.goToStep('softmax');
    await lab.updateComplete;
    return seen;
  });
  assert.deepEqual(events, [['state', 5], ['bubbled'], ['step', 'softmax']]);
});

test('sameTrace: a change of step, view or view state keeps the trace; any input change does not', () => {
  const state = presetState('two-heads');
  for (const change of [{ step: 'softmax' }, { view: 'geometry' }, { viewState: { headWidth: 8 } }, { predict: true }]) {
    assert.equal(sameTrace(state, { ...state, ...change }), true, JSON.stringify(change));
  }
  for (const change of [{ causal: !state.causal }, { X: structuredClone(state.X) }, { temperature: 2 }, { heads: 1 }, { tokens: ['a'] }]) {
    assert.equal(sameTrace(state, { ...state, ...change }), false, Object.keys(change)[0]);
  }
});

// Issue 28: the state's request fields are the core's schema (core-lists.js), not a hand list.
// rope has no control in the element; before, setState refused it as an unknown field.
test('a request field without a control (rope) goes from the state to the trace the stepper shows', async (t) => {
  const state = { ...presetState('two-heads'), rope: true };
  const { page, problems } = await session.open(t, encodeHash(state));
  const withRope = expectedTrace(state, { rope: true });
  const without = expectedTrace(state);
  await goToStep(page, 'scores');
  const rendered = await renderedResults(page);
  assert.ok(diffStep(rendered, withRope, 'scores') <= TOLERANCE, 'the scores are those of the trace with rope');
  assert.ok(diffStep(rendered, without, 'scores') > 1e-3, 'and rope changes them, so the check can fail');
  assert.equal((await labState(page)).rope, true);
  const refused = await page.evaluate(() => {
    try {
      document.querySelector('attn-lab').setState({ rope: 'yes' });
      return null;
    } catch (error) {
      return `${error.name}: ${error.message}`;
    }
  });
  assert.equal(refused, 'StateError: "rope" must be true or false');
  assertClean(problems);
});
