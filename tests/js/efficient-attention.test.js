// lab.linearAttention() and lab.retention() from the packed package, against float64
// references written here (the definitions, quadratic and plain), both forms equal, the
// zero-normaliser rule, and every bad input refused with its code and the field named.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab } from './support/package.js';
import { drawnMatrix, uniformDraws } from './support/seeded-rows.js';
import { f32, relativeError } from '../support/float64-efficient.js';

const lab = await attnlab.createAttnLab();
const { AttnLabError } = attnlab;

// Float32 against float64: 1e-5 relative to max(1, max |reference|).
const TOLERANCE = 1e-5;

const phi = { elu: (x) => (x > 0 ? x + 1 : Math.exp(x)), relu: (x) => Math.max(x, 0) };

/** Linear attention by its definition, in float64: kernel (n_q, n_k), weights, output (n_q, d_v). */
function linearReference(Q, K, V, { featureMap = 'elu', causal = false, scale = 1 }) {
  [Q, K, V] = [Q, K, V].map(f32);
  const f = phi[featureMap];
  const kernel = Q.map((q, i) => K.map((k, j) => (causal && j > i ? 0 : q.reduce((s, x, a) => s + f(Math.fround(scale) * x) * f(k[a]), 0))));
  const weights = kernel.map((row) => {
    const sum = row.reduce((s, x) => s + x, 0);
    return row.map((x) => (sum === 0 ? 0 : x / sum));
  });
  const output = weights.map((w) => V[0].map((_, c) => w.reduce((s, x, j) => s + x * V[j][c], 0)));
  return { kernel, weights, output };
}

/** Retention by its definition, in float64: weights (n, n), output (n, d_v). */
function retentionReference(Q, K, V, decay) {
  [Q, K, V] = [Q, K, V].map(f32);
  const g = Math.fround(decay);
  const weights = Q.map((q, i) => K.map((k, j) => (j > i ? 0 : q.reduce((s, x, a) => s + x * k[a], 0) * g ** (i - j))));
  const output = weights.map((w) => V[0].map((_, c) => w.reduce((s, x, j) => s + x * V[j][c], 0)));
  return { weights, output };
}

test('linearAttention: both maps, both forms, causal or not, within 1e-5 of float64; parallel = recurrent', () => {
  let worst = 0;
  let worstForms = 0;
  let seed = 1;
  for (const featureMap of ['elu', 'relu'])
    for (const causal of [false, true])
      for (const [nQ, nK, dK, dV] of [
        [1, 1, 1, 1],
        [6, 6, 3, 2],
        [24, 24, 8, 5],
        [5, 9, 4, 3],
      ]) {
        if (causal && nQ !== nK) continue;
        const draw = uniformDraws(seed++);
        const [Q, K, V] = [drawnMatrix(nQ, dK, draw), drawnMatrix(nK, dK, draw), drawnMatrix(nK, dV, draw)];
        const scale = seed % 2 ? undefined : 0.5;
        const want = linearReference(Q, K, V, { featureMap, causal, scale: scale ?? 1 });
        const got = ['parallel', 'recurrent'].map((form) => lab.linearAttention({ Q, K, V, featureMap, causal, form, scale }));
        for (const r of got) {
          const where = `${featureMap} causal ${causal} ${nQ}×${nK}`;
          assert.equal(r.scale, scale ?? 1);
          for (const field of ['output', 'weights', 'kernel']) {
            const e = relativeError(r[field], want[field]);
            assert.ok(e <= TOLERANCE, `${where} ${field}: ${e}`);
            worst = Math.max(worst, e);
          }
          assert.equal(r.featureQ.length, nQ);
          assert.equal(r.kvState.length, dK);
          assert.equal(r.kvState[0].length, dV);
          assert.equal(r.keySum.length, dK);
          assert.equal(r.normalizer.length, nQ);
        }
        const e = relativeError(got[1].output, got[0].output);
        assert.ok(e <= TOLERANCE, `parallel vs recurrent ${e}`);
        worstForms = Math.max(worstForms, e);
      }
  console.log(`linearAttention vs float64: ${worst.toExponential(2)}; parallel vs recurrent: ${worstForms.toExponential(2)}`);
});

test('linearAttention: a zero normaliser (relu features that meet no key) gives zeros, listed, never NaN', () => {
  const Q = [
    [1, 1],
    [-1, -2],
    [0, 3],
  ];
  const K = [
    [2, 0],
    [1, 1],
    [1, 0],
  ];
  const V = [
    [1, 2],
    [3, 4],
    [5, 6],
  ];
  for (const form of ['parallel', 'recurrent']) {
    const r = lab.linearAttention({ Q, K, V, featureMap: 'relu', form });
    assert.deepEqual(r.zeroNormalizerRows, [1]);
    assert.deepEqual(r.output[1], [0, 0]);
    assert.deepEqual(r.weights[1], [0, 0, 0]);
    assert.ok(r.output.flat().every(Number.isFinite));
  }
  assert.deepEqual(lab.linearAttention({ Q, K, V }).zeroNormalizerRows, [], "elu's features are positive");
});

test('retention: both forms within 1e-5 of float64 and equal to each other; the state keeps its size', () => {
  let worst = 0;
  let worstForms = 0;
  let seed = 50;
  for (const decay of [1, 0.96875, 0.5, 0.01])
    for (const [n, dK, dV] of [
      [1, 1, 1],
      [5, 3, 2],
      [32, 8, 4],
    ]) {
      const draw = uniformDraws(seed++);
      const [Q, K, V] = [drawnMatrix(n, dK, draw), drawnMatrix(n, dK, draw), drawnMatrix(n, dV, draw)];
      const want = retentionReference(Q, K, V, decay);
      const got = ['parallel', 'recurrent'].map((form) => lab.retention({ Q, K, V, decay, form }));
      for (const r of got) {
        for (const field of ['output', 'weights']) {
          const e = relativeError(r[field], want[field]);
          assert.ok(e <= TOLERANCE, `decay ${decay} n ${n} ${field}: ${e}`);
          worst = Math.max(worst, e);
        }
        assert.equal(r.state.length, dK);
        assert.equal(r.state[0].length, dV);
        assert.equal(r.decay, Math.fround(decay));
      }
      const e = relativeError(got[1].output, got[0].output);
      assert.ok(e <= TOLERANCE, `parallel vs recurrent ${e}`);
      worstForms = Math.max(worstForms, e);
    }
  console.log(`retention vs float64: ${worst.toExponential(2)}; parallel vs recurrent: ${worstForms.toExponential(2)}`);
});

const Q = [
  [1, 0],
  [0, 1],
];
const V = [
  [1, 2],
  [3, 4],
];
const refusals = [
  ['no request', () => lab.linearAttention(), 'invalid-argument', 'linearAttention'],
  ['Q missing', () => lab.linearAttention({ K: Q, V }), 'invalid-argument', 'Q'],
  ['an unknown featureMap', () => lab.linearAttention({ Q, K: Q, V, featureMap: 'softmax' }), 'invalid-argument', 'featureMap'],
  ['an unknown form', () => lab.linearAttention({ Q, K: Q, V, form: 'chunked' }), 'invalid-argument', 'form'],
  ['scale 0', () => lab.linearAttention({ Q, K: Q, V, scale: 0 }), 'invalid-argument', 'scale'],
  ['K too narrow', () => lab.linearAttention({ Q, K: [[1], [2]], V }), 'shape-mismatch', 'K'],
  ['causal with n_q ≠ n_k', () => lab.linearAttention({ Q: [[1, 0]], K: Q, V, causal: true }), 'shape-mismatch', 'Q'],
  [
    'NaN in V',
    () =>
      lab.linearAttention({
        Q,
        K: Q,
        V: [
          [1, NaN],
          [3, 4],
        ],
      }),
    'non-finite',
    'V',
  ],
  ['Q past the limits', () => lab.linearAttention({ Q: drawnMatrix(513, 2, () => 1), K: Q, V }), 'too-large', 'Q'],
  ['an overflowing kernel', () => lab.linearAttention({ Q: [[1e20, 1e20]], K: [[1e20, 1e20]], V: [[1]] }), 'non-finite', 'float32'],
  ['retention without decay', () => lab.retention({ Q, K: Q, V }), 'invalid-argument', 'decay'],
  ['decay 0', () => lab.retention({ Q, K: Q, V, decay: 0 }), 'invalid-argument', 'decay'],
  ['decay above 1', () => lab.retention({ Q, K: Q, V, decay: 1.5 }), 'invalid-argument', 'decay'],
  ['decay NaN', () => lab.retention({ Q, K: Q, V, decay: NaN }), 'invalid-argument', 'decay'],
  ['retention over two sequences', () => lab.retention({ Q: [[1, 0]], K: Q, V, decay: 0.5 }), 'shape-mismatch', 'Q'],
  ['retention with an unknown form', () => lab.retention({ Q, K: Q, V, decay: 0.5, form: 'chunkwise' }), 'invalid-argument', 'form'],
  [
    'retention with Infinity in K',
    () =>
      lab.retention({
        Q,
        K: [
          [1, Infinity],
          [0, 1],
        ],
        V,
        decay: 0.5,
      }),
    'non-finite',
    'K',
  ],
  ['retention past the limits', () => lab.retention({ Q: drawnMatrix(2, 513, () => 1), K: Q, V, decay: 0.5 }), 'too-large', 'Q'],
  [
    'an overflowing retention',
    () =>
      lab.retention({
        Q: [
          [1, 1],
          [1, 1],
        ],
        K: [
          [1, 1],
          [1, 1],
        ],
        V: [[3e38], [3e38]],
        decay: 1,
      }),
    'non-finite',
    'float32',
  ],
];
for (const [name, call, code, named] of refusals) {
  test(`refused: ${name} (${code})`, () => {
    assert.throws(call, (error) => {
      assert.ok(error instanceof AttnLabError, `${error}`);
      assert.equal(error.code, code, error.message);
      assert.ok(error.message.includes(named), `${error.message} names ${named}`);
      return true;
    });
  });
}
