// Reset returns to the preset the learner last chose, on the page (url-state, where the URL
// already holds the edit) as in an embed, and the URL follows. And with two heads, the
// explanation of a hovered cell stays in view.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { waitForLinkState } from '../support/state-link.js';
import { encodeHash, presetState } from './support/expected.js';
import { assertClean, cellInput, labState, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('.');
const PAGE = 'web/dist/index.html';

// The numbers shown in input editor `matrix`, read from the cells' inputs.
const shownInput = (page, matrix) =>
  page.evaluate((matrix) => {
    const table = document.querySelector('attn-lab').shadowRoot.querySelector(`[data-role="inputs"] table[data-matrix="${matrix}"]`);
    const rows = [];
    for (const td of table.querySelectorAll('td[data-row][data-col]'))
      (rows[Number(td.dataset.row)] ??= [])[Number(td.dataset.col)] = Number(td.querySelector('input').value);
    return rows;
  }, matrix);

// The state in the page's URL once the element has written it (it waits a moment after a change).
async function urlState(page, expectWq) {
  return waitForLinkState(page, (linked) => JSON.stringify(linked.Wq) === JSON.stringify(expectWq));
}

const choosePreset = async (page, id) => {
  await page.locator('attn-lab select[data-control="preset"]').selectOption(id);
  await settle(page);
};

const editCell = async (page, matrix, row, col, text) => {
  await page.locator(cellInput(matrix, row, col)).fill(text);
  await settle(page);
};

test("on the page, Reset after an edit brings back the chosen preset's numbers, and the URL follows", async (t) => {
  const { page, problems } = await session.open(t, PAGE);
  const causal = presetState('causal');
  await choosePreset(page, 'causal');
  await editCell(page, 'Wq', 0, 0, '7');
  const edited = (await shownInput(page, 'Wq'))[0][0];
  assert.equal(edited, 7);
  assert.equal((await urlState(page, [[7, ...causal.Wq[0].slice(1)], ...causal.Wq.slice(1)])).Wq[0][0], 7, 'the URL holds the edit');

  await page.locator('attn-lab [data-action="reset"]').click();
  await settle(page);
  assert.deepEqual(await shownInput(page, 'Wq'), causal.Wq);
  assert.deepEqual(await shownInput(page, 'Wk'), causal.Wk);
  const state = await labState(page);
  for (const field of ['X', 'Wq', 'Wk', 'Wv', 'tokens', 'causal']) assert.deepEqual(state[field], causal[field], field);
  assert.equal(await page.evaluate(() => document.querySelector('attn-lab').shadowRoot.querySelector('select[data-control="preset"]').value), 'causal');
  const inUrl = await urlState(page, causal.Wq);
  assert.deepEqual(inUrl.Wk, causal.Wk);
  assert.equal(inUrl.causal, true);
  assertClean(problems);
});

test("on the page opened from a link, Reset returns to the link's state", async (t) => {
  const linked = {
    ...presetState('tiny'),
    Q: [
      [2, 0],
      [0, 3],
    ],
    step: 'softmax',
  };
  const { page, problems } = await session.open(t, `${PAGE}${encodeHash(linked)}`);
  await editCell(page, 'Q', 1, 1, '-5');
  assert.deepEqual((await labState(page)).Q, [
    [2, 0],
    [0, -5],
  ]);
  await page.locator('attn-lab [data-action="reset"]').click();
  await settle(page);
  assert.deepEqual(await shownInput(page, 'Q'), [
    [2, 0],
    [0, 3],
  ]);
  assert.equal((await labState(page)).step, 'softmax');
  assertClean(problems);
});

test('two heads: the explanation of a hovered cell is on screen beside it, for either head', async (t) => {
  const { page, problems } = await session.open(t, `${PAGE}${encodeHash({ ...presetState('two-heads'), step: 'softmax' })}`, {
    viewport: { width: 1280, height: 800 },
  });
  for (const head of [0, 1]) {
    const cell = page.locator(`attn-lab [data-role="result"] table[data-matrix="softmax"][data-head="${head}"] td[data-row="0"][data-col="1"]`);
    // The cell at the top of the screen: the explanation must still be in view.
    await cell.evaluate((td) => td.scrollIntoView({ block: 'start' }));
    await cell.hover();
    await settle(page);
    const { text, top, bottom, cellTop, cellBottom } = await page.evaluate((head) => {
      const root = document.querySelector('attn-lab').shadowRoot;
      const shown = [...root.querySelectorAll('[data-role="explanation"]')].filter((p) => /^a₁₂ =/.test(p.textContent.trim()));
      const rect = shown[0]?.getBoundingClientRect();
      const td = root.querySelector(`[data-role="result"] table[data-matrix="softmax"][data-head="${head}"] td[data-row="0"][data-col="1"]`);
      const cellRect = td.getBoundingClientRect();
      return { text: shown.map((p) => p.textContent.trim()), top: rect?.top, bottom: rect?.bottom, cellTop: cellRect.top, cellBottom: cellRect.bottom };
    }, head);
    assert.equal(text.length, 1, `one explanation of a₁₂ for head ${head + 1}: ${JSON.stringify(text)}`);
    assert.ok(cellBottom > 0 && cellTop < 800, `the cell is on screen (${cellTop}–${cellBottom})`);
    assert.ok(top >= 0 && bottom <= 800, `head ${head + 1}: the explanation is on screen (${top}–${bottom} in a 800 px viewport)`);
  }
  assertClean(problems);
});
