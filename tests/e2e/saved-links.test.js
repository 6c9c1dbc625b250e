// Saved links keep working: every "#s=" link in fixtures/saved-links.json was written by the
// page itself (read from location.hash) at the commit the fixture names, over every stepper
// preset, predict, both input modes, edits, temperature and scale, positions, causal masks
// with key padding, an explicit mask, two heads with W_O, and every teaching view with a
// view state of its own. Each must still open the same view and step with the same full
// state, show the core's numbers, and keep the link as it is. The fixture is never
// regenerated: a later version has to read what an earlier one wrote.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { stateOfLink } from '../support/state-link.js';
import { assertStepMatches, expectedTrace, maxAbsDiff, TOLERANCE } from './support/expected.js';
import { assertClean, labState, messageText, settle, viewTable, waitForView } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const { links } = JSON.parse(await readFile(new URL('./fixtures/saved-links.json', import.meta.url), 'utf8'));
const session = browserSession('web/dist');
const lab = await createAttnLab();

// View-state fields renamed since links were saved ({ view: { olderName: name } }, as
// web/element/README.md documents them): a link keeps opening, its state read under the new
// names, and the page writes the new names back.
const RENAMED = { scaling: { dk: 'headWidth' }, cost: { d: 'headWidth' }, 'long-sequence': { d: 'headWidth' }, positions: { tokens: 'positions' } };
function current(state) {
  const renamed = RENAMED[state.view];
  if (!renamed || !state.viewState) return state;
  return { ...state, viewState: Object.fromEntries(Object.entries(state.viewState).map(([name, value]) => [renamed[name] ?? name, value])) };
}

const inView = (view, selector) => `attn-lab attn-${view}-view ${selector}`;

// What each teaching view must show for its view state: the core's numbers where the view
// shows numbers without being asked to measure, and its controls set from the state.
const VIEW_CHECKS = {
  async geometry(page, { query, keys, values, scaled, temperature }) {
    const want = lab.attention({ Q: [query], K: keys, V: values, scale: scaled ? undefined : 1, temperature });
    for (const name of ['scores', 'weights', 'output']) {
      const diff = maxAbsDiff(await viewTable(page, 'geometry', `table[data-matrix="${name}"]`), want[name]);
      assert.ok(diff <= TOLERANCE, `geometry ${name}: max abs diff ${diff} from lab.attention()`);
    }
  },
  async softmax(page, { scores, temperature }) {
    const want = lab.softmaxBreakdown({ scores, temperature });
    const weights = await page.locator(inView('softmax', 'td[data-stage="weights"]')).evaluateAll((cells) => cells.map((c) => Number(c.dataset.value)));
    assert.equal(weights.length, scores.length);
    assert.ok(maxAbsDiff([weights], [want.weights]) <= TOLERANCE, `softmax weights ${weights} vs ${want.weights}`);
  },
  async positions(page, { positions, width }) {
    const diff = maxAbsDiff(await viewTable(page, 'positions', 'table[data-matrix="encoding"]'), lab.sinusoidalEncoding({ positions, width }));
    assert.ok(diff <= TOLERANCE, `positions encoding: max abs diff ${diff} from lab.sinusoidalEncoding(${positions}, ${width})`);
  },
  async scaling(page, { headWidth }) {
    assert.equal(Number(await page.locator(inView('scaling', 'input[data-control="headWidth"]')).first().inputValue()), headWidth);
  },
  async patterns(page, { seed, choice }) {
    assert.equal(await page.locator(inView('patterns', '[data-role="exercise"]')).getAttribute('data-seed'), String(seed));
    const pressed = inView('patterns', `[data-control="answer"][data-pattern="${choice}"]`);
    assert.equal(await page.locator(pressed).getAttribute('aria-pressed'), 'true');
  },
  async cost(page, { headWidth, maxN, causal }) {
    assert.equal(await page.locator(inView('cost', 'select[data-control="headWidth"]')).inputValue(), String(headWidth));
    assert.equal(await page.locator(inView('cost', 'select[data-control="maxN"]')).inputValue(), String(maxN));
    assert.equal(await page.locator(inView('cost', 'input[data-control="causal"]')).isChecked(), causal);
  },
  async quiz(page) {
    assert.ok(await page.locator(inView('quiz', 'table[data-role="progress"]')).count(), 'the progress table is shown');
  },
};

/** Waits for the stepper to show a step: its result tables, or the hidden-result notice of predict. */
async function waitForStepper(page) {
  await page.waitForFunction(() => {
    const root = document.querySelector('attn-lab')?.shadowRoot;
    return root?.querySelector('[data-role="result"] table td[data-value], [data-role="result"][data-hidden="true"]');
  });
  await settle(page);
}

/** Asserts the stepper's step on view shows the core's numbers (revealing a hidden result first). */
async function assertStepperNumbers(page, state) {
  if (state.predict) {
    assert.equal(await page.locator('attn-lab [data-role="result"]').first().getAttribute('data-hidden'), 'true', 'predict hides the result');
    await page.locator('attn-lab [data-action="predict-reveal"]').click();
    await settle(page);
  }
  await assertStepMatches(page, expectedTrace(state), state.step);
}

test('the fixture holds links of every kind it promises', () => {
  const views = new Set(links.map((link) => link.view));
  for (const view of ['stepper', ...Object.keys(VIEW_CHECKS)]) assert.ok(views.has(view), `a link to ${view}`);
  const states = links.map((link) => link.state);
  assert.ok(
    states.some((s) => s.predict),
    'predict',
  );
  assert.ok(states.some((s) => s.mode === 'qkv') && states.some((s) => s.mode === 'x'), 'both modes');
  assert.ok(
    states.some((s) => s.heads === 2 && s.Wo),
    'two heads with W_O',
  );
  assert.ok(
    states.some((s) => s.causal && s.keyPadding.includes(true)),
    'causal with key padding',
  );
  assert.ok(
    states.some((s) => s.mask),
    'an explicit mask',
  );
  assert.ok(states.some((s) => s.scale === false) && states.some((s) => typeof s.scale === 'number'), 'scale off and numeric');
  assert.ok(
    states.some((s) => s.positional === 'sinusoidal'),
    'positions',
  );
  // Links saved before the renames: each older name is read, so these must still open.
  for (const [view, renamed] of Object.entries(RENAMED).filter(([view]) => view !== 'long-sequence')) {
    for (const older of Object.keys(renamed))
      assert.ok(
        states.some((s) => s.view === view && older in s.viewState),
        `a ${view} link with its older field ${older}`,
      );
  }
  for (const link of links) {
    assert.deepEqual(stateOfLink(link.hash), link.state, `${link.name}: the link decodes to its state`);
    assert.equal(link.state.view, link.view);
    assert.equal(link.state.step, link.step);
  }
});

for (const link of links) {
  test(`saved link opens as saved: ${link.name}`, async (t) => {
    const teaching = link.view !== 'stepper';
    const { page, problems } = await session.open(t, `index.html${link.hash}`, { wait: false });
    if (teaching) await waitForView(page, link.view);
    else await waitForStepper(page);

    assert.deepEqual(await page.evaluate(() => ({ ...document.querySelector('attn-lab').dataset })), { view: link.view, step: link.step });
    const state = current(link.state);
    assert.deepEqual(await labState(page), state);
    assert.equal(await messageText(page), '', 'no message');
    if (teaching) await VIEW_CHECKS[link.view](page, state.viewState);
    else await assertStepperNumbers(page, link.state);

    // The page keeps the link: what it writes back decodes to the same state (older field
    // names under their new ones).
    await page.waitForTimeout(300);
    const hash = await page.evaluate(() => window.location.hash);
    assert.deepEqual(stateOfLink(hash), state);

    if (teaching) {
      // Underneath the view, the stepper state the link carried is intact.
      assert.equal(await page.evaluate(() => document.querySelector('attn-lab').showView('stepper')), true);
      await waitForStepper(page);
      assert.equal(await page.evaluate(() => document.querySelector('attn-lab').dataset.step), link.step);
      await assertStepperNumbers(page, { ...link.state, view: 'stepper' });
    }
    assertClean(problems);
  });
}
