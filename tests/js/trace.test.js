// The wasm package against golden values from the native build, step by step.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import katex from 'katex';

import { attnlab, fromGolden, goldenCases, maxAbsDiff } from './support/package.js';
import { product } from '../support/float64-efficient.js';
import { tinyQKV } from '../support/tiny-example.js';

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
  const nested = lab.trace({
    ...tinyQKV(),
  });
  const flat = lab.trace({
    Q: { rows: 2, cols: 2, data: new Float32Array([1, 0, 0, 1]) },
    K: { rows: 3, cols: 2, data: new Float32Array([1, 0, 1, 1, 0, 1]) },
    V: { rows: 3, cols: 2, data: [1, 0, 0, 2, 1, 1] },
    tokens: ['the', 'cat'],
  });
  assert.deepEqual(flat.output, nested.output);
  assert.deepEqual(flat.tokens, ['the', 'cat']);
});

// ---- The trace carries what the screen needs: operands, groups, scale factors, mask cells ----

const tokensRequest = (heads, extra = {}) => {
  const n = 4,
    dModel = 5,
    dk = 2,
    dv = 3;
  const m = (rows, cols, seed) => lab.normalMatrix({ rows, cols, seed });
  return {
    X: m(n, dModel, 1),
    Wq: m(dModel, heads * dk, 2),
    Wk: m(dModel, heads * dk, 3),
    Wv: m(dModel, heads * dv, 4),
    Wo: m(heads * dv, 3, 5),
    heads,
    ...extra,
  };
};

// Columns [first, first + count) of a number[][] — computed here, not by the package.
const columns = (rows, first, count) => rows.map((row) => row.slice(first, first + count));
// X · W in float64.
const nested = ({ rows, cols, data }) => Array.from({ length: rows }, (_, r) => Array.from(data.subarray(r * cols, (r + 1) * cols)));

test('titles carry no head suffix; the head is a field', () => {
  const t = lab.trace(tokensRequest(2, { causal: true }));
  for (const step of t.steps) assert.doesNotMatch(step.title, /\(head/, step.title);
  const scores = t.steps.filter((s) => s.id === 'scores');
  assert.deepEqual(
    scores.map((s) => s.head),
    [0, 1],
  );
  assert.equal(scores[0].title, scores[1].title);
});

test('groups: one per step id in order, holding the very step objects', () => {
  for (const heads of [1, 3]) {
    const t = lab.trace(tokensRequest(heads, { causal: true, positional: 'sinusoidal' }));
    const ids = [...new Set(t.steps.map((s) => s.id))];
    assert.deepEqual(
      t.groups.map((g) => g.id),
      ids,
    );
    for (const group of t.groups) {
      const members = t.steps.filter((s) => s.id === group.id);
      assert.equal(group.steps.length, members.length);
      group.steps.forEach((step, i) => assert.equal(step, members[i], `${group.id} entry ${i} is the same object`));
      assert.ok(group.steps.every((s) => s.title === group.title));
      if (heads > 1 && group.id === 'softmax')
        assert.deepEqual(
          group.steps.map((s) => s.head),
          [0, 1, 2],
        );
    }
  }
});

test('operands: names, symbols, heads and shapes per step', () => {
  const t = lab.trace(tokensRequest(2, { causal: true, positional: 'sinusoidal' }));
  const summary = (step) => step.operands.map((o) => [o.name, o.symbol, o.head, o.shape].join(' '));
  const first = (id) => t.steps.find((s) => s.id === id);
  assert.deepEqual(summary(first('encoding')), []);
  assert.deepEqual(summary(first('positional')), ['X X  4,5', 'encoding PE  4,5']);
  assert.deepEqual(summary(first('project-q')), ['positional X + PE  4,5', 'Wq W_Q  5,4']);
  assert.deepEqual(summary(first('project-v')), ['positional X + PE  4,5', 'Wv W_V  5,6']);
  const scores1 = t.steps.filter((s) => s.id === 'scores')[1];
  assert.deepEqual(summary(scores1), ['project-q Q 1 4,2', 'project-k K 1 4,2']);
  assert.deepEqual(summary(first('scale')), ['scores S 0 4,4']);
  assert.deepEqual(summary(first('mask')), ['scale S̃ 0 4,4']);
  assert.deepEqual(summary(first('softmax')), ['mask S̃ 0 4,4']);
  assert.deepEqual(summary(first('aggregate')), ['softmax A 0 4,4', 'project-v V 0 4,3']);
  assert.deepEqual(summary(first('concat')), ['aggregate O 0 4,3', 'aggregate O 1 4,3']);
  assert.deepEqual(summary(first('output-projection')), ['concat C  4,6', 'Wo W_O  6,3']);

  const one = lab.trace({
    Q: [[1, 0]],
    K: [
      [1, 0],
      [0, 1],
    ],
    V: [[1], [2]],
    Wo: [[2]],
  });
  const get = (id) => one.steps.find((s) => s.id === id);
  assert.deepEqual(summary(get('scores')), ['Q Q  1,2', 'K K  2,2']);
  assert.deepEqual(summary(get('softmax')), ['scale S̃  1,2']);
  assert.deepEqual(summary(get('output-projection')), ['aggregate O  1,1', 'Wo W_O  1,1']);
  assert.ok(
    one.steps.every((s) => s.operands.every((o) => !('head' in o))),
    'no head field with one head',
  );
});

test("an operand that is a step result is that step's very values array", () => {
  const t = lab.trace(tokensRequest(2, { causal: true, positional: 'sinusoidal' }));
  const stepsById = (id) => t.steps.filter((s) => s.id === id);
  let references = 0;
  for (const step of t.steps) {
    for (const operand of step.operands) {
      const source = stepsById(operand.name).find((s) => s.head === operand.head);
      if (!source || (['project-q', 'project-k', 'project-v'].includes(operand.name) && step.head !== undefined)) continue;
      assert.equal(operand.values, source.values, `${step.id}${step.head ?? ''} ← ${operand.name}`);
      assert.equal(operand.shape, source.shape);
      references++;
    }
  }
  assert.equal(references, 1 + 3 + 2 * 4 + 2 + 1); // positional's PE; projections; scale, mask, softmax, A per head; concat; W_O's C
  // With one head the scores' Q is the projection itself, shared rather than copied.
  const one = lab.trace(tokensRequest(1));
  assert.equal(one.steps.find((s) => s.id === 'scores').operands[0].values, one.steps.find((s) => s.id === 'project-q').values);
});

test("the scores' operands are the column slices of Q and K, recomputed here in float64", () => {
  const request = tokensRequest(3);
  const t = lab.trace(request);
  const X = nested(request.X);
  const Q = product(X, nested(request.Wq));
  const K = product(X, nested(request.Wk));
  const V = product(X, nested(request.Wv));
  t.steps
    .filter((s) => s.id === 'scores')
    .forEach((step, h) => {
      assert.ok(maxAbsDiff(step.operands[0].values, columns(Q, 2 * h, 2)) < 1e-5, `Q head ${h}`);
      assert.ok(maxAbsDiff(step.operands[1].values, columns(K, 2 * h, 2)) < 1e-5, `K head ${h}`);
    });
  t.steps
    .filter((s) => s.id === 'aggregate')
    .forEach((step, h) => {
      assert.ok(maxAbsDiff(step.operands[1].values, columns(V, 3 * h, 3)) < 1e-5, `V head ${h}`);
    });
});

test('the scale step: scale excludes the temperature, factor = scale / temperature', () => {
  const Q = [[1, 2, 3, 4]],
    K = [
      [1, 0, 0, 1],
      [0, 1, 1, 0],
    ],
    V = [[1], [2]];
  const scaleOf = (options) => lab.trace({ Q, K, V, ...options }).steps.find((s) => s.id === 'scale');
  const plain = scaleOf({});
  assert.deepEqual([plain.scale, plain.temperature, plain.factor, plain.dk, plain.defaultScale], [0.5, 1, 0.5, 4, true]);
  const warm = scaleOf({ temperature: 4 });
  assert.deepEqual([warm.scale, warm.temperature, warm.dk, warm.defaultScale], [0.5, 4, 4, true]);
  assert.ok(Math.abs(warm.factor - 0.125) < 1e-7);
  const explicit = scaleOf({ scale: 0.25, temperature: 0.5 });
  assert.ok(Math.abs(explicit.scale - 0.25) < 1e-7);
  assert.ok(Math.abs(explicit.factor - 0.5) < 1e-7);
  assert.equal(explicit.defaultScale, false);
  // The factor is what multiplied the scores: S = [5, 5], so S̃ = 2.5
  assert.deepEqual(explicit.values, [[2.5, 2.5]]);
  const twoHeads = lab
    .trace({
      Q: [[1, 2, 3, 4]],
      K,
      V: [
        [1, 1],
        [2, 2],
      ],
      heads: 2,
    })
    .steps.filter((s) => s.id === 'scale');
  assert.deepEqual(
    twoHeads.map((s) => [s.dk, s.head]),
    [
      [2, 0],
      [2, 1],
    ],
  );
  assert.ok(Math.abs(twoHeads[0].scale - Math.SQRT1_2) < 1e-7);
  const others = lab.trace({ Q, K, V }).steps.filter((s) => s.id !== 'scale');
  assert.ok(others.every((s) => !('factor' in s) && !('dk' in s)));
});

test('the mask step: allowed and blockedBy follow causal, key padding and the mask', () => {
  const n = 4;
  const Q = Array.from({ length: n }, (_, i) => [i, 1]);
  const keyPadding = [false, true, false, false];
  const mask = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i + j) % 3 !== 0));
  for (const causal of [false, true]) {
    for (const padding of [false, true]) {
      for (const withMask of [false, true]) {
        if (!causal && !padding && !withMask) continue;
        const request = { Q, K: Q, V: Q, causal, ...(padding && { keyPadding }), ...(withMask && { mask }) };
        const step = lab.trace(request).steps.find((s) => s.id === 'mask');
        const bits = (i, j) => (causal && j > i ? 1 : 0) | (padding && keyPadding[j] ? 2 : 0) | (withMask && !mask[i][j] ? 4 : 0);
        const label = JSON.stringify({ causal, padding, withMask });
        assert.deepEqual(
          step.blockedBy,
          Q.map((_, i) => Q.map((_, j) => bits(i, j))),
          label,
        );
        assert.deepEqual(
          step.allowed,
          Q.map((_, i) => Q.map((_, j) => bits(i, j) === 0)),
          label,
        );
      }
    }
  }
  const unmasked = lab.trace({ Q, K: Q, V: Q });
  assert.ok(!unmasked.steps.some((s) => s.id === 'mask' || 'allowed' in s || 'blockedBy' in s));
});
