// lab.permutationCheck from the packed package: without positions reordering the tokens only
// reorders the output rows; with sinusoidal positions (or a causal mask) the outputs change.
// Each part is checked against lab.trace() of the same inputs, reordered here by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab, maxAbsDiff } from './support/package.js';

const lab = await attnlab.createAttnLab();
const { AttnLabError } = attnlab;

// A small seeded generator (a linear congruential one), values in [-1, 1).
function seeded(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32) * 2 - 1;
  };
}
const matrix = (rows, cols, random) => Array.from({ length: rows }, () => Array.from({ length: cols }, random));

/** X (n, 6), Wq and Wk (6, 4), Wv (6, 4). */
function request(n, seed, extra = {}) {
  const random = seeded(seed);
  return { X: matrix(n, 6, random), Wq: matrix(6, 4, random), Wk: matrix(6, 4, random), Wv: matrix(6, 4, random), ...extra };
}

const reorder = (rows, order) => order.map((i) => rows[i]);

// Fisher–Yates with the seeded generator; never the identity for n ≥ 2.
function shuffled(n, seed) {
  const random = seeded(seed);
  const identity = [...Array(n).keys()];
  let order;
  do {
    order = [...identity];
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(((random() + 1) / 2) * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
  } while (order.every((v, i) => v === i));
  return order;
}

// Float rounding only: the core's bound is 1e-5 per unit of the largest output entry.
const FLOAT_TOLERANCE = 1e-5;

function assertMatchesTraces(req, order, check) {
  assert.deepEqual(check.original, lab.trace(req).output, 'original = trace of the input as given');
  assert.deepEqual(check.permuted, lab.trace({ ...req, X: reorder(req.X, order) }).output, 'permuted = trace of the reordered X');
  assert.deepEqual(check.predicted, reorder(check.original, order), 'predicted = original rows reordered');
  assert.equal(check.maxDifference, maxAbsDiff(check.permuted, check.predicted));
  assert.equal(check.reorderedOnly, check.maxDifference <= check.tolerance);
  assert.deepEqual(check.order, order);
}

for (const seed of [1, 2, 3, 4, 5]) {
  const n = 2 + seed;
  const order = shuffled(n, seed);
  test(`without positions, ${n} tokens reordered as [${order}] give the same rows reordered`, () => {
    for (const extra of [{}, { heads: 2, Wo: matrix(4, 3, seeded(seed + 50)) }]) {
      const req = request(n, seed, extra);
      const check = lab.permutationCheck(req, order);
      assertMatchesTraces(req, order, check);
      assert.ok(check.maxDifference <= FLOAT_TOLERANCE, `max difference ${check.maxDifference}`);
      assert.equal(check.reorderedOnly, true);
    }
  });

  test(`with sinusoidal positions, ${n} tokens reordered as [${order}] change the outputs`, () => {
    const req = request(n, seed, { positional: 'sinusoidal' });
    const check = lab.permutationCheck(req, order);
    assertMatchesTraces(req, order, check);
    assert.ok(check.maxDifference > 1000 * FLOAT_TOLERANCE, `max difference ${check.maxDifference}`);
    assert.equal(check.reorderedOnly, false);
  });
}

test('the identity permutation gives exactly 0, with positions and a causal mask too', () => {
  for (const extra of [{}, { positional: 'sinusoidal' }, { causal: true }]) {
    const check = lab.permutationCheck(request(4, 9, extra), [0, 1, 2, 3]);
    assert.equal(check.maxDifference, 0);
    assert.equal(check.reorderedOnly, true);
    assert.deepEqual(check.permuted, check.original);
  }
});

test('a causal mask also breaks equivariance', () => {
  const req = request(5, 11, { causal: true });
  const check = lab.permutationCheck(req, [4, 3, 2, 1, 0]);
  assertMatchesTraces(req, [4, 3, 2, 1, 0], check);
  assert.equal(check.reorderedOnly, false);
});

test('token labels pass through; flat Float32Array inputs work', () => {
  const req = request(3, 13, { tokens: ['the', 'cat', 'sat'] });
  const check = lab.permutationCheck(req, [2, 0, 1]);
  assert.deepEqual(check.tokens, ['the', 'cat', 'sat']);
  const flatX = { rows: 3, cols: 6, data: Float32Array.from(req.X.flat()) };
  assert.deepEqual(lab.permutationCheck({ ...req, X: flatX }, [2, 0, 1]).permuted, check.permuted);
});

test('every bad order or source throws AttnLabError naming the problem', () => {
  const req = request(4, 17);
  const cases = [
    ['not an array', () => lab.permutationCheck(req, '0123'), 'invalid-argument', 'order must be an array'],
    ['null', () => lab.permutationCheck(req, null), 'invalid-argument', 'got null'],
    ['a fraction', () => lab.permutationCheck(req, [0, 1.5, 2, 3]), 'invalid-argument', 'order[1]'],
    ['a negative index', () => lab.permutationCheck(req, [0, -1, 2, 3]), 'invalid-argument', 'order[1]'],
    ['a string index', () => lab.permutationCheck(req, [0, '1', 2, 3]), 'invalid-argument', 'order[1]'],
    ['too short', () => lab.permutationCheck(req, [0, 1, 2]), 'invalid-argument', 'order has 3 entries but X (4 tokens)'],
    ['too long', () => lab.permutationCheck(req, [0, 1, 2, 3, 4]), 'invalid-argument', 'order has 5 entries'],
    ['a duplicate', () => lab.permutationCheck(req, [3, 1, 3, 0]), 'invalid-argument', 'order lists token 3 twice'],
    ['out of range', () => lab.permutationCheck(req, [0, 1, 2, 4]), 'invalid-argument', 'order[3] = 4 is out of range'],
    ['2^32 would wrap to 0', () => lab.permutationCheck(req, [2 ** 32, 1, 2, 3]), 'invalid-argument', 'order[0]'],
    ['Q, K, V given directly', () => lab.permutationCheck({ Q: [[1]], K: [[1]], V: [[1]] }, [0]), 'invalid-argument', 'needs X'],
    ['no request', () => lab.permutationCheck(undefined, [0]), 'invalid-argument', 'permutationCheck() takes an object'],
    ['X and W_K do not fit', () => lab.permutationCheck({ ...req, Wk: [[1, 0]] }, [0, 1, 2, 3]), 'shape-mismatch', 'Wk (1×2)'],
    ['NaN in X', () => lab.permutationCheck({ ...req, X: [[NaN, 0, 0, 0, 0, 0], ...req.X.slice(1)] }, [0, 1, 2, 3]), 'non-finite', 'X'],
  ];
  for (const [what, call, code, fragment] of cases) {
    assert.throws(call, (error) => {
      assert.ok(error instanceof AttnLabError, `${what}: ${error}`);
      assert.equal(error.code, code, `${what}: ${error.message}`);
      assert.ok(error.message.includes(fragment), `${what}: "${error.message}" lacks "${fragment}"`);
      return true;
    });
  }
  assert.equal(lab.permutationCheck(req, [1, 0, 2, 3]).reorderedOnly, true, 'the module still works');
});
