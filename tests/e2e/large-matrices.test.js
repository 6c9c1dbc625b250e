// The element at the trace's documented limit, 512 tokens (one head: n_q · n_k = 2^18): every
// matrix longer than 40 rows or columns is drawn as a window onto it, so the DOM holds a few
// hundred cells, not the 790,000 it held (29 s to render, 8 s tasks); scrolling and the
// keyboard reach every cell, each showing the core's number. Times are bench:page's to print.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { countCells } from '../support/count-cells.js';
import { encodeHash, expectedTrace, TOLERANCE } from './support/expected.js';
import { audit } from './support/axe.js';
import { assertClean, goToStep, labState, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const N = 512;
const WIDTH = 2;
// The DOM's cells (td and th, every shadow root): bounded whatever the size.
const CELL_BOUND = 4000;

const core = await createAttnLab();
const seeded = (rows, cols, seed) => {
  const { data } = core.normalMatrix({ rows, cols, seed });
  return Array.from({ length: rows }, (_, i) => Array.from(data.subarray(i * cols, (i + 1) * cols), (v) => Math.round(v * 10) / 10));
};
const STATE = {
  mode: 'x',
  tokens: Array.from({ length: N }, (_, i) => `t${i + 1}`),
  X: seeded(N, WIDTH, 1),
  Wq: seeded(WIDTH, WIDTH, 2),
  Wk: seeded(WIDTH, WIDTH, 3),
  Wv: seeded(WIDTH, WIDTH, 4),
  Wo: null,
  heads: 1,
  positional: 'none',
  keyPadding: Array(N).fill(false),
  step: 'softmax',
};

const cellCount = (page) => page.evaluate(countCells);

const RESULT = 'attn-lab [data-role="result"] table[data-matrix="softmax"]';
const focusedCell = (page) =>
  page.evaluate(() => {
    const td = document.querySelector('attn-lab').shadowRoot.activeElement?.closest('td[data-row]');
    return td && { matrix: td.closest('table').dataset.matrix, row: Number(td.dataset.row), col: Number(td.dataset.col), value: Number(td.dataset.value) };
  });
// What covers the middle of the focused cell, once its box is in the viewport: null where nothing
// does (the cell itself, or something inside it, is on top there).
const coveredBy = (page) =>
  page.evaluate(() => {
    const root = document.querySelector('attn-lab').shadowRoot;
    const td = root.activeElement.closest('td[data-row]');
    td.closest('.matrix-box').scrollIntoView({ block: 'center' });
    const r = td.getBoundingClientRect();
    const top = root.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return td.contains(top) ? null : `${top?.tagName} ${top?.className} "${top?.textContent.trim().slice(0, 20)}"`;
  });
const near = (got, want, what) => assert.ok(Math.abs(got - want) <= TOLERANCE, `${what}: ${got} against the core's ${want}`);

test('512 tokens: the softmax step draws a bounded window of every matrix, and the keyboard reaches the last weight', async (t) => {
  const { page, problems } = await session.open(t, encodeHash(STATE));
  const weights = expectedTrace(await labState(page)).steps.find((s) => s.id === 'softmax').values;
  const cells = await cellCount(page);
  assert.ok(cells < CELL_BOUND, `${cells} cells in the DOM (the three 512 × 512 matrices have 786,432)`);
  const table = page.locator(RESULT);
  assert.equal(await table.getAttribute('aria-rowcount'), String(N + 1), 'the grid says how many rows it has');
  assert.deepEqual(await audit(page), [], 'the windows are axe-clean (grids with spacers and sticky headers)');

  await page.locator(`${RESULT} td[tabindex="0"]`).focus();
  await settle(page);
  let at = await focusedCell(page);
  assert.deepEqual([at.row, at.col], [0, 0]);
  near(at.value, weights[0][0], 'weight 1,1');
  assert.match(await page.locator('attn-lab [data-role="explanation"]').textContent(), /a₁₁/, 'the focused weight is explained');

  await page.keyboard.press('Control+End');
  await settle(page);
  at = await focusedCell(page);
  assert.deepEqual([at.matrix, at.row, at.col], ['softmax', N - 1, N - 1], 'Ctrl+End reaches the last weight');
  near(at.value, weights[N - 1][N - 1], 'the last weight');
  assert.equal(await coveredBy(page), null, 'the last weight is in view, not under the sticky Σ column or a header');
  await page.keyboard.press('PageUp');
  await page.keyboard.press('ArrowLeft');
  await settle(page);
  at = await focusedCell(page);
  assert.ok(at.row < N - 1 && at.row > N - 40 && at.col === N - 2, `Page Up and ← move from the corner: ${at.row}, ${at.col}`);
  near(at.value, weights[at.row][at.col], `weight ${at.row + 1},${at.col + 1}`);
  assert.equal(await page.evaluate(() => document.querySelector('attn-lab').dataset.step), 'softmax', 'the keys did not step');

  // Scrolling the box halfway shows the rows and columns there, with the core's numbers.
  await table.evaluate((element) => {
    const box = element.closest('.matrix-box');
    box.scrollTop = box.scrollHeight / 2;
    box.scrollLeft = box.scrollWidth / 2;
  });
  await settle(page);
  await settle(page);
  const shown = await table.evaluate((element) =>
    [...element.querySelectorAll('td[data-row]')].map((td) => [Number(td.dataset.row), Number(td.dataset.col), Number(td.dataset.value)]),
  );
  assert.ok(
    shown.some(([r, c]) => Math.abs(r - N / 2) < 20 && Math.abs(c - N / 2) < 20),
    'the middle of the matrix is drawn',
  );
  for (const [r, c, v] of shown) near(v, weights[r][c], `weight ${r + 1},${c + 1}`);
  assert.ok((await cellCount(page)) < CELL_BOUND, 'still bounded after scrolling');
  assertClean(problems);
});

test('512 tokens on a phone: the keyboard brings the last weight out from under the Σ column', async (t) => {
  // A 390 px box sizes its columns to their numbers: placed from the averaged pitch alone, the
  // last column stayed under the sticky Σ column.
  const { page, problems } = await session.open(t, encodeHash(STATE), { viewport: { width: 390, height: 900 } });
  await page.locator(`${RESULT} td[tabindex="0"]`).focus();
  for (const key of ['Control+End', 'ArrowUp', 'Control+Home', 'Control+End']) {
    await page.keyboard.press(key);
    await settle(page);
    const at = await focusedCell(page);
    assert.equal(await coveredBy(page), null, `${key}: the focused weight ${at.row + 1},${at.col + 1} is in view`);
  }
  // A move inside the view scrolls nothing, and a scroll of the learner's after it is not pulled
  // back to the focused cell.
  await page.keyboard.press('ArrowUp');
  await settle(page);
  await page.locator(RESULT).evaluate((element) => {
    const box = element.closest('.matrix-box');
    box.scrollTop = box.scrollHeight / 2;
  });
  await settle(page);
  await settle(page);
  const rows = await page.locator(RESULT).evaluate((element) => [...element.querySelectorAll('td[data-row]')].map((td) => Number(td.dataset.row)));
  assert.ok(
    rows.some((r) => Math.abs(r - N / 2) < 30),
    `the middle rows are drawn after the scroll (${Math.min(...rows) + 1} to ${Math.max(...rows) + 1})`,
  );
  assertClean(problems);
});

test('512 tokens: a far scroll away from the focused last weight lands where it was sent', async (t) => {
  // The focused cell leaves the window in that scroll: its removal in the middle of the redraw
  // had the browser clamp the box's scroll position to a table whose spacers were half resized.
  const { page, problems } = await session.open(t, encodeHash(STATE));
  await page.locator(`${RESULT} td[tabindex="0"]`).focus();
  await page.keyboard.press('Control+End');
  await settle(page);
  const sent = 3000;
  await page.locator(RESULT).evaluate((element, top) => {
    element.closest('.matrix-box').scrollTop = top;
  }, sent);
  await settle(page);
  await settle(page);
  const { top, rows } = await page.locator(RESULT).evaluate((element) => ({
    top: element.closest('.matrix-box').scrollTop,
    rows: [...element.querySelectorAll('td[data-row]')].map((td) => Number(td.dataset.row)),
  }));
  assert.ok(Math.abs(top - sent) <= 1, `the box stays scrolled to ${sent} px, not ${top}`);
  const pitch = await page.locator(`${RESULT} tbody tr[data-r]`).evaluateAll((trs) => (trs.at(-1).offsetTop - trs[0].offsetTop) / (trs.length - 1));
  const expected = Math.floor(sent / pitch);
  assert.ok(
    rows.some((r) => Math.abs(r - expected) <= 3),
    `the rows near ${sent} px (about row ${expected + 1}) are drawn (${Math.min(...rows) + 1} to ${Math.max(...rows) + 1})`,
  );
  assertClean(problems);
});

test('512 tokens on a phone: a far scroll from the last column keeps it clear of the Σ column', async (t) => {
  // The column spacer is sized from a pitch averaged over the cells drawn: rows of other numbers
  // measured it a fraction of a pixel wider, and 505 columns of it pushed the last one under Σ.
  const { page, problems } = await session.open(t, encodeHash(STATE), { viewport: { width: 390, height: 900 } });
  await page.locator(`${RESULT} td[tabindex="0"]`).focus();
  await page.keyboard.press('Control+End');
  await settle(page);
  await page.locator(RESULT).evaluate((element) => {
    element.closest('.matrix-box').scrollTop = 3000;
  });
  await settle(page);
  await settle(page);
  const { last, sum } = await page.locator(RESULT).evaluate(
    (element, col) => ({
      last: element.querySelector(`td[data-col="${col}"]`)?.getBoundingClientRect().right,
      sum: element.querySelector('tbody tr[data-r] .total').getBoundingClientRect().left,
    }),
    N - 1,
  );
  assert.ok(last !== undefined && last <= sum + 1, `the last column ends at ${last} px, left of the Σ column at ${sum} px`);
  assertClean(problems);
});

test('512 tokens: a scroll down in the middle of the columns leaves them where they were', async (t) => {
  // The same averaged pitch sized the spacer before the ~250 columns left of the view: a scroll
  // down redrew the rows, and the columns in view jumped sideways.
  const { page, problems } = await session.open(t, encodeHash(STATE), { viewport: { width: 390, height: 900 } });
  const box = page.locator(RESULT);
  // Column heads by aria-colindex: column c is c + 2 (the row labels are column 1).
  const headAt = (element, index) => element.querySelector(`thead th[aria-colindex="${index}"]`)?.getBoundingClientRect().left;
  await box.evaluate((element) => {
    const b = element.closest('.matrix-box');
    b.scrollLeft = b.scrollWidth / 2;
  });
  await settle(page);
  await settle(page);
  // The first column head whole to the right of the row labels.
  const { index, before } = await box.evaluate((element) => {
    const side = element.querySelector('tbody tr[data-r] th').getBoundingClientRect().right;
    const head = [...element.querySelectorAll('thead th[aria-colindex]')].find((th) => th.getBoundingClientRect().left >= side);
    return { index: Number(head.getAttribute('aria-colindex')), before: head.getBoundingClientRect().left };
  });
  for (const scrollTop of [1500, 3000, 6000]) {
    await box.evaluate((element, top) => {
      element.closest('.matrix-box').scrollTop = top;
    }, scrollTop);
    await settle(page);
    await settle(page);
    const after = await box.evaluate(headAt, index);
    assert.ok(after !== undefined && Math.abs(after - before) <= 1, `at scrollTop ${scrollTop}, column ${index - 1} starts at ${after} px, not ${before} px`);
  }
  // The keyboard too: Page Down from a cell of that column scrolls down only.
  await box.evaluate((element, index) => element.querySelector(`td[data-col="${index - 2}"]`).focus(), index);
  for (let i = 0; i < 2; i++) {
    await page.keyboard.press('PageDown');
    await settle(page);
    const after = await box.evaluate(headAt, index);
    assert.ok(after !== undefined && Math.abs(after - before) <= 1, `after Page Down ${i + 1}, column ${index - 1} starts at ${after} px, not ${before} px`);
  }
  assertClean(problems);
});

test('512 tokens: other steps, a causal mask and an edit of X stay bounded and right', async (t) => {
  const { page, problems } = await session.open(t, encodeHash(STATE));
  await goToStep(page, 'scores');
  assert.ok((await cellCount(page)) < CELL_BOUND, 'the scores step');
  await page.evaluate(() => document.querySelector('attn-lab').setState({ causal: true }));
  await settle(page);
  await goToStep(page, 'softmax');
  const causal = await labState(page);
  assert.equal(causal.causal, true);
  const weights = expectedTrace(causal).steps.find((s) => s.id === 'softmax').values;
  const first = await page.locator(`${RESULT} td[data-row="0"][data-col="1"]`).getAttribute('data-value');
  assert.equal(Number(first), weights[0][1], 'the causal mask applies: query 1 does not see key 2');
  assert.ok((await cellCount(page)) < CELL_BOUND, 'causal, at the softmax step');

  // X (512 × 2) is edited in a window too: Page Down, then type.
  const editor = 'attn-lab [data-role="inputs"] table[data-matrix="X"]';
  await page.locator(`${editor} input[tabindex="0"]`).focus();
  await page.keyboard.press('PageDown');
  await page.keyboard.press('PageDown');
  const row = await page.evaluate(() => Number(document.querySelector('attn-lab').shadowRoot.activeElement.closest('td').dataset.row));
  assert.ok(row > 2, `Page Down moves down the editor (row ${row})`);
  await page.keyboard.type('2.5');
  await settle(page);
  assert.equal(await page.evaluate((row) => document.querySelector('attn-lab').getState().X[row][0], row), 2.5, 'the edit reaches the state');
  assert.ok((await cellCount(page)) < CELL_BOUND, 'after an edit');
  assertClean(problems);
});

test('512 tokens: hovering a score far down its matrix scrolls the operands to the query row and key column it comes from', async (t) => {
  const { page, problems } = await session.open(t, encodeHash({ ...STATE, step: 'scores' }));
  const result = page.locator('attn-lab [data-role="result"] table[data-matrix="scores"]');
  await result.evaluate((element) => {
    const box = element.closest('.matrix-box');
    box.scrollTop = box.scrollHeight * 0.6;
    box.scrollLeft = box.scrollWidth * 0.6;
  });
  await settle(page);
  await settle(page);
  // A cell in the middle of the drawn window, hovered.
  const [row, col] = await result.evaluate((element) => {
    const cells = [...element.querySelectorAll('td[data-row]')];
    const cell = cells[Math.floor(cells.length / 2)];
    cell.dispatchEvent(new MouseEvent('mouseover', { bubbles: true, composed: true }));
    return [Number(cell.dataset.row), Number(cell.dataset.col)];
  });
  assert.ok(row > 200 && col > 200, `a cell far from the first rows and columns: ${row}, ${col}`);
  await settle(page);
  await settle(page);
  const lit = await page.evaluate(() =>
    [...document.querySelector('attn-lab').shadowRoot.querySelectorAll('[data-role="operands"] table')].map((table) => ({
      rows: [...new Set([...table.querySelectorAll('td.hl')].map((td) => Number(td.dataset.row)))],
      cols: [...new Set([...table.querySelectorAll('td.hl')].map((td) => Number(td.dataset.col)))],
    })),
  );
  // Q (512 × 4): its row `row` lit and drawn; Kᵀ (4 × 512): its column `col`.
  assert.deepEqual(lit[0].rows, [row], 'the query row is drawn and lit');
  assert.deepEqual(lit[1].cols, [col], 'the key column is drawn and lit');
  assert.ok((await cellCount(page)) < CELL_BOUND);
  assertClean(problems);
});

test('512 tokens: their labels and padding switches wait behind a disclosure, drawn once it is opened', async (t) => {
  const { page, problems } = await session.open(t, encodeHash(STATE));
  const controls = () => page.evaluate(() => document.querySelector('attn-lab').shadowRoot.querySelectorAll('[data-token], [data-action="pad-key"]').length);
  assert.equal(await controls(), 0, 'closed: no token controls (they were 1,024 Tab stops)');
  await page.locator('attn-lab [data-role="many-tokens"] summary').click();
  await settle(page);
  assert.equal(await controls(), 2 * N, 'open: a label and a padding switch per token');
  await page.locator('attn-lab [data-action="pad-key"][data-key="3"]').click();
  await settle(page);
  assert.equal((await labState(page)).keyPadding[3], true, 'a padding switch still works');
  assertClean(problems);
});
