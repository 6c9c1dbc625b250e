// The variants view: each switch recomputes the tiny example's trace, and the step it changes
// shows the core's numbers (lab.trace called from Node with the same request, ≤ 1e-6); the KV
// cache walk's rows equal full causal attention's; the bytes table is lab.kvCacheBytes's.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { variantRequest } from '../../web/element/views/variants/example.js';
import { encodeHash, presetState } from './support/expected.js';
import { assertClean, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const lab = await createAttnLab();
const VIEW = 'attn-lab attn-variants-view';
const DEFAULTS = { cross: false, causal: false, rope: false, alibi: false, window: 0, global: false, kvHeads: 4, dropout: 0, seed: 1, kvCache: false, position: 5, head: 0, step: '' };

const open = (t, viewState = {}, options) =>
  session.open(t, `index.html${encodeHash({ ...presetState('variants'), viewState })}`, { view: 'variants', ...options });

/** Every table of the view by data-matrix (and head), the step on view and the explanation. */
function shown(page) {
  return page.evaluate(() => {
    const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-variants-view').shadowRoot;
    const tables = {};
    for (const table of root.querySelectorAll('table[data-matrix]')) {
      const values = [];
      for (const cell of table.querySelectorAll('td[data-row]')) (values[Number(cell.dataset.row)] ??= [])[Number(cell.dataset.col)] = Number(cell.dataset.value);
      tables[`${table.dataset.matrix}${table.dataset.head ? `/${table.dataset.head}` : ''}`] = values;
    }
    return {
      step: root.querySelector('[data-role="step"]').dataset.step,
      tables,
      explanation: root.querySelector('[data-role="explanation"]').textContent.trim(),
      bytes: Object.fromEntries([...root.querySelectorAll('[data-role="kv-bytes"] tr[data-model]')].map((tr) => [tr.dataset.model, [...tr.querySelectorAll('[data-value]')].map((td) => Number(td.dataset.value))])),
    };
  });
}

const sameMatrix = (got, expected, what) => {
  assert.equal(got.length, expected.length, `${what}: rows`);
  expected.forEach((row, i) =>
    row.forEach((v, j) => (v === -Infinity ? assert.equal(got[i][j], -Infinity, what) : assert.ok(Math.abs(got[i][j] - v) <= 1e-6, `${what} (${i}, ${j}): ${got[i][j]} vs ${v}`))),
  );
};

// Each switch, turned on in the page by its control, and the step it opens.
const SWITCHES = [
  ['rope', (p) => p.locator(`${VIEW} [data-control="rope"]`).check(), { rope: true }, 'rotate-q'],
  ['alibi', (p) => p.locator(`${VIEW} [data-control="alibi"]`).check(), { alibi: true }, 'bias'],
  ['window', (p) => p.locator(`${VIEW} [data-control="window"]`).selectOption('2'), { window: 2 }, 'mask'],
  ['kvHeads', (p) => p.locator(`${VIEW} [data-control="kvHeads"]`).selectOption('2'), { kvHeads: 2 }, 'scores'],
  ['dropout', (p) => p.locator(`${VIEW} [data-control="dropout"]`).selectOption('0.25'), { dropout: 0.25 }, 'dropout'],
  ['cross', (p) => p.locator(`${VIEW} [data-control="cross"]`).check(), { cross: true }, 'scores'],
];

for (const [name, turnOn, fields, stepId] of SWITCHES) {
  test(`switching ${name} on opens the ${stepId} step with the core's numbers for every head`, async (t) => {
    const { page, problems } = await open(t);
    await turnOn(page);
    await settle(page);
    const view = await shown(page);
    assert.equal(view.step, stepId);
    const trace = lab.trace(variantRequest({ ...DEFAULTS, ...fields }));
    const group = trace.groups.find((g) => g.id === stepId);
    assert.ok(group, `the core's trace has a ${stepId} step`);
    for (const step of group.steps) {
      sameMatrix(view.tables[`${stepId}${step.head === undefined ? '' : `/${step.head}`}`], step.values, `${stepId}, head ${step.head}`);
    }
    // Hovering a result cell explains it with its numbers.
    await page.locator(`${VIEW} table[data-matrix="${stepId}"] td[data-row="1"][data-col="0"]`).first().hover();
    await settle(page);
    assert.match((await shown(page)).explanation, /\d/);
    assertClean(problems);
  });
}

test('a window with a global first token: the mask keeps |i − j| < w and every pair with token 1', async (t) => {
  const { page, problems } = await open(t, { window: 2, global: true, step: 'mask' });
  const trace = lab.trace(variantRequest({ ...DEFAULTS, window: 2, global: true }));
  const mask = trace.groups.find((g) => g.id === 'mask').steps[0];
  for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) assert.equal(Boolean(mask.allowed[i][j]), Math.abs(i - j) < 2 || i === 0 || j === 0, `(${i}, ${j})`);
  sameMatrix((await shown(page)).tables['mask/0'], mask.values, 'masked scores');
  assertClean(problems);
});

test('the KV cache: each generated token\'s row equals full causal attention\'s, and the cache grows by one row a token', async (t) => {
  const { page, problems } = await open(t, { kvCache: true, kvHeads: 2, rope: true, position: 0 });
  const request = variantRequest({ ...DEFAULTS, kvCache: true, kvHeads: 2, rope: true });
  const full = lab.trace(request).output;
  const decode = lab.decode(request);
  for (let position = 0; position < 6; position++) {
    const view = await shown(page);
    sameMatrix(view.tables['decode-row'], [full[position]], `token ${position + 1}, from the cache vs full attention`);
    sameMatrix(view.tables['decode-row'], decode.steps[position].output, `token ${position + 1}, the core's decode`);
    assert.equal(view.tables['decode-keys'].length, position + 1);
    sameMatrix(view.tables['decode-weights'], decode.steps[position].heads[0].weights, 'the new row of weights');
    if (position < 5) {
      await page.locator(`${VIEW} [data-action="next-token"]`).click();
      await settle(page);
    }
  }
  // Bytes per token: the core's, for the toy and for a real configuration.
  const { bytes } = await shown(page);
  assert.deepEqual(bytes['Llama 2 70B'], [lab.kvCacheBytes({ layers: 80, kvHeads: 8, headDim: 128, bytesPerValue: 2 }), lab.kvCacheBytes({ layers: 80, kvHeads: 64, headDim: 128, bytesPerValue: 2 })]);
  assert.equal(bytes['Llama 2 70B'][0], 2 * 80 * 8 * 128 * 2);
  assertClean(problems);
});

test('at 390 px the variants view fits the page width', async (t) => {
  const { page, problems } = await open(t, { rope: true, kvCache: true }, { viewport: { width: 390, height: 844 } });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
  assertClean(problems);
});
