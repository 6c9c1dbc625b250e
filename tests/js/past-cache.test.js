// A past KV cache (pastKey, pastValue: ONNX Attention's past_key/past_value) through the
// package: attention(), trace() (K and V labelled with the cache's rows) and decode()
// continuing from the cache, against a float64 reference written here: softmax over the
// cached keys followed by the new ones, query i at position n_past + i (bottom-right causal).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab, errorOf } from './support/package.js';

const lab = await attnlab.createAttnLab();

const matrix = (rows, cols, seed, scale = 1) =>
  Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => scale * (Math.sin(seed * 1000 + (r * cols + c) * 12.9898) % 1)));
const columns = (m, first, count) => m.map((row) => row.slice(first, first + count));

// One head, float64: queries at positions offset + i over every key, causal.
function offsetCausal(Q, K, V, offset) {
  const d = Q[0].length;
  return Q.map((q, i) => {
    const seen = K.slice(0, offset + i + 1);
    const logits = seen.map((k) => q.reduce((acc, x, c) => acc + x * k[c], 0) / Math.sqrt(d));
    const max = Math.max(...logits);
    const e = logits.map((x) => Math.exp(x - max));
    const sum = e.reduce((a, b) => a + b, 0);
    return V[0].map((_, c) => e.reduce((acc, w, j) => acc + (w / sum) * V[j][c], 0));
  });
}

const close = (got, want, tolerance, what) => {
  assert.equal(got.length, want.length, `${what}: rows`);
  got.forEach((row, i) => row.forEach((x, c) => assert.ok(Math.abs(x - want[i][c]) <= tolerance, `${what} (${i + 1}, ${c + 1}): ${x} vs ${want[i][c]}`)));
};

test('attention(): the new keys are appended to the cache, the queries the last of them', () => {
  const [Q, K, V] = [matrix(4, 6, 1), matrix(11, 6, 2), matrix(11, 3, 3)];
  const request = { Q, K: K.slice(7), V: V.slice(7), pastKey: K.slice(0, 7), pastValue: V.slice(0, 7), causal: true };
  const got = lab.attention(request);
  assert.equal(got.weights[0].length, 11);
  close(got.output, offsetCausal(Q, K, V, 7), 1e-5, 'bottom-right (the default with a cache)');
  assert.equal(got.weights[0][8], 0);
  const topLeft = lab.attention({ ...request, causalAlignment: 'top-left' });
  close(topLeft.output, offsetCausal(Q, K, V, 0), 1e-5, 'top-left, asked for');
});

test('decode() from a past cache of 100 tokens equals the last rows of the full causal trace', () => {
  const past = 100;
  const fresh = 10;
  const n = past + fresh;
  const [Q, K, V] = [matrix(n, 8, 4), matrix(n, 4, 5), matrix(n, 3, 6)]; // 2 heads over 1 K/V head
  const full = lab.trace({ Q, K, V, heads: 2, kvHeads: 1, causal: true });
  const cache = { pastKey: K.slice(0, past), pastValue: V.slice(0, past) };
  const next = { Q: Q.slice(past), K: K.slice(past), V: V.slice(past), heads: 2, kvHeads: 1, ...cache };
  const decoded = lab.decode(next);
  assert.equal(decoded.steps.length, fresh);
  assert.equal(decoded.steps[0].position, past);
  assert.equal(decoded.steps.at(-1).heads[0].keys.length, n);
  close(decoded.output, full.output.slice(past), 1e-5, 'decode vs the full trace');
  for (let h = 0; h < 2; h++) {
    close(columns(decoded.output, 3 * h, 3), offsetCausal(columns(Q.slice(past), 4 * h, 4), K, V, past), 1e-5, `head ${h + 1} vs float64`);
  }
  // The trace from the same cache: its scores' K holds the cache's rows, labelled, then the new ones.
  const cached = lab.trace({ ...next, causal: true });
  close(cached.output, full.output.slice(past), 1e-5, 'the trace from the cache');
  const scores = cached.steps.find((s) => s.id === 'scores');
  const keys = scores.operands[1];
  assert.equal(keys.pastRows, past);
  assert.deepEqual(keys.shape, [n, 4]);
  assert.equal(full.steps.find((s) => s.id === 'scores').operands[1].pastRows, undefined);
});

test("the cache's errors name it and its shape", () => {
  const [Q, K, V] = [matrix(3, 4, 7), matrix(3, 4, 8), matrix(3, 2, 9)];
  assert.match(errorOf(() => lab.attention({ Q, K, V, pastKey: matrix(2, 4, 1) })).message, /pastKey and pastValue go together/);
  const shape = errorOf(() => lab.attention({ Q, K, V, pastKey: matrix(2, 4, 1), pastValue: matrix(2, 3, 2) }));
  assert.equal(shape.code, 'shape-mismatch');
  assert.match(shape.message, /pastValue \(2×3\)/);
  assert.match(errorOf(() => lab.attention({ Q, K, V, pastKey: 'rows' })).message, /pastKey/);
  const long = errorOf(() =>
    lab.decode({ Q, K, V, heads: 1, pastKey: matrix(lab.limits().decodeKeys, 4, 1), pastValue: matrix(lab.limits().decodeKeys, 2, 2) }),
  );
  assert.equal(long.code, 'too-large');
  assert.match(
    errorOf(() => lab.decode({ Q, K, V, heads: 1, pastKey: matrix(2, 4, 1), pastValue: matrix(2, 2, 2), causalAlignment: 'top-left' })).message,
    /bottom-right/,
  );
});
