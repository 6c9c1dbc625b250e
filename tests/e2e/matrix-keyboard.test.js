// A matrix is one Tab stop, as the WAI-ARIA grid pattern has it (a roving tabindex): the
// arrow keys move between its cells, Home/End to the row's ends, Ctrl+Home/Ctrl+End to its
// corners, Page Up/Down by a screenful, and the cell reached is explained as a hovered one is.
// Before, every cell was a Tab stop: 16 before the Export buttons on the tiny example.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { encodeHash, presetState } from './support/expected.js';
import { assertClean, dataStep, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');

// What has focus inside the element: a matrix cell (its table and row, col) or another control.
const focused = (page) =>
  page.evaluate(() => {
    const active = document.querySelector('attn-lab').shadowRoot.activeElement;
    if (!active) return null;
    const td = active.closest('td[data-row]');
    if (!td) return { tag: active.tagName, export: active.dataset.export ?? null };
    const table = td.closest('table');
    return {
      matrix: table.dataset.matrix,
      role: table.closest('[data-role]')?.dataset.role,
      row: Number(td.dataset.row),
      col: Number(td.dataset.col),
      tag: active.tagName,
    };
  });
const explanation = (page) => page.evaluate(() => document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="explanation"]').textContent.trim());

test('each matrix is one Tab stop: Tab goes from matrix to matrix, never from cell to cell', async (t) => {
  const { page, problems } = await session.open(t, encodeHash({ ...presetState('tiny'), step: 'scores' }));
  await page.locator('attn-lab [data-goto="scores"]').focus();
  const stops = [];
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const at = await focused(page);
    if (at?.export) break;
    stops.push(at);
  }
  const cells = stops.filter((at) => at?.matrix);
  // The scores step shows Q, Kᵀ and S: three matrices, three stops (it was 16, every cell).
  assert.deepEqual(
    cells.map((at) => at.matrix),
    ['Q', 'K', 'scores'],
    `one stop per matrix before Export, got ${JSON.stringify(cells)}`,
  );
  // The editors of the inputs: one stop each too (an input of the matrix, the first one).
  const editors = [];
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const at = await focused(page);
    if (at === null || (at.tag === 'BODY' && !at.matrix)) break;
    if (at.role === 'inputs') editors.push(`${at.matrix} ${at.row},${at.col}`);
  }
  assert.deepEqual(editors, ['Q 0,0', 'K 0,0', 'V 0,0'], 'one stop per input editor');
  assertClean(problems);
});

test('the arrow keys, Home, End, Ctrl+Home and Ctrl+End move inside a matrix and explain the cell; the step stays', async (t) => {
  const { page, problems } = await session.open(t, encodeHash({ ...presetState('tiny'), step: 'scores' }));
  const result = 'attn-lab [data-role="result"] table[data-matrix="scores"]';
  await page.locator(`${result} td[tabindex="0"]`).focus();
  await settle(page);
  assert.deepEqual(await focused(page), { matrix: 'scores', role: 'result', row: 0, col: 0, tag: 'TD' });
  assert.equal(await explanation(page), 'q₁·k₁ = 1×2 + 0×0 = 2');
  const press = async (key) => {
    await page.keyboard.press(key);
    await settle(page);
    const at = await focused(page);
    return [at.row, at.col];
  };
  assert.deepEqual(await press('ArrowRight'), [0, 1], '→');
  // The tiny example: q₁ = (1, 0), k₂ = (1, 1).
  assert.equal(await explanation(page), 'q₁·k₂ = 1×1 + 0×1 = 1', 'the focused cell is explained');
  assert.deepEqual(await press('ArrowDown'), [1, 1], '↓');
  assert.deepEqual(await press('ArrowDown'), [1, 1], '↓ at the last row stays');
  assert.deepEqual(await press('End'), [1, 2], 'End: the row’s last cell');
  assert.deepEqual(await press('Home'), [1, 0], 'Home: the row’s first cell');
  assert.deepEqual(await press('Control+End'), [1, 2], 'Ctrl+End: the last cell');
  assert.deepEqual(await press('Control+Home'), [0, 0], 'Ctrl+Home: the first cell');
  assert.deepEqual(await press('PageDown'), [1, 0], 'Page Down');
  assert.deepEqual(await press('ArrowLeft'), [1, 0], '← at the first column stays');
  assert.equal(await dataStep(page), 'scores', 'keys inside a matrix do not step');
  // Only the cell reached is in the Tab order, and Tab returns to it.
  const stops = await page.locator(`${result} td[tabindex="0"]`).evaluateAll((all) => all.map((td) => `${td.dataset.row},${td.dataset.col}`));
  assert.deepEqual(stops, ['1,0']);
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  assert.deepEqual(await focused(page), { matrix: 'scores', role: 'result', row: 1, col: 0, tag: 'TD' }, 'Tab comes back to the cell last reached');
  assertClean(problems);
});

test('in an input editor ↑/↓ move between rows and ←/→ once the caret is at the edge of the text', async (t) => {
  const { page, problems } = await session.open(t, encodeHash({ ...presetState('tiny'), step: 'scores' }));
  const input = (row, col) => page.locator(`attn-lab [data-role="inputs"] table[data-matrix="K"] td[data-row="${row}"][data-col="${col}"] input`);
  const tabStops = () =>
    page.locator('attn-lab [data-role="inputs"] table[data-matrix="K"] input[tabindex="0"]').evaluateAll((all) => all.map((i) => i.getAttribute('aria-label')));
  assert.deepEqual(await tabStops(), ['K row 1, column 1']);
  await input(0, 0).focus();
  await page.keyboard.press('ArrowDown');
  assert.deepEqual(await focused(page), { matrix: 'K', role: 'inputs', row: 1, col: 0, tag: 'INPUT' });
  // The value is selected on arrival: → first collapses the selection to the end, then moves.
  await page.keyboard.press('ArrowRight');
  assert.equal((await focused(page)).col, 0, 'the caret moves to the end of the text first');
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await focused(page), { matrix: 'K', role: 'inputs', row: 1, col: 1, tag: 'INPUT' });
  await page.keyboard.press('Control+End');
  assert.deepEqual(await focused(page), { matrix: 'K', role: 'inputs', row: 2, col: 1, tag: 'INPUT' });
  // Typing still edits the cell reached.
  await page.keyboard.type('5');
  await settle(page);
  assert.equal(await page.evaluate(() => document.querySelector('attn-lab').getState().K[2][1]), 5);
  assert.deepEqual(await tabStops(), ['K row 3, column 2'], 'the input reached is the Tab stop');
  assertClean(problems);
});
