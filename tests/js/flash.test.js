// lab.flashAttention: the flash kernel in wasm gives the same results as lab.attention.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab, errorOf, maxAbsDiff } from './support/package.js';

const lab = await attnlab.createAttnLab();

// Deterministic values in [-1, 1), as flat float32 matrices.
function matrix(rows, cols, seed) {
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < data.length; i++) data[i] = Math.sin(seed * 1000 + i * 12.9898) % 1;
  return { rows, cols, data };
}
const nested = ({ rows, cols, data }) => Array.from({ length: rows }, (_, r) => Array.from(data.subarray(r * cols, (r + 1) * cols)));
// One head's columns of a flat matrix, nested.
const headColumns = (m, head, width) => nested(m).map((row) => row.slice(head * width, (head + 1) * width));

for (const [n, d, heads, causal] of [
  [1, 8, 1, false],
  [7, 32, 1, true],
  [65, 64, 2, false],
  [300, 64, 1, true],
  [130, 16, 3, true],
]) {
  test(`flashAttention equals attention: n ${n}, d ${d}, ${heads} head(s), causal ${causal}`, () => {
    const [Q, K, V] = [1, 2, 3].map((seed) => matrix(n, d * heads, seed));
    const flash = lab.flashAttention({ Q, K, V, causal, heads });
    assert.deepEqual([flash.output.rows, flash.output.cols], [n, d * heads]);
    assert.ok(flash.output.data instanceof Float32Array);
    for (let h = 0; h < heads; h++) {
      const [q, k, v] = [Q, K, V].map((m) => headColumns(m, h, d));
      const expected = lab.attention({ Q: q, K: k, V: v, causal }).output;
      const diff = maxAbsDiff(headColumns(flash.output, h, d), expected);
      assert.ok(diff <= 1e-5, `head ${h}: max abs diff ${diff}`);
    }
    assert.deepEqual(flash.fullyMaskedRows, []);
  });
}

test('naiveAttention and flashAttention agree on a longer sequence', () => {
  const [Q, K, V] = [4, 5, 6].map((seed) => matrix(1000, 64, seed));
  const flash = lab.flashAttention({ Q, K, V, causal: true });
  const naive = lab.naiveAttention({ Q, K, V, causal: true });
  assert.ok(maxAbsDiff(nested(flash.output), nested(naive.output)) <= 1e-5);
});

test('flashAttention rejects bad input with the core error codes', () => {
  const ok = matrix(4, 8, 7);
  const codeOf = (request) => errorOf(() => lab.flashAttention(request)).code;
  assert.equal(codeOf({ Q: ok, K: matrix(4, 7, 8), V: ok }), 'shape-mismatch');
  assert.equal(codeOf({ Q: ok, K: ok, V: ok, heads: 3 }), 'invalid-argument');
  assert.equal(codeOf({ Q: ok, K: ok, V: ok, heads: 2.5 }), 'invalid-argument');
  assert.equal(codeOf({ Q: { rows: 0, cols: 8, data: new Float32Array(0) }, K: ok, V: ok }), 'empty');
  assert.equal(codeOf({ Q: { rows: 1, cols: 8, data: new Float32Array(8).fill(NaN) }, K: ok, V: ok }), 'non-finite');
  assert.equal(codeOf({ Q: ok, K: ok, V: ok, causal: 'yes' }), 'invalid-argument');
});

// A request field added as one declaration (issue 28): batch splits the rows into sequences
// that attend only within themselves, so a batch of 2 is the two halves computed apart.
test('batch: each sequence attends only to its own keys, as the halves computed apart (flash and naive)', () => {
  const [n, d, heads] = [9, 8, 2];
  const [Q, K, V] = [11, 12, 13].map((seed) => matrix(2 * n, d * heads, seed));
  const half = (m, b) => ({ rows: n, cols: m.cols, data: m.data.slice(b * n * m.cols, (b + 1) * n * m.cols) });
  for (const kernel of ['flashAttention', 'naiveAttention']) {
    for (const causal of [false, true]) {
      const batched = nested(lab[kernel]({ Q, K, V, causal, heads, batch: 2 }).output);
      const apart = [0, 1].flatMap((b) => nested(lab[kernel]({ Q: half(Q, b), K: half(K, b), V: half(V, b), causal, heads }).output));
      assert.ok(maxAbsDiff(batched, apart) <= 1e-6, `${kernel} causal ${causal}`);
      const whole = nested(lab[kernel]({ Q, K, V, causal, heads }).output);
      assert.ok(maxAbsDiff(whole, apart) > 1e-3, `${kernel}: one sequence of 18 differs, so the comparison can fail`);
    }
  }
  const { code, message } = errorOf(() => lab.flashAttention({ Q, K, V, heads, batch: 4 }));
  assert.equal(code, 'invalid-argument');
  assert.match(message, /^batch \(4\) must be at least 1 and divide the rows of Q \(18×16\)/);
  assert.match(errorOf(() => lab.flashAttention({ Q, K, V, batch: 1.5 })).message, /^batch must be a whole number of at least 0, got 1.5/);
});

// The element's long-sequence view takes the hidden cells and each row's visible keys from the
// core (issue 28, item 3): here against the rules written out by hand (top-left causal: key
// j ≤ query i; a window w: |i − j| < w; bottom-right: query i sits at key i + n_k − n_q).
test('sampledCells: which sampled cells the causal rule and the window hide, and how many keys each row sees', () => {
  const [nq, nk, d] = [10, 14, 4];
  const Q = matrix(nq, d, 21);
  const K = matrix(nk, d, 22);
  const rows = [0, 3, 9];
  const cols = [0, 2, 3, 4, 8, 13];
  const cases = [
    [{ causal: false }, () => true],
    [{ causal: true }, (i, j) => j <= i],
    [{ causal: true, causalAlignment: 'bottom-right' }, (i, j) => j <= i + nk - nq],
    [{ causal: false, window: 3 }, (i, j) => Math.abs(i - j) < 3],
    [{ causal: true, window: 3 }, (i, j) => j <= i && i - j < 3],
  ];
  for (const [options, sees] of cases) {
    const { weights, hidden, visibleKeys } = lab.sampledCells({ Q, K, rows, cols, ...options });
    const what = JSON.stringify(options);
    assert.deepEqual(
      hidden,
      rows.map((i) => cols.map((j) => !sees(i, j))),
      what,
    );
    assert.deepEqual(
      visibleKeys,
      rows.map((i) => Array.from({ length: nk }, (_, j) => sees(i, j)).filter(Boolean).length),
      what,
    );
    weights.forEach((row, r) => row.forEach((w, c) => assert.equal(w === 0, hidden[r][c], `${what} (${r}, ${c})`)));
    assert.deepEqual(lab.sampledWeights({ Q, K, rows, cols, ...options }), weights);
  }
});

// attnlab/webgpu takes the head width, the scale and the overflow decision from the core.
test("flashPlan: the kernel's head width, scale (default 1/√d) and its overflow bound", () => {
  const [Q, K, V] = [1, 2, 3].map((seed) => matrix(6, 12, seed));
  const plan = lab.flashPlan({ Q, K, V, heads: 3 });
  // Without a rule, every query sees every key (flash-plan.test.js checks the rules).
  const rules = {
    keyBands: new Uint32Array(12).map((_, i) => (i % 2 ? 6 : 0)),
    positionOffset: 0,
    slopes: new Float32Array(0),
    biasPerHead: false,
    fullyMaskedRows: [],
    kvGroup: 1,
    factors: new Float32Array(3).fill(0.5), // each head's scale / temperature
  };
  assert.deepEqual({ ...plan, scale: undefined }, { headWidth: 4, valueWidth: 4, scale: undefined, mayOverflow: false, ...rules });
  assert.equal(plan.scale, Math.fround(1 / Math.sqrt(4)));
  assert.equal(lab.flashPlan({ Q, K, V, heads: 2, scale: 0.25 }).scale, 0.25);
  // d·max|q|·max|k| past half of float32's largest: 4 · 1e19 · 1e19 = 4e38 with one head of 4.
  const big = (value) => ({ rows: 2, cols: 4, data: new Float32Array(8).fill(value) });
  assert.equal(lab.flashPlan({ Q: big(1e19), K: big(1e19), V: big(1), scale: 1 }).mayOverflow, true);
  assert.equal(lab.flashPlan({ Q: big(1e18), K: big(1e18), V: big(1), scale: 1 }).mayOverflow, false);
  assert.equal(errorOf(() => lab.flashPlan({ Q, K, V, heads: 5 })).code, 'invalid-argument');
});
