// The stepper's step registry (web/element/steps/registry.js, steps.js) against the core:
// one entry per step id the core emits, and each entry able to label, explain and export
// every cell of a real trace. A unit test of those two modules, with the built package as
// the source of the traces.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

import { createAttnLab, STEP_IDS } from '../../dist/attnlab.js';
import { numpyCode } from '../../web/element/steps/export.js';
import { stepPanels, tokenLabels } from '../../web/element/steps/panels.js';
import { axesOf, stepEntries, stepEntry } from '../../web/element/steps/registry.js';

const lab = await createAttnLab();
await lab.loadLearning(); // the backward steps

const X = [
  [1, 0, 0.5, -1],
  [0, 1, -0.5, 2],
  [1, 1, 0, 0.25],
];
const W = [
  [0.5, -1, 0, 1],
  [1, 0.5, -0.5, 0],
  [0, 1, 1, -1],
  [-1, 0, 0.5, 0.5],
];
// Positions, two heads, a causal mask with a padded key, and W_O: every step id but the
// variants'.
const BASE_REQUEST = {
  X,
  Wq: W,
  Wk: W.map((row) => row.map((v) => -v)),
  Wv: W,
  Wo: W,
  heads: 2,
  causal: true,
  keyPadding: [false, false, true],
  positional: 'sinusoidal',
  temperature: 2,
};
// With the variants that have steps (RoPE, ALiBi, dropout) and a window: every step id.
const REQUEST = { ...BASE_REQUEST, rope: true, softcap: 4, alibi: true, dropout: 0.5, dropoutSeed: 3, window: 2 };
// The same inputs as an element state (web/element/state.js's schema), for the labels and the export.
const STATE = {
  mode: 'x',
  X,
  Wq: REQUEST.Wq,
  Wk: REQUEST.Wk,
  Wv: W,
  Wo: W,
  tokens: ['the', 'cat', 'sat'],
  heads: 2,
  causal: true,
  keyPadding: [false, false, true],
  mask: null,
  scale: true,
  temperature: 2,
  positional: 'sinusoidal',
};

test('the registry has one entry per step id of the core, in the core order', () => {
  assert.deepEqual(
    stepEntries().map((entry) => entry.id),
    STEP_IDS,
  );
});

test('every step of a real trace is labelled and every cell explained with its value', () => {
  const dOutput = lab.trace(BASE_REQUEST).output.map((row, i) => row.map((_, j) => ((i + j) % 3) - 1)); // the backward steps too
  // The variants' steps, and the backward steps (which refuse the variants).
  const traces = [lab.trace(REQUEST), lab.trace({ ...BASE_REQUEST, dOutput })];
  // The families' steps: linear attention (two heads, causal) and retention.
  const { X: x, Wq, Wk, Wv, Wo } = BASE_REQUEST;
  traces.push(lab.trace({ X: x, Wq, Wk, Wv, Wo, heads: 2, causal: true, family: 'linear' }), lab.trace({ X: x, Wq, Wk, Wv, family: 'retention', decay: 0.5 }));
  const labels = tokenLabels(STATE);
  const seen = new Set();
  for (const trace of traces)
    for (const { id } of trace.groups) {
      seen.add(id);
      const panels = stepPanels(trace, id, labels);
      assert.equal(panels.length, trace.steps.filter((s) => s.id === id).length, `${id}: a panel per head`);
      for (const panel of panels) {
        assert.equal(panel.rowLabels.length, panel.step.shape[0], `${id}: row labels`);
        assert.equal(panel.colLabels.length, panel.step.shape[1], `${id}: column labels`);
        for (const operand of panel.operands) {
          assert.ok(axesOf(operand.name), `${id}: operand ${operand.name} has known axes`);
          assert.equal(operand.rowLabels.length, operand.values.length, `${id}: ${operand.name} row labels`);
        }
        panel.step.values.forEach((row, r) =>
          row.forEach((value, c) => {
            const { text, highlight } = stepEntry(id).explain({ panel, row: r, col: c, value, labels });
            assert.ok(typeof text === 'string' && text.length > 0, `${id} (${r}, ${c}): an explanation`);
            assert.doesNotMatch(text, /NaN|undefined/, `${id} (${r}, ${c}): ${text}`);
            assert.ok(highlight.length <= panel.operands.length, `${id}: highlight per operand`);
          }),
        );
      }
    }
  // Every step (each trace's own order is lists.test.js's).
  assert.deepEqual(
    [...seen].sort((a, b) => STEP_IDS.indexOf(a) - STEP_IDS.indexOf(b)),
    STEP_IDS,
    'these traces have every step',
  );
});

test('the mask explanation gives the reason the core blocked a cell', () => {
  const trace = lab.trace(REQUEST);
  const labels = tokenLabels(STATE);
  const [panel] = stepPanels(trace, 'mask', labels);
  const explain = (r, c) => stepEntry('mask').explain({ panel, row: r, col: c, value: panel.step.values[r][c], labels }).text;
  // Written from the rules, not from the core's flags: key j > i is in the future; key 2 is padding.
  assert.match(explain(0, 1), /key cat comes after this query \(causal mask\)/);
  assert.match(explain(2, 2), /key sat is padding/);
  assert.match(explain(1, 0), /^kept: /);
});

test('the scale explanation writes the factor the core applied: √d_k and the temperature', () => {
  const trace = lab.trace(REQUEST);
  const labels = tokenLabels(STATE);
  const [panel] = stepPanels(trace, 'scale', labels);
  const { text } = stepEntry('scale').explain({ panel, row: 0, col: 0, value: panel.step.values[0][0], labels });
  assert.match(text, /\/ \(√2 · 2\)/, text); // d_k = 4 columns / 2 heads
});

// Numbers as NumPy prints them, masked entries (-inf) included, without the "head 1:" lines.
const numbers = (text) =>
  [...text.replace(/^head \d+:$/gm, '').matchAll(/-?inf|-?\d+(\.\d+)?(e[-+]?\d+)?/gi)].map(([t]) => (/inf/i.test(t) ? -Infinity : Number(t)));

// The export is written from the trace alone (export-random.test.js runs it on random states of every option).
test("the NumPy export of every step runs and prints the core's numbers", () => {
  const trace = lab.trace(BASE_REQUEST);
  for (const { id, steps } of trace.groups) {
    const printed = execFileSync('/usr/bin/python3', ['-c', numpyCode(trace, id)], { encoding: 'utf8' });
    const got = numbers(printed);
    const want = steps.flatMap((step) => step.values.flat());
    assert.equal(got.length, want.length, `${id}: ${printed}`);
    got.forEach((v, i) => assert.ok(v === want[i] || Math.abs(v - want[i]) <= 1e-4 * Math.max(1, Math.abs(want[i])), `${id} value ${i}: ${v} vs ${want[i]}`));
  }
});

// The export of the softcap and bias steps (and of every step after them): a given bias with a
// −∞ cell, one for all heads or one per head, with and without ALiBi, under a softcap.
const BIAS = [
  [0.5, -1, 0],
  [-Infinity, 0.25, 2],
  [1, 0, -0.5],
];
for (const [what, variants] of [
  ['a softcap and a bias for all heads', { softcap: 0.75, bias: BIAS }],
  ['a bias per head with ALiBi', { alibi: true, bias: [...BIAS, ...BIAS.map((row) => row.map((v) => (v === -Infinity ? 0 : -v)))] }],
  ['a softcap with ALiBi', { softcap: 3, alibi: true }],
]) {
  test(`the NumPy export with ${what} runs and prints the core's numbers`, () => {
    const trace = lab.trace({ ...BASE_REQUEST, ...variants });
    const ids = trace.groups.map((g) => g.id);
    for (const id of ['softcap', 'bias', 'mask', 'softmax', 'aggregate']) {
      if (id === 'softcap' && !variants.softcap) continue;
      assert.ok(ids.includes(id), `${what}: the trace has ${id}`);
      const printed = execFileSync('/usr/bin/python3', ['-c', numpyCode(trace, id)], { encoding: 'utf8' });
      const got = numbers(printed);
      const want = trace.groups.find((g) => g.id === id).steps.flatMap((step) => step.values.flat());
      assert.equal(got.length, want.length, `${id}: ${printed}`);
      got.forEach((v, i) =>
        assert.ok(v === want[i] || Math.abs(v - want[i]) <= 1e-4 * Math.max(1, Math.abs(want[i])), `${what}, ${id} value ${i}: ${v} vs ${want[i]}`),
      );
    }
  });
}
