// The backward stepper in Chromium: every backward step's rendered numbers (data-value cells)
// equal the trace the core computes from Node with the same dOutput (≤ 1e-6), grad-q/k/v
// equal lab.attentionBackward per head, "Check this gradient" shows a relative error ≤ 1e-4,
// the keyboard reaches the backward steps, axe is clean on grad-softmax, and screenshots of
// grad-softmax with its Jacobian at 1280 and 390 px.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { stateToTraceRequest } from '../support/state-request.js';
import { audit } from './support/axe.js';
import { assertStepMatches, encodeHash, maxAbsDiff, presetState, stepIds, TOLERANCE } from './support/expected.js';
import { assertClean, dataStep, goToStep, renderedResults, settle } from './support/lab-page.js';
import { SCREENSHOT_DIR, browserSession } from './support/session.js';

const session = browserSession('web/dist');
const lab = await createAttnLab();
await lab.loadLearning(); // the backward steps

// Two heads with W_O and tokens: every backward step but none missing (grad-wq … grad-x too).
const base = presetState('two-heads');
const forward = lab.trace(stateToTraceRequest(base));
const dOutput = forward.output.map((row, i) => row.map((_, j) => ((i + 2 * j) % 5) / 2 - 1));
const state = { ...base, backward: true, dOutput, step: 'grad-output' };
const trace = lab.trace({ ...stateToTraceRequest(state), dOutput });

// The page shows the forward steps until the learning module (the backward steps) is in.
async function openBackward(t, hash) {
  const opened = await session.open(t, hash);
  await opened.page.waitForFunction(() => document.querySelector('attn-lab').good?.trace.groups.some((g) => g.id === 'grad-output'));
  await settle(opened.page);
  return opened;
}
const backwardIds = stepIds(trace).filter((id) => id.startsWith('grad-'));

test('every backward step shows the core trace’s numbers', async (t) => {
  const { page, problems } = await openBackward(t, encodeHash(state));
  assert.ok(backwardIds.length >= 9, backwardIds.join(', '));
  for (const id of backwardIds) {
    await goToStep(page, id);
    await assertStepMatches(page, trace, id);
  }
  assertClean(problems);
});

test('grad-q, grad-k and grad-v on the page are lab.attentionBackward per head', async (t) => {
  const { page, problems } = await openBackward(t, encodeHash(state));
  const shown = {};
  for (const id of ['grad-q', 'grad-k', 'grad-v']) {
    await goToStep(page, id);
    shown[id] = (await renderedResults(page)).filter((table) => table.matrix === id).sort((a, b) => a.head - b.head);
  }
  const dConcat = trace.steps.find((s) => s.id === 'grad-concat').values;
  for (let head = 0; head < base.heads; head++) {
    const scores = trace.steps.find((s) => s.id === 'scores' && s.head === head);
    const V = trace.steps.find((s) => s.id === 'aggregate' && s.head === head).operands[1].values;
    const width = V[0].length;
    const dO = dConcat.map((row) => row.slice(head * width, (head + 1) * width));
    const g = lab.attentionBackward({ Q: scores.operands[0].values, K: scores.operands[1].values, V, dO, causal: base.causal, temperature: base.temperature });
    assert.ok(maxAbsDiff(shown['grad-q'][head].values, g.dQ) <= TOLERANCE);
    assert.ok(maxAbsDiff(shown['grad-k'][head].values, g.dK) <= TOLERANCE);
    assert.ok(maxAbsDiff(shown['grad-v'][head].values, g.dV) <= TOLERANCE);
  }
  assertClean(problems);
});

test('"Check this gradient" compares with central differences', async (t) => {
  const { page, problems } = await openBackward(t, encodeHash(state));
  for (const id of ['grad-q', 'grad-wq', 'grad-x']) {
    if (!backwardIds.includes(id)) continue;
    await goToStep(page, id);
    await page.locator('attn-lab [data-role="result"] td[data-row="1"][data-col="1"]').first().focus();
    await settle(page);
    await page.locator('attn-lab [data-action="check-gradient"]').first().click();
    await settle(page);
    const error = Number(await page.locator('attn-lab [data-role="relative-error"]').first().getAttribute('data-value'));
    assert.ok(Number.isFinite(error) && error <= 1e-4, `${id}: relative error ${error}`);
  }
  assertClean(problems);
});

test('the keyboard steps from the forward steps into the backward ones', async (t) => {
  const ids = stepIds(trace);
  const { page, problems } = await openBackward(t, encodeHash({ ...state, step: 'output-projection' }));
  await page.locator('attn-lab [data-goto="output-projection"]').focus();
  await page.keyboard.press('ArrowRight');
  await settle(page);
  assert.equal(await dataStep(page), ids[ids.indexOf('output-projection') + 1]);
  await page.keyboard.press('End');
  await settle(page);
  assert.equal(await dataStep(page), ids.at(-1));
  assert.equal(ids.at(-1), 'grad-x');
  assertClean(problems);
});

test('grad-softmax shows the Jacobian, is axe-clean, and is screenshotted at 1280 and 390 px', async (t) => {
  const { page, problems } = await openBackward(t, encodeHash({ ...state, step: 'grad-softmax' }));
  await settle(page);
  const jacobian = page.locator('attn-lab [data-role="jacobian"] table').first();
  assert.equal(await jacobian.count(), 1);
  assert.deepEqual(await audit(page), []);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await settle(page);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/stepper-grad-softmax-${width}.png`, fullPage: true });
  }
  assertClean(problems);
});

test('masked weights are hatched in the backward steps too, transposed with Aᵀ under ∂L/∂V', async (t) => {
  // The causal two-head example: the core's forward logits say which weights the mask blocked.
  const causalState = { ...state, causal: true };
  const causalTrace = lab.trace({ ...stateToTraceRequest(causalState), dOutput });
  const { page, problems } = await openBackward(t, encodeHash(causalState));
  for (const [id, transpose] of [
    ['grad-v', true],
    ['grad-softmax', false],
  ]) {
    await goToStep(page, id);
    const tables = await page.evaluate(() =>
      [...document.querySelector('attn-lab').shadowRoot.querySelectorAll('[data-role="operands"] table[data-matrix="softmax"]')].map((table) => ({
        head: Number(table.dataset.head || 0),
        cells: [...table.querySelectorAll('td[data-row]')].map((td) => [
          Number(td.dataset.row),
          Number(td.dataset.col),
          getComputedStyle(td).backgroundImage.includes('repeating-linear-gradient'),
        ]),
      })),
    );
    assert.equal(tables.length, base.heads, `${id}: one table of weights per head`);
    for (const { head, cells } of tables) {
      const logits = causalTrace.steps.find((s) => s.id === 'softmax' && s.head === head).operands[0].values;
      assert.ok(
        cells.some(([, , hatched]) => hatched),
        `${id} head ${head + 1}: some weights are masked`,
      );
      for (const [row, col, hatched] of cells) {
        const [query, key] = transpose ? [col, row] : [row, col];
        assert.equal(hatched, logits[query][key] === -Infinity, `${id} head ${head + 1}: the weight of query ${query + 1} on key ${key + 1}`);
      }
    }
  }
  assertClean(problems);
});
