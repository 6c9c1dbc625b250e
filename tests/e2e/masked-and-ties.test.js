// Rows with every key masked are labelled where they show, under an exact heading; predict
// never asks "which key is largest?" of a row where several keys tie, and puts its questions
// below the matrices they are about.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { encodeHash, expectedTrace, presetState } from './support/expected.js';
import { goToStep, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');

const inLab = (page, fn, arg) =>
  page.evaluate(([source, a]) => new Function('root', 'arg', source)(document.querySelector('attn-lab').shadowRoot, a), [fn, arg]);

// Causal, and key 1 is padding: query 1 may attend only to key 1, which is padding.
const masked = { ...presetState('causal'), keyPadding: [true, false, false, false, false, false], step: 'softmax' };

test('a fully masked row is labelled at the mask, softmax and aggregate steps, and the heading is exact', async (t) => {
  const trace = expectedTrace(masked);
  assert.deepEqual(trace.fullyMaskedRows, [[0]], 'the core reports row 1 (one head)');
  const { page } = await session.open(t, encodeHash(masked));
  for (const id of ['mask', 'softmax', 'aggregate']) {
    await goToStep(page, id);
    const note = await inLab(page, "return root.querySelector('[data-role=\"masked-rows\"]')?.textContent.replace(/\\s+/g, ' ').trim() ?? ''");
    const first = masked.tokens[0];
    assert.match(note, new RegExp(`Every key is masked for row “${first}”.*zeros \\(Σ = 0, not 1\\)`), `${id}: ${note}`);
  }
  await goToStep(page, 'softmax');
  const heading = await inLab(page, 'return root.querySelector(\'[data-role="step"] h2\').textContent');
  assert.match(heading, /every key masked is defined as zeros/);
  await goToStep(page, 'scores');
  assert.equal(await inLab(page, 'return root.querySelectorAll(\'[data-role="masked-rows"]\').length'), 0, 'no note where rows are not weights');
});

test('without masked rows there is no note and the heading says every row sums to 1', async (t) => {
  const { page } = await session.open(t, encodeHash({ ...presetState('causal'), step: 'softmax' }));
  assert.equal(await inLab(page, 'return root.querySelectorAll(\'[data-role="masked-rows"]\').length'), 0);
  assert.equal(await inLab(page, 'return root.querySelector(\'[data-role="step"] h2\').textContent.trim()'), 'Softmax: each row becomes weights that sum to 1');
});

const questions = (page) =>
  inLab(page, 'return [...root.querySelectorAll(\'[data-role="predict"] fieldset\')].map((f) => ({ kind: f.dataset.question, row: f.dataset.row }))');

test('predict does not ask which key is largest when every row ties', async (t) => {
  // The uniform preset: every score is 0, so every key ties in every row.
  const { page } = await session.open(t, encodeHash({ ...presetState('uniform'), step: 'softmax' }));
  await page.evaluate(() => document.querySelector('attn-lab').setState({ predict: true }));
  await settle(page);
  assert.deepEqual(await questions(page), [{ kind: 'shape', row: undefined }]);
});

test('predict asks of the first row with one largest key, and below the matrices it needs', async (t) => {
  // q₁ scores k₁ and k₂ the same (a tie); q₂ prefers k₃ alone.
  const state = {
    ...presetState('tiny'),
    K: [
      [1, 0],
      [1, 0],
      [0, 2],
    ],
    step: 'scores',
  };
  const trace = expectedTrace(state);
  const scores = trace.steps.find((s) => s.id === 'scores').values;
  // The first row whose maximum is reached once, found here from the core's numbers.
  const want = scores.findIndex((row) => row.filter((v) => v === Math.max(...row)).length === 1);
  assert.equal(want, 1, 'the case is what it says');
  const { page } = await session.open(t, encodeHash(state));
  await page.evaluate(() => document.querySelector('attn-lab').setState({ predict: true }));
  await settle(page);
  const asked = (await questions(page)).find((q) => q.kind === 'largest');
  assert.equal(Number(asked?.row), want);
  // The operands come first in the step, then the question.
  const order = await inLab(
    page,
    `
    const step = root.querySelector('[data-role="step"]');
    const operands = step.querySelector('[data-role="operands"]');
    const form = step.querySelector('[data-role="predict"]');
    return Boolean(operands.compareDocumentPosition(form) & Node.DOCUMENT_POSITION_FOLLOWING);`,
  );
  assert.equal(order, true, 'the question follows the matrices it is about');
});
