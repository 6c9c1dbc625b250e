// Showing change: after an edit, each result cell whose value moved says what it was (fading
// out), so the learner sees what the edit did; cells that did not move say nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { encodeHash, expectedTrace, presetState } from './support/expected.js';
import { goToStep, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');

// { "r,c": previous value } of the result cells that show one.
const wasCells = (page, matrix) =>
  page.evaluate((matrix) => {
    const table = document.querySelector('attn-lab').shadowRoot.querySelector(`[data-role="result"] table[data-matrix="${matrix}"]`);
    return Object.fromEntries(
      [...table.querySelectorAll('td[data-row]')].flatMap((td) => {
        const was = td.querySelector('.was');
        return was ? [[`${td.dataset.row},${td.dataset.col}`, Number(was.dataset.was)]] : [];
      }),
    );
  }, matrix);

test('after a temperature change each moved weight shows its previous value; unmoved steps show none', async (t) => {
  const state = { ...presetState('causal'), step: 'softmax' };
  const { page } = await session.open(t, encodeHash(state));
  assert.deepEqual(await wasCells(page, 'softmax'), {}, 'nothing has changed yet');

  await page.evaluate(() => document.querySelector('attn-lab').setState({ temperature: 3 }));
  await settle(page);
  const before = expectedTrace(state).steps.find((s) => s.id === 'softmax').values;
  const after = expectedTrace({ ...state, temperature: 3 }).steps.find((s) => s.id === 'softmax').values;
  const shown = (v) => Number(v.toFixed(4));
  const want = {};
  before.forEach((row, r) =>
    row.forEach((v, c) => {
      if (shown(v) !== shown(after[r][c])) want[`${r},${c}`] = v;
    }),
  );
  assert.ok(Object.keys(want).length > 0, 'the case moves some weights');
  const got = await wasCells(page, 'softmax');
  assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), 'exactly the moved cells say what they were');
  for (const key of Object.keys(want)) assert.ok(Math.abs(got[key] - want[key]) <= 1e-6, `${key}: ${got[key]} vs ${want[key]}`);

  // The scores do not depend on the temperature: nothing moved there.
  await goToStep(page, 'scores');
  assert.deepEqual(await wasCells(page, 'scores'), {});
});
