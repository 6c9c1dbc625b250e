// The variants view: each switch recomputes the tiny example's trace, and the step it changes
// shows the core's numbers (lab.trace called from Node with the same request, ≤ 1e-6); the KV
// cache walk's rows equal full causal attention's; the bytes table is lab.kvCacheBytes's.
// The parts for the attention the frameworks define (issue 26): softcap, the two causal
// alignments with fewer queries than keys, an additive bias with a −∞ cell, an asymmetric
// window, decoding that continues from a past cache; which keys a query may see is also
// checked against the alignment's rule written out here.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { QUESTIONS } from '../../web/element/shared/quiz-questions.js';
import { alignmentRequest, biasMatrix, DEFAULT_BIAS, decodeRequest, variantRequest } from '../../web/element/views/variants/example.js';
import { encodeHash, presetState } from './support/expected.js';
import { assertClean, labState, messageText, settle, viewTables } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const lab = await createAttnLab();
const VIEW = 'attn-lab attn-variants-view';
const DEFAULTS = {
  cross: false,
  causal: false,
  rope: false,
  alibi: false,
  window: 0,
  global: false,
  asymmetric: false,
  left: 2,
  right: 0,
  softcap: 0,
  bias: '',
  alignments: false,
  kvHeads: 4,
  dropout: 0,
  seed: 1,
  kvCache: false,
  past: 0,
  position: 5,
  head: 0,
  step: '',
};

const open = (t, viewState = {}, options) =>
  session.open(t, `index.html${encodeHash({ ...presetState('variants'), viewState })}`, { view: 'variants', ...options });

/** Every table of the view by data-matrix (and head), the step on view and the explanation. */
async function shown(page) {
  const tables = await viewTables(page, 'variants');
  return page.evaluate((tables) => {
    const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-variants-view').shadowRoot;
    const step = root.querySelector('[data-role="step"]');
    return {
      step: step.dataset.step,
      formula: step.querySelector('[data-role="formula"]').textContent,
      tables,
      explanation: root.querySelector('[data-role="explanation"]').textContent.trim(),
      bytes: Object.fromEntries(
        [...root.querySelectorAll('[data-role="kv-bytes"] tr[data-model]')].map((tr) => [
          tr.dataset.model,
          [...tr.querySelectorAll('[data-value]')].map((td) => Number(td.dataset.value)),
        ]),
      ),
    };
  }, tables);
}

const sameMatrix = (got, expected, what) => {
  assert.ok(got, `${what}: shown`);
  assert.equal(got.length, expected.length, `${what}: rows`);
  expected.forEach((row, i) =>
    row.forEach((v, j) =>
      v === -Infinity ? assert.equal(got[i][j], -Infinity, what) : assert.ok(Math.abs(got[i][j] - v) <= 1e-6, `${what} (${i}, ${j}): ${got[i][j]} vs ${v}`),
    ),
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
    const explanation = (await shown(page)).explanation;
    assert.match(explanation, /\d/);
    if (name === 'alibi') {
      // Query 2 against key 1: one position apart, as the core's own bias says (B = −m × 1).
      const slope = group.steps[0].slope;
      assert.ok(explanation.endsWith(`ALiBi’s −m × distance = −${Number(slope.toFixed(4))} × 1`), explanation);
    }
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

test("the KV cache: each generated token's row equals full causal attention's, and the cache grows by one row a token", async (t) => {
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
  assert.deepEqual(bytes['Llama 2 70B'], [
    lab.kvCacheBytes({ layers: 80, kvHeads: 8, headDim: 128, bytesPerValue: 2 }),
    lab.kvCacheBytes({ layers: 80, kvHeads: 64, headDim: 128, bytesPerValue: 2 }),
  ]);
  assert.equal(bytes['Llama 2 70B'][0], 2 * 80 * 8 * 128 * 2);
  assertClean(problems);
});

test('at 390 px the variants view fits the page width', async (t) => {
  const { page, problems } = await open(t, { rope: true, kvCache: true }, { viewport: { width: 390, height: 844 } });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
  assertClean(problems);
});

const stepOf = (trace, id, head) => trace.steps.find((s) => s.id === id && s.head === head);

/** Each head's tables of step `id` against the core's. */
function sameStep(view, trace, id) {
  const group = trace.groups.find((g) => g.id === id);
  assert.ok(group, `the core's trace has a ${id} step`);
  for (const step of group.steps) sameMatrix(view.tables[`${id}/${step.head}`], step.values, `${id}, head ${step.head}`);
}

test("softcap: its switch opens the softcap step with its formula, and the row before and after capping is the core's", async (t) => {
  const { page, problems } = await open(t);
  await page.locator(`${VIEW} [data-control="softcap"]`).selectOption('1');
  await settle(page);
  const view = await shown(page);
  assert.equal(view.step, 'softcap');
  assert.match(view.formula, /tanh/);
  const trace = lab.trace(variantRequest({ ...DEFAULTS, softcap: 1 }));
  sameStep(view, trace, 'softcap');
  // The row shown is the one holding the score farthest from 0, of any head.
  let widest = { size: -1 };
  for (const step of trace.steps.filter((s) => s.id === 'softcap')) {
    step.operands[0].values.forEach((row, r) => row.forEach((v) => Math.abs(v) > widest.size && (widest = { size: Math.abs(v), step, row: r })));
  }
  sameMatrix(view.tables['softcap-row'], [widest.step.operands[0].values[widest.row], widest.step.values[widest.row]], 'the row before and after');
  assert.ok(widest.size > 1 && view.tables['softcap-row'][1].every((v) => Math.abs(v) < 1), 'a score beyond c = 1 is capped below it');
  assert.match(await page.locator(`${VIEW} [data-role="softcap-row"]`).textContent(), /Gemma 2/);
  assertClean(problems);
});

test('the two causal alignments side by side: which keys each of the last 2 queries sees, and its weights', async (t) => {
  const { page, problems } = await open(t);
  await page.locator(`${VIEW} [data-control="alignments"]`).check();
  await settle(page);
  const view = await shown(page);
  const trace = lab.trace(variantRequest(DEFAULTS));
  const [nq, nk] = [2, 6];
  for (const [alignment, offset] of [
    ['top-left', 0],
    ['bottom-right', nk - nq],
  ]) {
    const got = lab.trace(alignmentRequest(DEFAULTS, trace, alignment));
    const mask = stepOf(got, 'mask', 0);
    sameMatrix(view.tables[`sees-${alignment}`], mask.blockedBy, `${alignment}: blockedBy`);
    sameMatrix(view.tables[`weights-${alignment}`], stepOf(got, 'softmax', 0).values, `${alignment}: weights`);
    // The rule: query i sits at key i + offset and sees keys j ≤ i + offset; blocked ones by the causal flag (1).
    for (let i = 0; i < nq; i++)
      for (let j = 0; j < nk; j++) assert.equal(view.tables[`sees-${alignment}`][i][j], j <= i + offset ? 0 : 1, `${alignment} (${i}, ${j})`);
  }
  assertClean(problems);
});

test('an additive bias: the bias step shows B and its sums, and a cell turned to −∞ blocks its key', async (t) => {
  const { page, problems } = await open(t);
  await page.locator(`${VIEW} [data-control="bias"]`).check();
  await settle(page);
  let view = await shown(page);
  assert.equal(view.step, 'bias');
  sameStep(view, lab.trace(variantRequest({ ...DEFAULTS, bias: DEFAULT_BIAS })), 'bias');
  // Cell (1, 2), “The” to “sat”: 0 → +1 → −1 → −∞ in three clicks.
  const cell = page.locator(`${VIEW} [data-bias-cell="2"]`);
  for (let click = 0; click < 3; click++) {
    await cell.click();
    await settle(page);
  }
  assert.equal(await cell.getAttribute('data-value'), '-Infinity');
  const code = (await labState(page)).viewState.bias;
  assert.equal(biasMatrix(code)[0][2], -Infinity);
  const trace = lab.trace(variantRequest({ ...DEFAULTS, bias: code }));
  view = await shown(page);
  sameStep(view, trace, 'bias');
  assert.equal(view.tables['bias/0'][0][2], -Infinity);
  assert.equal(stepOf(trace, 'mask', 0).blockedBy[0][2], 16, 'the core blocks it as a −∞ bias');
  await page.locator(`${VIEW} [data-goto="softmax"]`).click();
  await settle(page);
  view = await shown(page);
  sameStep(view, trace, 'softmax');
  for (let h = 0; h < 4; h++) assert.equal(view.tables[`softmax/${h}`][0][2], 0, `head ${h + 1}: its weight is 0`);
  assertClean(problems);
});

test("an asymmetric window { left: 1, right: 2 }: the mask step is the core's and keeps keys i − 1 … i + 2", async (t) => {
  const { page, problems } = await open(t, { window: 2 });
  await page.locator(`${VIEW} [data-control="asymmetric"]`).check();
  await settle(page);
  await page.locator(`${VIEW} [data-control="left"]`).selectOption('1');
  await settle(page);
  await page.locator(`${VIEW} [data-control="right"]`).selectOption('2');
  await settle(page);
  const view = await shown(page);
  assert.equal(view.step, 'mask');
  const trace = lab.trace(variantRequest({ ...DEFAULTS, window: 2, asymmetric: true, left: 1, right: 2 }));
  sameStep(view, trace, 'mask');
  const { allowed } = stepOf(trace, 'mask', 0);
  for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) assert.equal(Boolean(allowed[i][j]), j >= i - 1 && j <= i + 2, `(${i}, ${j})`);
  assert.match(await page.locator(`${VIEW} [data-variant="window"]`).textContent(), /left: 1, right: 2/);
  assertClean(problems);
});

test('decoding that continues from a cache of the first 3 tokens (softcap and a bias on) equals the last 3 rows of full causal attention', async (t) => {
  const state = { kvCache: true, kvHeads: 2, softcap: 2, bias: DEFAULT_BIAS };
  const { page, problems } = await open(t, state);
  await page.locator(`${VIEW} [data-control="past"]`).selectOption('3');
  await settle(page);
  const v = { ...DEFAULTS, ...state, past: 3 };
  const trace = lab.trace(variantRequest(v));
  const decode = lab.decode(decodeRequest(v, trace));
  assert.deepEqual(
    decode.steps.map((s) => s.position),
    [3, 4, 5],
  );
  const view = await shown(page);
  sameMatrix(view.tables['continued-output'], decode.output, 'decoded from the cache');
  sameMatrix(view.tables['continued-full'], trace.output.slice(3), 'full causal attention');
  sameMatrix(view.tables['continued-output'], trace.output.slice(3), "the cache's rows vs the full rows");
  sameMatrix(view.tables['decode-row'], decode.steps[2].output, 'the last token, from the cache');
  assert.equal(view.tables['decode-keys'].length, 6, 'the cache of 3 plus 3 new keys');
  // The walk starts at the first new token.
  for (let back = 0; back < 2; back++) {
    await page.locator(`${VIEW} [data-action="prev-token"]`).click();
    await settle(page);
  }
  assert.equal(await page.locator(`${VIEW} [data-action="prev-token"]`).isDisabled(), true);
  sameMatrix((await shown(page)).tables['decode-row'], decode.steps[0].output, 'token 4, the first after the cache');
  assertClean(problems);
});

test('the variants quiz asks about softcap, the alignments, a −∞ bias and decoding from a cache', async (t) => {
  const { page, problems } = await open(t);
  const ids = await page.locator(`${VIEW} attn-topic-quiz [data-question]`).evaluateAll((sets) => sets.map((s) => s.dataset.question));
  assert.deepEqual(
    ids,
    QUESTIONS.variants.map((q) => q.id),
  );
  for (const id of ['softcap-limit', 'alignment-generation', 'bias-minus-infinity', 'decode-from-cache']) assert.ok(ids.includes(id), id);
  assertClean(problems);
});

for (const [field, value, message] of [
  ['softcap', 3, /"softcap" must be 0 \(off\) or one of 0.5, 1, 2, 5/],
  ['bias', '+-0', /"bias" must be '' \(off\) or 36 characters/],
  ['left', 9, /"left" must be a whole number from 0 to 5/],
  ['past', 5, /"past" must be a whole number from 0 to 4/],
  ['alignments', 'yes', /"alignments" must be true or false/],
]) {
  test(`a bad ${field} is refused with a message, and the last good state stays`, async (t) => {
    const good = { softcap: 1, bias: DEFAULT_BIAS };
    const { page, problems } = await open(t, good);
    await page.evaluate((viewState) => document.querySelector('attn-lab').setState({ viewState }), { ...good, [field]: value });
    await settle(page);
    assert.match(await messageText(page), message);
    const { viewState } = await labState(page);
    assert.equal(viewState.softcap, 1);
    assert.equal(viewState.bias, DEFAULT_BIAS);
    const view = await shown(page);
    sameStep(view, lab.trace(variantRequest({ ...DEFAULTS, ...good })), view.step);
    assertClean(problems);
  });
}

test('at 390 px the new parts fit the page width', async (t) => {
  const everything = { softcap: 1, bias: DEFAULT_BIAS, window: 3, asymmetric: true, alignments: true, kvCache: true, past: 2, kvHeads: 2 };
  const { page, problems } = await open(t, everything, { viewport: { width: 390, height: 844 } });
  for (const role of ['softcap-row', 'alignments', 'bias-editor', 'continued-check'])
    assert.equal(await page.locator(`${VIEW} [data-role="${role}"]`).count(), 1, role);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
  assertClean(problems);
});

test("cross-attention turns the alignments and the bias off: they are drawn for the six tokens' self-attention", async (t) => {
  const { page, problems } = await open(t, { alignments: true, bias: DEFAULT_BIAS });
  await page.locator(`${VIEW} [data-control="cross"]`).check();
  await settle(page);
  for (const role of ['alignments', 'bias-editor']) assert.equal(await page.locator(`${VIEW} [data-role="${role}"]`).count(), 0, role);
  assert.equal(await page.locator(`${VIEW} [data-control="alignments"]`).isDisabled(), true);
  sameStep(await shown(page), lab.trace(variantRequest({ ...DEFAULTS, cross: true, alignments: true, bias: DEFAULT_BIAS })), 'scores');
  assert.ok(!(await messageText(page)), 'no message');
  assertClean(problems);
});

test('with RoPE on, the KV cache decodes from the first token: the core takes no past cache with RoPE', async (t) => {
  const { page, problems } = await open(t, { kvCache: true, past: 3, rope: true });
  assert.equal(await page.locator(`${VIEW} [data-control="past"]`).isDisabled(), true);
  assert.equal(await page.locator(`${VIEW} [data-role="continued-check"]`).count(), 0);
  const request = variantRequest({ ...DEFAULTS, kvCache: true, rope: true });
  const view = await shown(page);
  assert.equal(view.tables['decode-keys'].length, 6);
  sameMatrix(view.tables['decode-row'], lab.decode(request).steps[5].output, 'the last token, decoded from the first');
  assert.ok(!(await messageText(page)), 'no message');
  assertClean(problems);
});
