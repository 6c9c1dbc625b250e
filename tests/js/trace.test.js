// The wasm package against golden values from the native build, step by step.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import katex from 'katex';

import { attnlab, fromGolden, goldenCases, maxAbsDiff } from './support/package.js';

const tolerance = 1e-5;
const lab = await attnlab.createAttnLab();
const cases = await goldenCases();

test('the golden file holds the expected cases', () => {
  assert.ok(cases.length >= 8, `only ${cases.length} golden cases`);
});

for (const { name, request, expected } of cases) {
  test(`trace matches the native build: ${name}`, () => {
    const trace = lab.trace(request);
    assert.deepEqual(
      trace.steps.map((s) => [s.id, s.head]),
      expected.steps.map((s) => [s.id, s.head]),
    );
    trace.steps.forEach((step, i) => {
      const want = fromGolden(expected.steps[i].values);
      assert.deepEqual(step.shape, [want.length, want[0].length], `${step.id} shape`);
      const diff = maxAbsDiff(step.values, want);
      assert.ok(diff <= tolerance, `${step.id}${step.head ?? ''}: max abs diff ${diff}`);
    });
    assert.deepEqual(trace.fullyMaskedRows, expected.fullyMaskedRows);
    assert.deepEqual(trace.output, trace.steps.at(-1).values);
  });
}

test('trace steps carry titles, TeX formulas and softmax parts', () => {
  const { request } = cases.find((c) => c.request.heads === 2);
  const trace = lab.trace(request);
  for (const step of trace.steps) {
    assert.ok(step.title.length > 0 && step.formula.length > 0, step.id);
  }
  const softmax = trace.steps.find((s) => s.id === 'softmax');
  assert.equal(softmax.head, 0);
  assert.equal(softmax.rowMax.length, softmax.shape[0]);
  softmax.values.forEach((row, r) => {
    row.forEach((w, c) => {
      assert.ok(Math.abs(w - softmax.exponentials[r][c] / softmax.rowSum[r]) < 1e-6);
    });
  });
});

test('every formula of every golden trace is valid TeX (KaTeX renders it strictly)', () => {
  for (const { name, request } of cases) {
    for (const step of lab.trace(request).steps) {
      assert.doesNotThrow(() => katex.renderToString(step.formula, { throwOnError: true }), `${name}: ${step.id} ${step.formula}`);
    }
  }
});

test('trace accepts flat Float32Array matrices and passes token labels through', () => {
  const nested = lab.trace({ Q: [[1, 0], [0, 1]], K: [[1, 0], [1, 1], [0, 1]], V: [[1, 0], [0, 2], [1, 1]] });
  const flat = lab.trace({
    Q: { rows: 2, cols: 2, data: new Float32Array([1, 0, 0, 1]) },
    K: { rows: 3, cols: 2, data: new Float32Array([1, 0, 1, 1, 0, 1]) },
    V: { rows: 3, cols: 2, data: [1, 0, 0, 2, 1, 1] },
    tokens: ['the', 'cat'],
  });
  assert.deepEqual(flat.output, nested.output);
  assert.deepEqual(flat.tokens, ['the', 'cat']);
});
