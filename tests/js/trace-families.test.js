// trace({ family: 'linear' | 'retention' }) through the package: the steps the stepper walks,
// each head's numbers against the family's own entry (linearAttention(), retention()) on the
// head's slices and against float64 references written here, and the coded errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab, errorOf, maxAbsDiff } from './support/package.js';

const lab = await attnlab.createAttnLab();
// The families' steps are traced by the learning module: before it loads, a coded error says so.
const beforeLoading = errorOf(() => lab.trace({ Q: [[1]], K: [[1]], V: [[1]], family: 'linear' }));
await lab.loadLearning();

test('before lab.loadLearning(), a family is refused with a coded error naming it', () => {
  assert.equal(beforeLoading.code, 'invalid-argument');
  assert.match(beforeLoading.message, /^family: .*loadLearning/);
});

// A seeded matrix (a small linear congruential generator), entries in [−1.5, 1.5).
function matrix(rows, cols, seed) {
  let s = seed;
  const next = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 3 - 1.5;
  return Array.from({ length: rows }, () => Array.from({ length: cols }, next));
}
const columns = (m, first, count) => m.map((row) => row.slice(first, first + count));
const elu1 = (x) => (x > 0 ? x + 1 : Math.exp(x));
const groupIds = (trace) => trace.groups.map((g) => g.id);
const stepsOf = (trace, id) => trace.steps.filter((s) => s.id === id);

test('the families’ step ids are the core’s, in trace order', () => {
  const ids = lab.stepIds();
  const at = (id) => ids.indexOf(id);
  for (const id of ['feature-q', 'feature-k', 'decay', 'kv-state', 'normalizer', 'implied-weights'])
    assert.ok(at(id) > at('rotate-k') && at(id) < at('scores'), id);
  assert.deepEqual(ids, attnlab.STEP_IDS);
});

for (const causal of [false, true]) {
  test(`family linear (causal ${causal}): linearAttention's numbers per head, φ(K)ᵀV and the output in float64`, () => {
    const [Q, K, V] = [matrix(5, 6, 1), matrix(5, 6, 2), matrix(5, 4, 3)];
    const trace = lab.trace({ Q, K, V, heads: 2, causal, family: 'linear' });
    assert.deepEqual(groupIds(trace), ['feature-q', 'feature-k', 'kv-state', 'normalizer', 'implied-weights', 'aggregate', 'concat']);
    for (const h of [0, 1]) {
      const [q, k, v] = [columns(Q, 3 * h, 3), columns(K, 3 * h, 3), columns(V, 2 * h, 2)];
      const want = lab.linearAttention({ Q: q, K: k, V: v, causal });
      assert.ok(maxAbsDiff(stepsOf(trace, 'feature-q')[h].values, want.featureQ) <= 1e-6);
      assert.ok(maxAbsDiff(stepsOf(trace, 'implied-weights')[h].values, want.weights) <= 1e-6);
      assert.ok(maxAbsDiff(stepsOf(trace, 'aggregate')[h].values, want.output) <= 1e-6);
      // float64: S = Σ_j φ(k_j) v_jᵀ and o_i = Σ_{j visible} φ(q_i)·φ(k_j) v_j / Σ φ(q_i)·φ(k_j).
      const state = k[0].map((_, a) => v[0].map((_, b) => k.reduce((sum, kj, j) => sum + elu1(kj[a]) * v[j][b], 0)));
      assert.ok(maxAbsDiff(stepsOf(trace, 'kv-state')[h].values, state) <= 1e-5);
      const output = q.map((qi, i) => {
        const kernel = k.map((kj, j) => (causal && j > i ? 0 : qi.reduce((sum, x, a) => sum + elu1(x) * elu1(kj[a]), 0)));
        const z = kernel.reduce((a, b) => a + b, 0);
        return v[0].map((_, b) => kernel.reduce((sum, w, j) => sum + w * v[j][b], 0) / z);
      });
      assert.ok(maxAbsDiff(stepsOf(trace, 'aggregate')[h].values, output) <= 1e-5);
      assert.deepEqual(stepsOf(trace, 'normalizer')[h].shape, [5, 1]);
    }
  });
}

test('family retention: retention()’s numbers, D and the state', () => {
  const [Q, K, V] = [matrix(4, 3, 4), matrix(4, 3, 5), matrix(4, 2, 6)];
  const trace = lab.trace({ Q, K, V, family: 'retention', decay: 0.5 });
  assert.deepEqual(groupIds(trace), ['decay', 'kv-state', 'implied-weights', 'aggregate']);
  const want = lab.retention({ Q, K, V, decay: 0.5 });
  assert.ok(maxAbsDiff(trace.output, want.output) <= 1e-6);
  assert.ok(maxAbsDiff(stepsOf(trace, 'kv-state')[0].values, want.state) <= 1e-6);
  const d = Q.map((_, i) => Q.map((_, j) => (j > i ? 0 : 0.5 ** (i - j))));
  assert.deepEqual(stepsOf(trace, 'decay')[0].values, d); // powers of ½: exact in float32
});

test('family softmax is the default: the same trace, none of the families’ steps', () => {
  const [Q, K, V] = [matrix(3, 4, 7), matrix(3, 4, 8), matrix(3, 4, 9)];
  const plain = lab.trace({ Q, K, V, heads: 2, causal: true });
  assert.deepEqual(lab.trace({ Q, K, V, heads: 2, causal: true, family: 'softmax' }), plain);
  assert.deepEqual(groupIds(plain), ['scores', 'scale', 'mask', 'softmax', 'aggregate', 'concat']);
});

test('the families refuse what they have no steps for, with coded errors naming the field', () => {
  const [Q, K, V] = [matrix(3, 2, 10), matrix(3, 2, 11), matrix(3, 2, 12)];
  const cases = [
    [{ family: 'linear', alibi: true }, 'invalid-argument', 'alibi'],
    [{ family: 'linear', temperature: 2 }, 'invalid-argument', 'temperature'],
    [{ family: 'linear', decay: 0.5 }, 'invalid-argument', 'decay'],
    [{ family: 'retention' }, 'invalid-argument', 'decay'],
    [{ family: 'retention', decay: 1.5 }, 'invalid-argument', 'decay'],
    [{ family: 'retention', decay: 0.5, featureMap: 'relu' }, 'invalid-argument', 'featureMap'],
    [{ decay: 0.5 }, 'invalid-argument', 'decay'],
    [{ family: 'cosine' }, 'invalid-argument', 'family'],
  ];
  for (const [options, code, field] of cases) {
    const error = errorOf(() => lab.trace({ Q, K, V, ...options }));
    assert.equal(error.code, code, `${JSON.stringify(options)}: ${error.message}`);
    assert.ok(error.message.includes(field), error.message);
  }
});
