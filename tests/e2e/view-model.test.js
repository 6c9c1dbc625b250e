// The model view (issue 24): what it shows is the core's, computed again here in Node from the
// built package (dist/attnlab.js, the packaged model/): the next token's probabilities, every
// head's thumbnail weights and role, and the stepper opened from a head (its X, W_Q, W_K, W_V
// and softmax weights), each within 1e-5. Generation in the browser repeats the native
// trainer's sample (model/train-log.json) for its seed; a text the core refuses gets its
// message and the last good text stays; keyboard only, a head opens in the stepper; at 390 px
// nothing overflows sideways.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { maxAbsDiff } from './support/expected.js';
import { assertClean, labState, renderedResults, settle, waitForLabs, waitForView } from './support/lab-page.js';
import { browserSession } from './support/session.js';
import { openModel as openPage, shownNext } from './support/model-page.js';

const TOLERANCE = 1e-5;
const session = browserSession('web/dist');
const lab = await createAttnLab();
const model = await lab.loadModel();
const view = 'attn-lab attn-model-view';

const openModel = (t, viewState, options) => openPage(session, t, viewState, options);
const shownTokens = (page) => page.locator(`${view} [data-role="tokens"] li`).evaluateAll((items) => items.map((li) => Number(li.dataset.token)));
const shownHeads = (page) =>
  page
    .locator(`${view} canvas[data-head]`)
    .evaluateAll((canvases) => canvases.map((c) => ({ layer: Number(c.dataset.layer), head: Number(c.dataset.head), weights: c.weights })));
const shownRoles = (page) => page.locator(`${view} li[data-role-name]`).evaluateAll((items) => items.map((li) => li.dataset.roleName));
const viewState = async (page) => (await labState(page)).viewState;
// The stepper renders in the element itself: its view is on once its result tables are.
async function waitForStepper(page) {
  await page.waitForFunction(() => document.querySelector('attn-lab').dataset.view === 'stepper');
  await waitForLabs(page);
}

test("the next token's probabilities, every head's weights and roles are the core's from Node", async (t) => {
  const { page, problems } = await openModel(t);
  const { text, temperature, topK } = await viewState(page);
  const { tokenIds: tokens } = model.tokenize(text);
  const forward = model.forward(tokens);
  const next = model.nextTokenDistribution(forward.logits.at(-1), { temperature, topK });

  assert.deepEqual(await shownTokens(page), tokens);
  const shown = await shownNext(page);
  assert.equal(shown.length, 10);
  shown.forEach(([token, p], i) => {
    assert.equal(token, next.tokenIds[i]);
    assert.ok(Math.abs(p - next.probabilities[i]) <= TOLERANCE, `candidate ${i}: ${p} against ${next.probabilities[i]}`);
  });

  const heads = await shownHeads(page);
  assert.equal(heads.length, model.config.layers * model.config.heads);
  for (const { layer, head, weights } of heads) {
    const diff = maxAbsDiff(weights, forward.blocks[layer].attention[head]);
    assert.ok(diff <= TOLERANCE, `layer ${layer} head ${head}: ${diff}`);
  }
  assert.deepEqual(
    await shownRoles(page),
    model
      .headScores(tokens)
      .flat()
      .map((s) => s.role),
  );
  assertClean(problems);
});

// A long text's weights are drawn as a window onto the matrix (its first rows and columns until
// scrolled): every cell drawn is checked, and the window must hold at least 10 × 10 of them.
function drawnDifference(values, expected) {
  let [diff, cells] = [0, 0];
  values.forEach((row, i) => row.forEach((value, j) => ([diff, cells] = [Math.max(diff, Math.abs(value - expected[i][j])), cells + 1])));
  return { diff: cells >= Math.min(expected.length, 10) ** 2 ? diff : Infinity, cells };
}

test('a head opens in the stepper on its real inputs: its LayerNorm output, its W_Q, W_K, W_V, its weights', async (t) => {
  const { page, problems } = await openModel(t);
  const { text } = await viewState(page);
  const { tokenIds: tokens } = model.tokenize(text);
  const forward = model.forward(tokens);
  const [layer, head] = [1, 2];
  await page.locator(`${view} button[data-control="open-head"][data-layer="${layer}"][data-head="${head}"]`).click();
  await waitForStepper(page);
  const state = await labState(page);
  assert.equal(state.step, 'softmax');
  assert.equal(state.heads, 1);
  assert.equal(state.causal, true);
  assert.ok(maxAbsDiff(state.X, forward.blocks[layer].norm1) <= TOLERANCE, 'X is the LayerNorm output');
  const weights = model.headWeights(layer, head);
  for (const name of ['Wq', 'Wk', 'Wv']) assert.ok(maxAbsDiff(state[name], weights[name]) <= TOLERANCE, name);
  const [softmax] = (await renderedResults(page)).filter((table) => table.matrix === 'softmax');
  const drawn = drawnDifference(softmax.values, forward.blocks[layer].attention[head]);
  assert.ok(drawn.diff <= TOLERANCE, `the stepper's softmax weights: ${drawn.diff} over ${drawn.cells} cells`);

  // The same head in the tokens view: its weights on the same text.
  const again = await openModel(t);
  await again.page.locator(`${view} button[data-control="open-tokens"][data-layer="${layer}"][data-head="${head}"]`).click();
  await waitForView(again.page, 'tokens');
  const thumbnail = await again.page.locator('attn-lab attn-tokens-view table[data-matrix="softmax"]').evaluate((table) => {
    const values = [];
    for (const cell of table.querySelectorAll('td[data-row][data-col]'))
      (values[Number(cell.dataset.row)] ??= [])[Number(cell.dataset.col)] = Number(cell.dataset.value);
    return values;
  });
  const inTokens = drawnDifference(thumbnail, forward.blocks[layer].attention[head]);
  assert.ok(inTokens.diff <= TOLERANCE, `the tokens view shows the head's weights: ${inTokens.diff} over ${inTokens.cells} cells`);
  assertClean(problems);
  assertClean(again.problems);
});

test('generation repeats the native sample of train-log.json for its seed, and goes on token by token', async (t) => {
  const { sample } = JSON.parse(await readFile('model/train-log.json', 'utf8'));
  const settings = { text: sample.prompt, temperature: sample.temperature, topK: sample.top_k, seed: sample.seed };
  const { page, problems } = await openModel(t, { ...settings, generated: sample.tokens.length });
  const prompt = model.tokenize(sample.prompt).tokenIds;
  assert.deepEqual(await shownTokens(page), [...prompt, ...sample.tokens]);

  // One more token by the button: the core's generate() for one more, from Node.
  await page.locator(`${view} [data-action="next-token"]`).click();
  await settle(page);
  const more = model.generate(prompt, { count: sample.tokens.length + 1, temperature: sample.temperature, topK: sample.top_k, seed: sample.seed });
  assert.deepEqual(more.slice(0, -1), sample.tokens);
  assert.deepEqual(await shownTokens(page), [...prompt, ...more]);
  assert.equal((await viewState(page)).generated, sample.tokens.length + 1);
  assertClean(problems);
});

test('a text the core refuses, or a bad temperature, gets a message naming it; the last good text stays', async (t) => {
  const { page, problems } = await openModel(t);
  const before = await shownTokens(page);
  const state = await viewState(page);
  const long = 'and the Union '.repeat(60); // far more tokens than the model's context
  await page.locator(`${view} textarea[data-control="text"]`).fill(long);
  await page.locator(`${view} textarea[data-control="text"]`).dispatchEvent('change');
  await settle(page);
  const message = await page.locator(`${view} [data-role="view-message"]`).textContent();
  assert.match(message, /128/, message);
  assert.match(message, /last good text stays/);
  assert.deepEqual(await shownTokens(page), before);
  assert.deepEqual(await viewState(page), state);

  await page.locator(`${view} input[data-control="temperature"]`).fill('-1');
  await page.locator(`${view} input[data-control="temperature"]`).dispatchEvent('change');
  await settle(page);
  assert.match(await page.locator(`${view} [data-role="view-message"]`).textContent(), /temperature/);
  assert.deepEqual(await viewState(page), state);
  assertClean(problems);
});

test('keyboard only: Tab reaches a head, Enter opens it in the stepper', async (t) => {
  const { page, problems } = await openModel(t);
  await page.locator(`${view} textarea[data-control="text"]`).focus();
  let reached = false;
  for (let i = 0; i < 40 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => {
      const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-model-view').shadowRoot;
      return root.activeElement?.dataset.control === 'open-head';
    });
  }
  assert.ok(reached, 'Tab reaches a head');
  await page.keyboard.press('Enter');
  await waitForStepper(page);
  assert.equal((await labState(page)).step, 'softmax');
  assertClean(problems);
});

test('at 390 px the view fits: nothing wider than the element', async (t) => {
  const { page, problems } = await openModel(t, {}, { viewport: { width: 390, height: 844 } });
  const overflow = await page.evaluate(() => {
    const lab = document.querySelector('attn-lab');
    const root = lab.shadowRoot.querySelector('attn-model-view').shadowRoot;
    const right = lab.getBoundingClientRect().right;
    return [...root.querySelectorAll('*')]
      .filter((e) => e.getBoundingClientRect().right > right + 1)
      .map((e) => e.tagName + (e.className ? `.${e.className}` : ''));
  });
  assert.deepEqual(overflow, []);
  assertClean(problems);
});

test("bring your own attention: a pasted or loaded import fills the grid; a bad one gets the core's message, the last good import stays", async (t) => {
  const { page, problems } = await openModel(t);
  const { tokenIds: tokens, pieces } = model.tokenize('Tonight I have the honor of reporting to you.');
  const { blocks } = model.forward(tokens);
  const json = { tokens: pieces, attentions: blocks.map((b) => [b.attention]) }; // [layer][batch][head][query][key]
  const expected = await lab.importAttention(json);
  const importer = `${view} attn-attention-import`;
  const paste = async (text) => {
    await page.locator(`${importer} textarea[data-control="import-text"]`).fill(text);
    await page.locator(`${importer} [data-action="import"]`).click();
    // The core's check is asynchronous (the model module may load first): wait for its verdict.
    await page.locator(importer).evaluate(async (element) => {
      while (element.hasAttribute('aria-busy')) await new Promise((done) => setTimeout(done, 10));
      await element.updateComplete;
    });
    await settle(page);
  };
  const imported = () =>
    page
      .locator(`${importer} [data-role="imported"] canvas[data-head]`)
      .evaluateAll((cs) => cs.map((c) => ({ layer: Number(c.dataset.layer), head: Number(c.dataset.head), weights: c.weights })));
  const message = () => page.locator(`${importer} [data-role="import-message"]`).textContent();

  await paste(JSON.stringify(json));
  await page.locator(`${importer} [data-role="imported"] canvas`).first().waitFor();
  const shown = await imported();
  assert.equal(shown.length, model.config.layers * model.config.heads);
  for (const { layer, head, weights } of shown)
    assert.ok(maxAbsDiff(weights, blocks[layer].attention[head]) <= TOLERANCE, `imported layer ${layer} head ${head}`);
  assert.deepEqual(
    await page.locator(`${importer} li[data-role-name]`).evaluateAll((items) => items.map((li) => li.dataset.roleName)),
    expected.scores.flat().map((s) => s.role),
  );
  assert.equal(await message(), '');

  // Not JSON; then a row that does not sum to 1: each named, the grid unchanged.
  await paste('{ "tokens": [');
  assert.match(await message(), /is not JSON/);
  const bad = structuredClone(json);
  bad.attentions[2][0][1][3][0] += 0.2;
  await paste(JSON.stringify(bad));
  assert.match(await message(), /layer 3, head 2, row 4 sums to 1\.2/);
  assert.match(await message(), /last good attention stays/);
  assert.deepEqual(await imported(), shown);

  // One layer from a file: [head][query][key].
  await page.locator(`${importer} input[data-control="import-file"]`).setInputFiles({
    name: 'layer.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify({ tokens: pieces, attention: blocks[1].attention })),
  });
  await page.waitForFunction(() => {
    const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-model-view').shadowRoot.querySelector('attn-attention-import').shadowRoot;
    return root.querySelectorAll('[data-role="imported"] canvas').length === 4;
  });
  const layer = await imported();
  layer.forEach(({ head, weights }) => assert.ok(maxAbsDiff(weights, blocks[1].attention[head]) <= TOLERANCE));
  assertClean(problems);
});
