// softcap and bias through the package: attention(), trace() (its softcap and bias steps, one
// bias per head), decode() and attentionBackward(), against the float64 reference of
// support/options-reference.js, written from Gemma 2's soft-capping (c·tanh(s̃ / c)) and the
// frameworks' float attn_mask (added to the scaled scores, −Infinity blocking).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { headReference } from './support/options-reference.js';
import { attnlab, errorOf } from './support/package.js';

const lab = await attnlab.createAttnLab();

const matrix = (rows, cols, seed, scale = 1) =>
  Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => scale * (Math.sin(seed * 1000 + (r * cols + c) * 12.9898) % 1)));

// softmax(cap(Q·Kᵀ/√d) + bias)·V, one head, float64: { output, weights } (the options fuzz's
// reference, written from the documented rules).
const reference = (Q, K, V, { softcap, bias }) => headReference({ Q, K, V, softcap, bias });

const close = (got, want, tolerance, what) =>
  got.forEach((row, i) => row.forEach((x, c) => assert.ok(Math.abs(x - want[i][c]) <= tolerance, `${what} (${i + 1}, ${c + 1}): ${x} vs ${want[i][c]}`)));

test('attention(): softcap and a bias with a −Infinity entry, as float64 computes them', () => {
  const [Q, K, V] = [matrix(4, 6, 1, 3), matrix(5, 6, 2, 3), matrix(5, 3, 3)];
  const bias = matrix(4, 5, 4);
  bias[0][2] = -Infinity;
  const options = { softcap: 2, bias };
  const got = lab.attention({ Q, K, V, ...options });
  const want = reference(Q, K, V, options);
  close(got.weights, want.weights, 1e-6, 'weights');
  close(got.output, want.output, 1e-5, 'output');
  assert.equal(got.weights[0][2], 0);
});

test('trace(): a softcap step and a bias step per head, one bias per head', () => {
  const n = 4;
  const [Q, K, V] = [matrix(n, 8, 5, 3), matrix(n, 8, 6, 3), matrix(n, 6, 7)];
  const bias = matrix(2 * n, n, 8); // head h's rows from h·n
  const t = lab.trace({ Q, K, V, heads: 2, softcap: 1.5, bias });
  const softcaps = t.steps.filter((s) => s.id === 'softcap');
  const biases = t.steps.filter((s) => s.id === 'bias');
  assert.equal(softcaps.length, 2);
  assert.equal(biases.length, 2);
  assert.equal(softcaps[0].softcap, 1.5);
  for (let h = 0; h < 2; h++) {
    const cols = (m, w) => m.map((row) => row.slice(h * w, (h + 1) * w));
    const want = reference(cols(Q, 4), cols(K, 4), cols(V, 3), { softcap: 1.5, bias: bias.slice(h * n, (h + 1) * n) });
    close(cols(t.output, 3), want.output, 1e-5, `head ${h + 1}'s output`);
    for (const row of softcaps[h].values) for (const x of row) assert.ok(Math.abs(x) <= 1.5);
  }
  const steps = lab.decode({ Q, K, V, heads: 2, softcap: 1.5, bias });
  close(steps.output, lab.trace({ Q, K, V, heads: 2, softcap: 1.5, bias, causal: true }).output, 1e-6, 'decode');
});

test('attentionBackward(): through softcap and bias, against finite differences', () => {
  const [Q, K, V] = [matrix(3, 4, 9, 3), matrix(4, 4, 10, 3), matrix(4, 2, 11)];
  const dO = matrix(3, 2, 12);
  const options = { softcap: 2, bias: matrix(3, 4, 13) };
  const g = lab.attentionBackward({ Q, K, V, dO, ...options });
  const loss = (q, k, v) => reference(q, k, v, options).output.reduce((acc, row, i) => acc + row.reduce((a, x, c) => a + x * dO[i][c], 0), 0);
  const h = 1e-6;
  for (const [name, index] of [
    ['dQ', 0],
    ['dK', 1],
    ['dV', 2],
  ]) {
    const inputs = [Q, K, V];
    inputs[index].forEach((row, r) =>
      row.forEach((_, c) => {
        const nudged = (delta) => inputs.map((m, i) => (i === index ? m.map((rr, ri) => rr.map((x, ci) => (ri === r && ci === c ? x + delta : x))) : m));
        const numeric = (loss(...nudged(h)) - loss(...nudged(-h))) / (2 * h);
        assert.ok(Math.abs(g[name][r][c] - numeric) <= 1e-4 * Math.max(1, Math.abs(numeric)), `${name} (${r + 1}, ${c + 1}): ${g[name][r][c]} vs ${numeric}`);
      }),
    );
  }
});

test('bad softcaps and biases are named', () => {
  const [Q, K, V] = [matrix(2, 2, 14), matrix(3, 2, 15), matrix(3, 2, 16)];
  assert.match(errorOf(() => lab.attention({ Q, K, V, softcap: 0 })).message, /softcap/);
  assert.match(errorOf(() => lab.attention({ Q, K, V, softcap: 'big' })).message, /softcap must be a number/);
  assert.match(errorOf(() => lab.attention({ Q, K, V, bias: matrix(3, 2, 17) })).message, /bias \(3×2\) must be 2×3/);
  const bad = matrix(2, 3, 18);
  bad[1][2] = Infinity;
  const positive = errorOf(() => lab.attention({ Q, K, V, bias: bad }));
  assert.equal(positive.code, 'non-finite');
  assert.match(positive.message, /row 2, column 3/);
});
