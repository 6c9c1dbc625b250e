// lab.softmaxBreakdown() and lab.scalingStudy(), the cores of the "softmax up close" and
// "why 1/√d_k" views: their numbers against float64, the path without the max (real float32 Infinity
// and NaN), agreement with the native build, and every error.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab } from './support/package.js';

const lab = await attnlab.createAttnLab();
const { AttnLabError } = attnlab;

const close = (got, want, tolerance, what) => {
  assert.equal(got.length, want.length, what);
  got.forEach((g, i) => assert.ok(Math.abs(g - want[i]) <= tolerance, `${what}[${i}]: ${g} vs ${want[i]}`));
};

// The stages in float64, as a learner would work them by hand.
function byHand(scores, temperature) {
  const scaled = scores.map((s) => s / temperature);
  const max = Math.max(...scaled);
  const exponentials = scaled.map((x) => Math.exp(x - max));
  const sum = exponentials.reduce((a, b) => a + b, 0);
  return { scaled, max, shifted: scaled.map((x) => x - max), exponentials, sum, weights: exponentials.map((e) => e / sum) };
}

test('softmaxBreakdown: every stage matches float64 (1e-6), and the path without the max agrees on small scores', () => {
  for (const [scores, temperature] of [
    [[1, 2, 3], 1],
    [[0.5, -1.25, 2, 2, 0], 0.5],
    [[4], 3],
  ]) {
    const r = lab.softmaxBreakdown(scores, temperature);
    const want = byHand(scores, temperature);
    assert.equal(r.temperature, temperature);
    for (const key of ['scaled', 'shifted', 'exponentials', 'weights']) close(r[key], want[key], 1e-6, key);
    assert.ok(Math.abs(r.max - want.max) <= 1e-6);
    assert.ok(Math.abs(r.sum - want.sum) <= 1e-6 * scores.length);
    close(r.withoutMax.weights, want.weights, 1e-6, 'withoutMax.weights');
    assert.equal(r.withoutMax.overflowed, false);
    assert.equal(r.withoutMax.termOverflowed, false);
    assert.equal(r.withoutMax.underflowed, false);
  }
  assert.deepEqual(lab.softmaxBreakdown(new Float32Array([1, 2])).weights, lab.softmaxBreakdown([1, 2], 1).weights, 'typed arrays and the default temperature');
});

test('softmaxBreakdown: [100, 99, 98] overflows to Infinity and NaN without the max, not with it', () => {
  const r = lab.softmaxBreakdown([100, 99, 98]);
  assert.deepEqual(r.withoutMax.exponentials, [Infinity, Infinity, Infinity]);
  assert.equal(r.withoutMax.sum, Infinity);
  assert.ok(r.withoutMax.weights.every(Number.isNaN));
  assert.equal(r.withoutMax.overflowed, true);
  assert.equal(r.withoutMax.termOverflowed, true);
  close(r.weights, byHand([100, 99, 98], 1).weights, 1e-6, 'weights');

  const edge = lab.softmaxBreakdown([89, 0]); // ∞/∞ = NaN, 1/∞ = 0
  assert.ok(Number.isNaN(edge.withoutMax.weights[0]));
  assert.equal(edge.withoutMax.weights[1], 0);
  assert.equal(edge.withoutMax.termOverflowed, true);
  const sumOnly = lab.softmaxBreakdown([88.5, 88.5, 0]); // finite terms, an Infinity sum
  assert.equal(sumOnly.withoutMax.overflowed, true);
  assert.equal(sumOnly.withoutMax.termOverflowed, false);
  const under = lab.softmaxBreakdown([-110, -120]); // both round to 0: 0/0
  assert.deepEqual(under.withoutMax.exponentials, [0, 0]);
  assert.equal(under.withoutMax.underflowed, true);
  assert.ok(under.withoutMax.weights.every(Number.isNaN));
  const warm = lab.softmaxBreakdown([100, 99, 98], 10); // scaled to 10, 9.9, 9.8: fine
  assert.equal(warm.withoutMax.overflowed, false);
  assert.equal(warm.withoutMax.termOverflowed, false);
  close(warm.withoutMax.weights, warm.weights, 1e-6, 'without the max at temperature 10');
});

test('scalingStudy: defaults, shapes, determinism, and the same numbers as the native build', () => {
  const s = lab.scalingStudy({ dims: [1, 8, 512] });
  assert.equal(s.keys, 16);
  assert.equal(s.samples, 256);
  assert.ok(Math.abs(s.maxEntropy - Math.log(16)) < 1e-6);
  assert.deepEqual(
    s.points.map((p) => p.dk),
    [1, 8, 512],
  );
  for (const p of s.points) {
    assert.ok(Math.abs(p.sqrtDk - Math.sqrt(p.dk)) < 1e-6);
    for (const key of ['exampleScores', 'exampleWeightsScaled', 'exampleWeightsUnscaled']) assert.equal(p[key].length, 16, key);
    for (const key of ['exampleWeightsScaled', 'exampleWeightsUnscaled']) {
      assert.ok(Math.abs(p[key].reduce((a, b) => a + b, 0) - 1) < 1e-5, key);
    }
    assert.ok(Math.abs(p.scoreStd / p.sqrtDk - 1) < 0.1, `spread at d_k = ${p.dk}: ${p.scoreStd}`);
  }
  assert.ok(s.points[2].maxWeightUnscaled > 0.9 && s.points[2].maxWeightScaled < 0.5, 'one-hot only without scaling');
  assert.deepEqual(lab.scalingStudy({ dims: [1, 8, 512] }), s, 'deterministic');
  assert.notDeepEqual(lab.scalingStudy({ dims: [8], seed: 2 }).points[0].exampleScores, s.points[1].exampleScores);

  // Printed by the native build (tests/cpp: scaling_study with these options): the seeded
  // generator in the core draws the same numbers natively and in wasm.
  const pinned = lab.scalingStudy({ dims: [4], keys: 4, samples: 3, seed: 7 }).points[0];
  close(pinned.exampleScores, [1.34758854, 1.72923005, 2.13295794, 0.122014195], 1e-6, 'native example scores');
  assert.ok(Math.abs(pinned.scoreStd - 1.68849754) < 1e-6);
});

// [what, call, code, a fragment of the message]
const errors = [
  ['an empty row', () => lab.softmaxBreakdown([]), 'empty', 'empty'],
  ['a row that is not an array', () => lab.softmaxBreakdown('1,2'), 'invalid-argument', 'scores'],
  ['a string score', () => lab.softmaxBreakdown([1, '2']), 'invalid-argument', 'scores[1]'],
  ['a NaN score', () => lab.softmaxBreakdown([1, NaN]), 'non-finite', 'score 2'],
  ['1e39 overflows float32', () => lab.softmaxBreakdown([1e39]), 'non-finite', 'score 1'],
  ['4097 scores', () => lab.softmaxBreakdown(new Array(4097).fill(0)), 'too-large', '4096'],
  ['temperature 0', () => lab.softmaxBreakdown([1, 2], 0), 'invalid-argument', 'temperature'],
  ['temperature Infinity', () => lab.softmaxBreakdown([1, 2], Infinity), 'invalid-argument', 'temperature'],
  ['temperature as a string', () => lab.softmaxBreakdown([1, 2], '1'), 'invalid-argument', 'temperature'],
  ['scores / temperature overflow', () => lab.softmaxBreakdown([1e30], 1e-10), 'non-finite', 'overflows'],
  ['no request', () => lab.scalingStudy(), 'invalid-argument', 'scalingStudy'],
  ['dims missing', () => lab.scalingStudy({}), 'invalid-argument', 'dims'],
  ['dims empty', () => lab.scalingStudy({ dims: [] }), 'empty', 'dims'],
  ['17 dims', () => lab.scalingStudy({ dims: new Array(17).fill(2) }), 'too-large', 'dims'],
  ['d_k 0', () => lab.scalingStudy({ dims: [0] }), 'invalid-argument', 'd_k'],
  ['d_k 513', () => lab.scalingStudy({ dims: [513] }), 'too-large', '512'],
  ['d_k 2.5', () => lab.scalingStudy({ dims: [2.5] }), 'invalid-argument', 'dims[0]'],
  ['d_k -1', () => lab.scalingStudy({ dims: [-1] }), 'invalid-argument', 'dims[0]'],
  ['keys 1', () => lab.scalingStudy({ dims: [4], keys: 1 }), 'invalid-argument', 'keys'],
  ['keys 65', () => lab.scalingStudy({ dims: [4], keys: 65 }), 'too-large', 'keys'],
  ['samples 0', () => lab.scalingStudy({ dims: [4], samples: 0 }), 'invalid-argument', 'samples'],
  ['samples 2001', () => lab.scalingStudy({ dims: [4], samples: 2001 }), 'too-large', 'samples'],
  ['seed -1', () => lab.scalingStudy({ dims: [4], seed: -1 }), 'invalid-argument', 'seed'],
  ['seed as a string', () => lab.scalingStudy({ dims: [4], seed: '1' }), 'invalid-argument', 'seed'],
];

for (const [what, call, code, fragment] of errors) {
  test(`error: ${what} → ${code}`, () => {
    assert.throws(call, (error) => {
      assert.ok(error instanceof AttnLabError, `${error}`);
      assert.equal(error.code, code);
      assert.ok(error.message.includes(fragment), `"${error.message}" names ${fragment}`);
      return true;
    });
  });
}

test('the module keeps working after every error', () => {
  assert.equal(lab.softmaxBreakdown([0, 0]).weights[0], 0.5);
  assert.equal(lab.scalingStudy({ dims: [2], samples: 2 }).points.length, 1);
});
