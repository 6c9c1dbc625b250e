// The trace's backward steps through the wasm package: grad-q/k/v equal lab.attentionBackward
// per head (≤ 1e-6), grad-softmax's Jacobian is diag(a) − aaᵀ of the weights the trace shows,
// checkGradient agrees with its finite differences (≤ 1e-4) and with the step's own entry, and
// the errors are AttnLabErrors naming the field.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab } from './support/package.js';
import { maxAbsDiff } from '../support/compare.js';
import { seededRows } from './support/seeded-rows.js';

const lab = await attnlab.createAttnLab();

// Tokens X (4, 4) and the projections at half the spread (W_O: 4 → 2), seeded.
const request = {
  X: seededRows(lab, 4, 4, 1),
  Wq: seededRows(lab, 4, 4, 2, 0.5),
  Wk: seededRows(lab, 4, 4, 3, 0.5),
  Wv: seededRows(lab, 4, 4, 4, 0.5),
  Wo: seededRows(lab, 4, 2, 5, 0.5),
  heads: 2,
  causal: true,
  temperature: 1.5,
  positional: 'sinusoidal',
  dOutput: seededRows(lab, 4, 2, 6),
};

const columns = (m, first, count) => m.map((row) => row.slice(first, first + count));
const stepOf = (t, id, head) => t.steps.find((s) => s.id === id && s.head === head);

test('before loadLearning(), a request with dOutput (and checkGradient) is refused, saying how to load it', async () => {
  const refusal = /load it once with await lab\.loadLearning\(\)/;
  assert.throws(
    () => lab.trace(request),
    (e) => e.name === 'AttnLabError' && e.code === 'invalid-argument' && /^dOutput: /.test(e.message) && refusal.test(e.message),
  );
  assert.throws(
    () => lab.checkGradient(request, { parameter: 'X', row: 0, col: 0 }),
    (e) => refusal.test(e.message),
  );
  const { dOutput, ...forward } = request;
  assert.ok(lab.trace(forward).steps.length > 0, 'the forward steps need no learning module');
  await lab.loadLearning();
  await lab.loadLearning(); // a second call loads nothing more
  assert.ok(lab.trace(request).steps.some((s) => s.id === 'grad-x'));
});

test('the backward steps refuse a variant they do not follow, naming it', () => {
  assert.throws(
    () => lab.trace({ ...request, rope: true }),
    (e) => e.code === 'invalid-argument' && /RoPE/.test(e.message),
  );
});

test('the backward steps follow the forward ones, in STEP_IDS order', () => {
  const t = lab.trace(request);
  const forward = lab.trace({ ...request, dOutput: undefined });
  assert.deepEqual(
    t.steps.slice(0, forward.steps.length).map((s) => s.values),
    forward.steps.map((s) => s.values),
  );
  assert.deepEqual(
    t.groups.map((g) => g.id).filter((id) => id.startsWith('grad-')),
    attnlab.STEP_IDS.filter((id) => id.startsWith('grad-')),
  );
  assert.deepEqual(
    stepOf(t, 'grad-output').values,
    request.dOutput.map((row) => row.map(Math.fround)),
  );
});

test('grad-q, grad-k and grad-v are lab.attentionBackward per head', () => {
  const t = lab.trace(request);
  const dConcat = stepOf(t, 'grad-concat').values;
  for (const head of [0, 1]) {
    const slice = (id) => stepOf(t, 'scores', head).operands[id === 'Q' ? 0 : 1].values;
    const V = stepOf(t, 'aggregate', head).operands[1].values;
    const g = lab.attentionBackward({ Q: slice('Q'), K: slice('K'), V, dO: columns(dConcat, 2 * head, 2), causal: true, temperature: 1.5 });
    assert.ok(maxAbsDiff(stepOf(t, 'grad-q', head).values, g.dQ) <= 1e-6);
    assert.ok(maxAbsDiff(stepOf(t, 'grad-k', head).values, g.dK) <= 1e-6);
    assert.ok(maxAbsDiff(stepOf(t, 'grad-v', head).values, g.dV) <= 1e-6);
  }
});

test("grad-softmax carries diag(a) − aaᵀ of a chosen row's weights", () => {
  const t = lab.trace({ ...request, jacobianRow: 2 });
  const step = stepOf(t, 'grad-softmax', 1);
  assert.deepEqual(step.jacobianRows, [2]);
  const a = stepOf(t, 'softmax', 1).values[2];
  const expected = a.map((x, j) => a.map((y, k) => (j === k ? x : 0) - x * y));
  assert.ok(maxAbsDiff(step.jacobians[0], expected) <= 1e-7);
  assert.equal(step.rowDot.length, 4);
  assert.equal(stepOf(lab.trace(request), 'grad-softmax', 0).jacobians.length, 4); // every row when small
});

test('checkGradient agrees with central differences and with the trace', () => {
  const t = lab.trace(request);
  const cases = [
    ['X', 'grad-x'],
    ['Wq', 'grad-wq'],
    ['Wk', 'grad-wk'],
    ['Wv', 'grad-wv'],
    ['Wo', 'grad-wo'],
  ];
  for (const [parameter, id] of cases) {
    const c = lab.checkGradient(request, { parameter, row: 1, col: 1 });
    assert.ok(c.relativeError <= 1e-4, `${parameter}: ${JSON.stringify(c)}`);
    assert.equal(c.analytic, stepOf(t, id).values[1][1]);
    assert.ok(c.epsilon > 0 && Math.abs(c.analytic - c.numeric) <= 1e-4 * Math.max(1, Math.abs(c.numeric)));
  }
  const q = lab.checkGradient(request, { parameter: 'Q', row: 3, col: 3 }); // head 1, its column 1
  assert.equal(q.analytic, stepOf(t, 'grad-q', 1).values[3][1]);
  assert.ok(q.relativeError <= 1e-4);
});

test('backward errors are AttnLabErrors naming the field', () => {
  const refused = (call, code, pattern) => {
    assert.throws(call, (e) => e instanceof attnlab.AttnLabError && e.code === code && pattern.test(e.message));
  };
  refused(() => lab.trace({ ...request, dOutput: [[1, 2, 3]] }), 'shape-mismatch', /^dOutput \(1×3\)/);
  refused(() => lab.trace({ ...request, dOutput: request.dOutput.map((r) => r.map(() => NaN)) }), 'non-finite', /dOutput/);
  refused(() => lab.trace({ ...request, jacobianRow: 4 }), 'invalid-argument', /^jacobianRow must be a whole number from 0 to 3/);
  refused(() => lab.trace({ ...request, dOuptut: request.dOutput }), 'invalid-argument', /did you mean dOutput\?/);
  refused(
    () => lab.checkGradient(request, { parameter: 'W', row: 0, col: 0 }),
    'invalid-argument',
    /^parameter must be one of X, Q, K, V, Wq, Wk, Wv, Wo, got "W"/,
  );
  refused(
    () => lab.checkGradient(request, { parameter: 'Wq', row: 9, col: 0 }),
    'invalid-argument',
    /^row must be a whole number from 0 to 3 \(Wq is 4×4\), got 9/,
  );
  refused(() => lab.checkGradient(request, { parameter: 'Wq', row: 0, col: -1 }), 'invalid-argument', /^col must be a whole number/);
  refused(() => lab.checkGradient(request, { parameter: 'Wq', row: 0 }), 'invalid-argument', /^col is missing/);
  refused(() => lab.checkGradient({ ...request, dOutput: undefined }, { parameter: 'Wq', row: 0, col: 0 }), 'invalid-argument', /^dOutput is missing/);
  refused(() => lab.checkGradient(request, { parameter: 'Wq', row: 0, col: 0, head: 1 }), 'invalid-argument', /head/);
});
