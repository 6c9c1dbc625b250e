// Every state key is data: keys named like Object.prototype properties, functions, Proxies,
// symbols and cycles, given through setState, a #s= link or a preset name, are refused with
// a visible message (and, from setState, a thrown StateError, but for a view state, which
// its view refuses with a message as always); the last good state stays and the next valid
// edit works. Expected states are the default preset's, read from what ships.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertStepMatches, DEFAULT_PRESET, expectedTrace, presetState } from './support/expected.js';
import { assertClean, labState, messageText, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const PROTOTYPE_KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
const link = (json) => `#s=${Buffer.from(json, 'utf8').toString('base64url')}`;
const EDITED_Q = [
  [2, 0],
  [0, 1],
];

// After a refusal: a valid edit applies, clears the message and shows the core's numbers.
async function assertNextEditWorks(page) {
  await page.evaluate((Q) => document.querySelector('attn-lab').setState({ Q }), EDITED_Q);
  await settle(page);
  const state = await labState(page);
  assert.deepEqual(state.Q, EDITED_Q);
  assert.equal(await messageText(page), '');
  await assertStepMatches(page, expectedTrace(state), state.step);
}

test('setState: hostile keys and values throw StateError (a view state: a message), keep the state, and the next edit works', async (t) => {
  const { page, problems } = await session.open(t);
  const before = await labState(page);
  const results = await page.evaluate(async (keys) => {
    const lab = document.querySelector('attn-lab');
    const cycle = { seed: 1 };
    cycle.self = cycle;
    const selfRows = [[1, 0]];
    selfRows.push(selfRows);
    const cases = {
      ...Object.fromEntries(keys.map((key) => [`key ${key}`, JSON.parse(`{"${key}": {"heads": 2}}`)])),
      ...Object.fromEntries(keys.map((key) => [`viewState key ${key}`, { view: 'geometry', viewState: JSON.parse(`{"${key}": 1}`) }])),
      'a function value': { heads: () => 2 },
      'a function as the state': () => ({ heads: 2 }),
      'a Proxy as the state': new Proxy({ heads: 2 }, {}),
      'a Proxy in viewState': { view: 'geometry', viewState: new Proxy({}, {}) },
      'a Proxy whose trap throws': new Proxy(
        {},
        {
          ownKeys: () => {
            throw new Error('trap');
          },
        },
      ),
      'a symbol key': { [Symbol('heads')]: 2 },
      'a symbol value': { step: Symbol('softmax') },
      'a cycle in viewState': { view: 'geometry', viewState: cycle },
      'a cycle in Q': { Q: selfRows },
    };
    const out = [];
    for (const [name, partial] of Object.entries(cases)) {
      let thrown = null;
      try {
        lab.setState(partial);
      } catch (error) {
        thrown = error.name;
      }
      await lab.updateComplete;
      const message = lab.shadowRoot.querySelector('[data-role="message"]').textContent.trim();
      out.push({ name, thrown, message, state: lab.getState() });
    }
    return out;
  }, PROTOTYPE_KEYS);
  assert.equal(results.length, 2 * PROTOTYPE_KEYS.length + 9);
  for (const { name, thrown, message, state } of results) {
    assert.deepEqual(state, before, `${name}: the state changed`);
    if (name.startsWith('viewState key')) {
      // Like every view state its view refuses (views.test.js): a message, nothing thrown.
      assert.equal(thrown, null, name);
      assert.equal(message, `the geometry view has no field "${name.split(' ').at(-1)}"`);
    } else {
      assert.equal(thrown, 'StateError', name);
      assert.match(message, /^This state could not be applied \(.+\); the last good one stays\.$/, `${name}: ${message}`);
    }
  }
  // The messages name what was wrong, each in its own words.
  const byName = Object.fromEntries(results.map((r) => [r.name, r.message]));
  assert.match(byName['key constructor'], /unknown field "constructor"/);
  assert.match(byName['key __proto__'], /unknown field "__proto__"/);
  assert.match(byName['a function value'], /heads is a function/);
  assert.match(byName['a Proxy in viewState'], /viewState is a Proxy/);
  assert.match(byName['a symbol key'], /symbol key \(Symbol\(heads\)\)/);
  assert.match(byName['a cycle in Q'], /Q\[1\] refers back to itself/);
  await assertNextEditWorks(page);
  assertClean(problems);
});

test('#s= links with prototype-named keys show a message and the default example, never "Loading…"', async (t) => {
  const { page, problems } = await session.open(t);
  const fallback = presetState(DEFAULT_PRESET);
  for (const key of PROTOTYPE_KEYS) {
    for (const [where, json, verb] of [
      ['as a field', `{"${key}": {"heads": 2}}`, 'read'],
      ['in viewState', `{"view": "geometry", "viewState": {"${key}": 1}}`, 'shown'],
    ]) {
      const expected = `This state could not be ${verb} (`;
      await page.evaluate((hash) => {
        window.location.hash = hash;
      }, link(json));
      await page.waitForFunction(
        ([start, key]) => {
          const text = document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="message"]').textContent;
          return text.startsWith(start) && text.includes(`"${key}"`);
        },
        [expected, key],
        { timeout: 5_000 },
      );
      await settle(page);
      const state = await labState(page);
      assert.deepEqual({ ...state, step: undefined }, { ...fallback, step: undefined }, `${key} ${where}`);
      assert.equal(await page.evaluate(() => Boolean(document.querySelector('attn-lab').dataset.step)), true);
    }
  }
  await assertNextEditWorks(page);
  assertClean(problems);
});

test('prototype-named preset names show "no preset" and the default example; the next edit works', async (t) => {
  const { page, problems } = await session.open(t);
  const fallback = presetState(DEFAULT_PRESET);
  const shown = await page.evaluate(async (names) => {
    const out = [];
    for (const name of names) {
      const lab = document.createElement('attn-lab');
      lab.setAttribute('preset', name);
      document.body.append(lab);
      while (!lab.dataset.step) await new Promise((done) => setTimeout(done, 20));
      await lab.updateComplete;
      const message = lab.shadowRoot.querySelector('[data-role="message"]').textContent.trim();
      out.push({ name, message, state: lab.getState() });
      lab.remove();
    }
    // A view asking the page's element for such a preset (the patterns gallery's buttons do this).
    const lab = document.querySelector('attn-lab');
    lab.dispatchEvent(new CustomEvent('open-preset', { detail: { preset: 'constructor' } }));
    await lab.updateComplete;
    out.push({ name: 'open-preset', message: lab.shadowRoot.querySelector('[data-role="message"]').textContent.trim(), state: null });
    return out;
  }, PROTOTYPE_KEYS);
  for (const { name, message, state } of shown.slice(0, -1)) {
    assert.equal(message, `There is no preset "${name}", so the default example is shown.`);
    assert.deepEqual(state, fallback, name);
  }
  assert.equal(shown.at(-1).message, 'There is no preset "constructor".');
  await assertNextEditWorks(page);
  assertClean(problems);
});
