// lab.flashAttention: the flash kernel in wasm gives the same results as lab.attention.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab, maxAbsDiff } from './support/package.js';

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
  const codeOf = (request) => {
    try {
      lab.flashAttention(request);
    } catch (error) {
      assert.ok(error instanceof attnlab.AttnLabError);
      return error.code;
    }
    return 'no error';
  };
  assert.equal(codeOf({ Q: ok, K: matrix(4, 7, 8), V: ok }), 'shape-mismatch');
  assert.equal(codeOf({ Q: ok, K: ok, V: ok, heads: 3 }), 'invalid-argument');
  assert.equal(codeOf({ Q: ok, K: ok, V: ok, heads: 2.5 }), 'invalid-argument');
  assert.equal(codeOf({ Q: { rows: 0, cols: 8, data: new Float32Array(0) }, K: ok, V: ok }), 'empty');
  assert.equal(codeOf({ Q: { rows: 1, cols: 8, data: new Float32Array(8).fill(NaN) }, K: ok, V: ok }), 'non-finite');
  assert.equal(codeOf({ Q: ok, K: ok, V: ok, causal: 'yes' }), 'invalid-argument');
});
