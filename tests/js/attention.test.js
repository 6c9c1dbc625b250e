// lab.attention() on the tiny worked example and against the native golden cases.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab, fromGolden, goldenCases, maxAbsDiff } from './support/package.js';
import { tinyQKV } from '../support/tiny-example.js';

const lab = await attnlab.createAttnLab();

test('the tiny example (Q 2x2, K 3x2, V 3x2) matches the values worked by hand', () => {
  const r = lab.attention({
    ...tinyQKV(),
  });
  assert.deepEqual(r.scores, [
    [1, 1, 0],
    [0, 1, 1],
  ]);
  assert.ok(Math.abs(r.scale - 1 / Math.SQRT2) < 1e-7);
  // Each row has two scores of 1/√2 and one of 0: weights e/(2e+1) and 1/(2e+1).
  const e = Math.exp(1 / Math.SQRT2);
  const [big, small] = [e / (2 * e + 1), 1 / (2 * e + 1)];
  assert.ok(
    maxAbsDiff(r.weights, [
      [big, big, small],
      [small, big, big],
    ]) < 1e-6,
  );
  assert.ok(
    maxAbsDiff(r.output, [
      [big + small, 2 * big + small],
      [small + big, 3 * big],
    ]) < 1e-6,
  );
  assert.deepEqual(r.fullyMaskedRows, []);
});

test('attention() agrees with the native build on every single-head golden case', async () => {
  const direct = (await goldenCases()).filter((c) => c.request.Q && c.request.heads === 1 && c.request.positional === 'none');
  assert.ok(direct.length >= 5);
  for (const { name, request: traced, expected } of direct) {
    // A trace request; attention() takes its fields but these two, which are one head and no positions here.
    const { heads, positional, ...request } = traced;
    const r = lab.attention(request);
    const step = (id) => fromGolden(expected.steps.find((s) => s.id === id).values);
    assert.ok(maxAbsDiff(r.scores, step('scores')) <= 1e-5, name);
    assert.ok(maxAbsDiff(r.weights, step('softmax')) <= 1e-5, name);
    assert.ok(maxAbsDiff(r.output, step('aggregate')) <= 1e-5, name);
    assert.deepEqual(r.fullyMaskedRows, expected.fullyMaskedRows[0], name); // the trace lists them per head; one head here
  }
});

test('masked logits are -Infinity and fully masked rows are zeros, never NaN', () => {
  const r = lab.attention({
    Q: [
      [1, 2],
      [3, 4],
    ],
    K: [
      [1, 0],
      [0, 1],
    ],
    V: [
      [5, 6],
      [7, 8],
    ],
    mask: [
      [true, false],
      [false, false],
    ],
  });
  assert.equal(r.logits[0][1], -Infinity);
  assert.deepEqual(r.weights, [
    [1, 0],
    [0, 0],
  ]);
  assert.deepEqual(r.output, [
    [5, 6],
    [0, 0],
  ]);
  assert.deepEqual(r.fullyMaskedRows, [1]);
});

test('causal and key padding options reach the core', () => {
  const base = { Q: [[1], [1], [1]], K: [[1], [1], [1]], V: [[3], [6], [9]] };
  assert.deepEqual(
    lab.attention({ ...base, causal: true }).output.map((r) => r[0].toFixed(5)),
    ['3.00000', '4.50000', '6.00000'],
  );
  assert.deepEqual(lab.attention({ ...base, keyPadding: [false, true, true] }).output, [[3], [3], [3]]);
});
