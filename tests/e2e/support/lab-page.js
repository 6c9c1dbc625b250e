// Reading and driving <attn-lab> in a Playwright page through its stable test hooks
// (web/element/README.md). Hooks live in the element's open shadow root.
import assert from 'node:assert/strict';

/** Collects console errors, page errors and dialogs (dismissed) of a page. */
export function watch(page) {
  const problems = { consoleErrors: [], pageErrors: [], dialogs: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') problems.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => problems.pageErrors.push(error.message));
  page.on('dialog', (dialog) => {
    problems.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  return problems;
}

/** Waits until every <attn-lab> on the page shows a step with numeric result tables. */
export async function waitForLabs(page, count = 1) {
  await page.waitForFunction(
    (count) => {
      const labs = [...document.querySelectorAll('attn-lab')];
      return labs.length === count && labs.every((lab) => lab.dataset.step && lab.shadowRoot?.querySelector('[data-role="result"] table td[data-value]'));
    },
    count,
    { timeout: 15_000 },
  );
  await settle(page);
}

/** Waits until the first <attn-lab> shows teaching view `id` (its nested attn-ID-view element). */
export async function waitForView(page, id) {
  await page.waitForFunction(
    (id) => {
      const lab = document.querySelector('attn-lab');
      return lab?.dataset.view === id && lab.shadowRoot?.querySelector(`attn-${id}-view`)?.shadowRoot?.childElementCount > 0;
    },
    id,
    { timeout: 15_000 },
  );
  await settle(page);
  await page.evaluate(async (id) => {
    await document.querySelector('attn-lab').shadowRoot.querySelector(`attn-${id}-view`).updateComplete;
  }, id);
}

/** Resolves once every element has finished rendering and a frame has been drawn. */
export async function settle(page) {
  await page.evaluate(async () => {
    await Promise.all([...document.querySelectorAll('attn-lab')].map((lab) => lab.updateComplete));
    await new Promise((done) => requestAnimationFrame(() => done()));
  });
}

/**
 * The result tables of the step on view: [{ matrix, head, values }] with data-value numbers.
 * Masked entries survive: Number('-Infinity') is -Infinity, and evaluate() carries it over.
 */
export function renderedResults(page, index = 0) {
  return page.evaluate((index) => {
    const lab = document.querySelectorAll('attn-lab')[index];
    const tables = lab.shadowRoot.querySelectorAll('[data-role="result"] table[data-matrix]');
    return [...tables].map((table) => {
      const values = [];
      for (const cell of table.querySelectorAll('td[data-row][data-col]')) {
        const row = Number(cell.dataset.row);
        (values[row] ??= [])[Number(cell.dataset.col)] = Number(cell.dataset.value);
      }
      const head = table.dataset.head;
      return { matrix: table.dataset.matrix, head: head === undefined || head === '' ? undefined : Number(head), values };
    });
  }, index);
}

/**
 * The numbers (data-value) of the table under `selector` inside teaching view `view` (its id:
 * 'patterns' for <attn-patterns-view>) of the first <attn-lab>, by data-row and data-col.
 */
export function viewTable(page, view, selector) {
  return page.evaluate(
    ({ view, selector }) => {
      const root = document.querySelector('attn-lab').shadowRoot.querySelector(`attn-${view}-view`).shadowRoot;
      const values = [];
      for (const cell of root.querySelectorAll(`${selector} td[data-row][data-col]`)) {
        (values[Number(cell.dataset.row)] ??= [])[Number(cell.dataset.col)] = Number(cell.dataset.value);
      }
      return values;
    },
    { view, selector },
  );
}

/** Every table of teaching view `view` by data-matrix (`matrix/head` where it has a head), as viewTable reads one. */
export function viewTables(page, view) {
  return page.evaluate((view) => {
    const root = document.querySelector('attn-lab').shadowRoot.querySelector(`attn-${view}-view`).shadowRoot;
    const tables = {};
    for (const table of root.querySelectorAll('table[data-matrix]')) {
      const values = [];
      for (const cell of table.querySelectorAll('td[data-row][data-col]')) {
        (values[Number(cell.dataset.row)] ??= [])[Number(cell.dataset.col)] = Number(cell.dataset.value);
      }
      tables[`${table.dataset.matrix}${table.dataset.head ? `/${table.dataset.head}` : ''}`] = values;
    }
    return tables;
  }, view);
}

export const dataStep = (page, index = 0) => page.evaluate((i) => document.querySelectorAll('attn-lab')[i].dataset.step, index);
export const labState = (page, index = 0) => page.evaluate((i) => document.querySelectorAll('attn-lab')[i].getState(), index);
export const messageText = (page, index = 0) =>
  page.evaluate((i) => document.querySelectorAll('attn-lab')[i].shadowRoot.querySelector('[data-role="message"]')?.textContent.trim() ?? null, index);

/** Asserts that a page had no errors and fired no dialogs. */
export function assertClean(problems) {
  assert.deepEqual(problems.pageErrors, [], 'page errors');
  assert.deepEqual(problems.consoleErrors, [], 'console errors');
  assert.deepEqual(problems.dialogs, [], 'dialogs');
}

/** A selector for the editor of one input cell. */
export const cellInput = (matrix, row, col) => `attn-lab [data-role="inputs"] table[data-matrix="${matrix}"] td[data-row="${row}"][data-col="${col}"] input`;

/** Shows step `id` through the element's method, and waits for the render. */
export async function goToStep(page, id) {
  assert.equal(await page.evaluate((id) => document.querySelector('attn-lab').goToStep(id), id), true, `goToStep(${id})`);
  await settle(page);
}
