// The tokens view: attention on words. The lines from the focused token, the table of its
// weights and every head's thumbnail are the core's softmax weights for the element's own
// state (checked against the core called from Node); the head buttons, the presets and the
// learner's own tokens change what is drawn; a thumbnail opens its step in the stepper.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { encodeHash, expectedTrace, presetState } from './support/expected.js';
import { assertClean, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const TOLERANCE = 1e-6;

const open = (t, state, options) => session.open(t, `index.html${encodeHash(state)}`, { view: 'tokens', ...options });

/** What the view shows: the focused token, its lines and table, and every thumbnail's values. */
function shown(page) {
  return page.evaluate(() => {
    const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-tokens-view').shadowRoot;
    const table = (selector) => {
      const values = [];
      for (const cell of root.querySelectorAll(`${selector} td[data-row]`))
        (values[Number(cell.dataset.row)] ??= [])[Number(cell.dataset.col)] = Number(cell.dataset.value);
      return values;
    };
    return {
      focus: Number(root.querySelector('[data-control="token"][aria-pressed="true"]').dataset.token),
      tokens: [...root.querySelectorAll('[data-control="token"]')].map((b) => b.textContent.trim()),
      lines: [...root.querySelectorAll('[data-role="token-lines"] line')].map((line) => ({
        key: Number(line.dataset.key),
        value: Number(line.dataset.value),
        width: Number(line.getAttribute('stroke-width')),
      })),
      row: table('table[data-matrix="focus-weights"]')[0],
      thumbnails: [...root.querySelectorAll('[data-role="heads"] table[data-matrix="softmax"]')].map((t) => Number(t.dataset.head)),
      heads: [0, 1].map((h) => table(`[data-role="heads"] table[data-head="${h}"]`)),
      explanation: root.querySelector('[data-role="explanation"]').textContent,
    };
  });
}

const weightsOf = (state) =>
  expectedTrace(state)
    .steps.filter((s) => s.id === 'softmax')
    .map((s) => s.values);
const near = (a, b, what) => assert.ok(Math.abs(a - b) <= TOLERANCE, `${what}: ${a} vs ${b}`);

function assertShows(view, weights, token) {
  assert.equal(view.focus, token);
  weights[token].forEach((w, j) => near(view.row[j], w, `key ${j}`));
  // One line per key with a weight above 0, carrying that weight; thicker for a larger one.
  const expectedKeys = weights[token].flatMap((w, j) => (w > 0 ? [j] : []));
  assert.deepEqual(
    view.lines.map((l) => l.key),
    expectedKeys,
  );
  for (const line of view.lines) near(line.value, weights[token][line.key], `line to key ${line.key}`);
  const byWeight = [...view.lines].sort((a, b) => a.value - b.value);
  for (let i = 1; i < byWeight.length; i++) assert.ok(byWeight[i].width >= byWeight[i - 1].width, 'a larger weight draws a line at least as thick');
}

test("tokens preset: the head view and the thumbnails show the core's weights for every head", async (t) => {
  const state = presetState('tokens');
  const { page, problems } = await open(t, state);
  const weights = weightsOf(state);
  assert.equal(weights.length, 2, 'the preset has two heads');
  let view = await shown(page);
  assert.deepEqual(view.tokens, state.tokens);
  assertShows(view, weights[0], 0);
  assert.deepEqual(view.thumbnails, [0, 1]);
  view.heads.forEach((head, h) => head.forEach((row, i) => row.forEach((v, j) => near(v, weights[h][i][j], `head ${h + 1} (${i}, ${j})`))));

  // Focus the third token, then switch to head 2: both follow.
  const root = 'attn-lab attn-tokens-view';
  await page.locator(`${root} [data-control="token"][data-token="2"]`).focus();
  await settle(page);
  assertShows(await shown(page), weights[0], 2);
  await page.locator(`${root} [data-control="head"][data-head="1"]`).click();
  await settle(page);
  view = await shown(page);
  assertShows(view, weights[1], 2);
  assert.match(view.explanation, /^In head 2, “sat” gives the most attention to /);
  assert.deepEqual(await page.evaluate(() => document.querySelector('attn-lab').getState().viewState), { head: 1, token: 2 });
  assertClean(problems);
});

test('hovering a token draws its lines; a causal example draws none to later tokens', async (t) => {
  const { page, problems } = await open(t, presetState('tokens'));
  await page.locator('attn-lab attn-tokens-view select[data-control="preset"]').selectOption('causal');
  await settle(page);
  const state = await page.evaluate(() => document.querySelector('attn-lab').getState());
  assert.equal(state.view, 'tokens', 'the example loads in this view');
  assert.equal(state.causal, true);
  await page.locator('attn-lab attn-tokens-view [data-control="token"][data-token="3"]').hover();
  await settle(page);
  const view = await shown(page);
  assertShows(view, weightsOf(state)[0], 3);
  assert.ok(
    view.lines.every((line) => line.key <= 3),
    `only keys 1…4: ${JSON.stringify(view.lines)}`,
  );
  assertClean(problems);
});

test("the learner's own tokens and matrices from the stepper are what the view draws", async (t) => {
  const { page, problems } = await open(t, presetState('tokens'));
  // The two-head example's 4×4 weights under the learner's own four tokens.
  const own = {
    ...presetState('two-heads'),
    view: 'tokens',
    viewState: {},
    tokens: ['we', 'drink', 'hot', 'tea'],
    X: [
      [1, 0, 0, 2],
      [0, 1, 0, 0],
      [0, 0, 1, 0],
      [2, 0, 0, 1],
    ],
  };
  await page.evaluate((own) => document.querySelector('attn-lab').setState(own), own);
  await settle(page);
  const view = await shown(page);
  assert.deepEqual(view.tokens, own.tokens);
  assertShows(view, weightsOf(own)[0], 0);
  assertClean(problems);
});

test("a thumbnail opens its head's softmax step in the stepper", async (t) => {
  const { page, problems } = await open(t, presetState('tokens'));
  await page.locator('attn-lab attn-tokens-view [data-control="open-head"][data-head="1"]').click();
  await settle(page);
  const state = await page.evaluate(() => document.querySelector('attn-lab').getState());
  assert.equal(state.view, 'stepper');
  assert.equal(state.step, 'softmax');
  assertClean(problems);
});

test('at 390 px the tokens view fits the page width', async (t) => {
  const { page, problems } = await open(t, presetState('tokens'), { viewport: { width: 390, height: 844 } });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
  assertClean(problems);
});

test("the tokens example's two heads clearly differ: head 1 looks at the previous token, head 2 at the first (the core's weights)", async (t) => {
  const state = presetState('tokens');
  const [previous, first] = weightsOf(state);
  const argmax = (row) => row.indexOf(Math.max(...row));
  previous.forEach((row, i) => {
    assert.equal(argmax(row), Math.max(i - 1, 0), `head 1, “${state.tokens[i]}”`);
    assert.ok(row[argmax(row)] > 0.8, `head 1, “${state.tokens[i]}”: ${row}`);
  });
  first.forEach((row, i) => assert.ok(argmax(row) === 0 && row[0] > 0.8, `head 2, “${state.tokens[i]}”: ${row}`));
  // Every query's weights at once, for each head: the overview is the thumbnails.
  const { page, problems } = await open(t, state);
  const view = await shown(page);
  view.heads.forEach((head, h) => assert.equal(head.length, state.tokens.length, `head ${h + 1}: a row for every query`));
  assertClean(problems);
});

test("with one head the overview still shows every query's weights", async (t) => {
  const { page, problems } = await open(t, { ...presetState('causal'), view: 'tokens', viewState: {} });
  const view = await shown(page);
  assert.deepEqual(view.thumbnails, [0]);
  assert.equal(view.heads[0].length, 6);
  assertClean(problems);
});
