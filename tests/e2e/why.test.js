// The "why" of each step ([data-role="why"]): every step says what it does and why, and
// quotes the numbers of the trace on view; they follow an edit. The expected numbers come
// from the core called in Node (the built package), formatted here as the page formats them.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { encodeHash, expectedTrace, presetState } from './support/expected.js';
import { goToStep, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');

// As the page writes a number: at most 4 decimals, a typographic minus.
const shown = (v) => String(Number(v.toFixed(4)) || 0).replaceAll('-', '−');

const whyText = (page) =>
  page.evaluate(() => {
    const why = document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="why"]');
    return {
      all: why?.textContent.replace(/\s+/g, ' ').trim() ?? '',
      live: why?.querySelector('[data-role="why-live"]')?.textContent.replace(/\s+/g, ' ').trim() ?? '',
    };
  });

// Positions, two heads, a causal mask with a padded key and W_O: every step there is.
const state = {
  ...presetState('two-heads'),
  positional: 'sinusoidal',
  causal: true,
  keyPadding: [false, false, false, true],
  temperature: 0.5,
  step: 'encoding',
};

test('every step has a why paragraph quoting its live numbers', async (t) => {
  const trace = expectedTrace(state);
  const { page } = await session.open(t, encodeHash(state));
  for (const { id, steps } of trace.groups) {
    await goToStep(page, id);
    const { all, live } = await whyText(page);
    assert.ok(all.length > 80, `${id}: a paragraph, got "${all}"`);
    assert.doesNotMatch(all, /NaN|undefined|d_k/, `${id}: ${all}`);
    assert.ok(live.length > 0, `${id}: live numbers`);
    const [first] = steps;
    // Which numbers each step quotes, read off the core's trace.
    const quoted = {
      encoding: () => [first.values[1][0], first.values[1][1]],
      positional: () => [first.values[0][0]],
      'project-q': () => [first.values[0][0]],
      'project-k': () => [first.values[0][0]],
      'project-v': () => [first.values[0][0]],
      scores: () => first.values[0].filter(Number.isFinite),
      scale: () => [1 / first.scale, first.temperature],
      softmax: () => {
        // The row with the most unmasked keys (the first of equals): the causal mask leaves row 1 one key.
        const open = first.operands[0].values.map((row) => row.filter(Number.isFinite).length);
        const r = open.indexOf(Math.max(...open));
        return [first.rowMax[r], first.rowSum[r], ...first.values[r]];
      },
      aggregate: () => {
        // The row that mixes the most values (the most nonzero weights; the first of equals).
        const mixes = first.operands[0].values.map((row) => row.filter((w) => w !== 0).length);
        return first.values[mixes.indexOf(Math.max(...mixes))].slice(0, 2);
      },
      'output-projection': () => [first.values[0][0]],
    }[id]?.();
    for (const value of quoted ?? []) assert.ok(live.includes(shown(value)), `${id}: "${live}" quotes ${shown(value)}`);
  }
});

test('the mask step counts the cells each rule blocks, as the rules say', async (t) => {
  const { page } = await session.open(t, encodeHash({ ...state, step: 'mask' }));
  const { live } = await whyText(page);
  // 4 tokens: causal blocks the 6 cells above the diagonal; padding key 4 blocks its column (4 cells).
  assert.match(live, /^Head 1: 7 of the 16 cells are blocked, 6 by the causal mask[^;]*; 4 by padding/, live);
});

test('the live numbers follow an edit of the temperature', async (t) => {
  const { page } = await session.open(t, encodeHash({ ...state, step: 'softmax' }));
  const before = (await whyText(page)).live;
  await page.evaluate(() => document.querySelector('attn-lab').setState({ temperature: 2 }));
  await settle(page);
  const after = (await whyText(page)).live;
  const want = expectedTrace({ ...state, temperature: 2 }).steps.find((s) => s.id === 'softmax');
  assert.notEqual(after, before);
  for (const value of want.values[0]) assert.ok(after.includes(shown(value)), `"${after}" quotes ${shown(value)}`);
});

test('while predict hides the result, the why keeps its idea and holds back the numbers', async (t) => {
  const { page } = await session.open(t, encodeHash({ ...state, step: 'softmax' }));
  assert.notEqual((await whyText(page)).live, '');
  await page.evaluate(() => document.querySelector('attn-lab').setState({ predict: true }));
  await settle(page);
  const { all, live } = await whyText(page);
  assert.match(all, /Softmax turns each row/);
  assert.equal(live, '');
});
