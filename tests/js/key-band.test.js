// The causal alignment, asymmetric windows and grouped K/V heads through the package: attention(),
// trace(), flashAttention(), naiveAttention() and sampledWeights() against a float64 reference
// written here from the frameworks' documented rules (PyTorch SDPA's causal_lower_right and
// flash-attn's window_size: query i at key i + n_k − n_q sees keys i' − left … i' + right).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab, errorOf } from './support/package.js';

const lab = await attnlab.createAttnLab();

function matrix(rows, cols, seed) {
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < data.length; i++) data[i] = Math.sin(seed * 1000 + i * 12.9898) % 1;
  return { rows, cols, data };
}
const at = (m, r, c) => m.data[r * m.cols + c];

// Whether query i of nQ may see key j of nK.
function allowed({ causal = false, causalAlignment = 'top-left', window }, nQ, nK, i, j) {
  const p = causalAlignment === 'bottom-right' ? i + nK - nQ : i;
  if (causal && j > p) return false;
  if (window === undefined) return true;
  const [left, right] =
    typeof window === 'number' ? (window > 0 ? [window - 1, window - 1] : [Infinity, Infinity]) : [window.left ?? Infinity, window.right ?? Infinity];
  return j >= p - left && j <= p + right;
}

// One head in float64: query head h reads K/V columns of head ⌊h / group⌋. Returns
// { output: rows of d_v numbers, weights, masked: fully masked rows }.
function reference(Q, K, V, options, { heads = 1, kvHeads = heads, h = 0 } = {}) {
  const d = Q.cols / heads,
    dV = V.cols / kvHeads,
    g = Math.floor(h / (heads / kvHeads));
  const scale = 1 / Math.sqrt(d);
  const output = [],
    weights = [],
    masked = [];
  for (let i = 0; i < Q.rows; i++) {
    const logits = [];
    for (let j = 0; j < K.rows; j++) {
      let s = 0;
      for (let c = 0; c < d; c++) s += at(Q, i, h * d + c) * at(K, j, g * d + c);
      logits.push(allowed(options, Q.rows, K.rows, i, j) ? s * scale : -Infinity);
    }
    const max = Math.max(...logits);
    const e = logits.map((x) => (max === -Infinity ? 0 : Math.exp(x - max)));
    const sum = e.reduce((a, b) => a + b, 0);
    const w = e.map((x) => (sum > 0 ? x / sum : 0));
    if (sum === 0) masked.push(i);
    weights.push(w);
    output.push(Array.from({ length: dV }, (_, c) => w.reduce((acc, wj, j) => acc + wj * at(V, j, g * dV + c), 0)));
  }
  return { output, weights, masked };
}

const CASES = [
  { causal: true, causalAlignment: 'bottom-right' },
  { window: 4 },
  { window: { left: 9, right: 2 } },
  { window: { right: 0 } },
  { causal: true, causalAlignment: 'bottom-right', window: { left: 5 } },
  { causalAlignment: 'bottom-right', window: { left: 1, right: 1 } },
];

for (const options of CASES) {
  const label = JSON.stringify(options);
  test(`attention() and trace() take ${label}`, () => {
    const [Q, K, V] = [matrix(6, 8, 1), matrix(11, 8, 2), matrix(11, 5, 3)];
    const ref = reference(Q, K, V, options);
    const got = lab.attention({ Q, K, V, ...options });
    got.output.forEach((row, i) => row.forEach((x, c) => assert.ok(Math.abs(x - ref.output[i][c]) <= 1e-5, `output (${i}, ${c})`)));
    assert.deepEqual(got.fullyMaskedRows, ref.masked);
    const trace = lab.trace({ Q, K, V, ...options });
    const mask = trace.steps.find((s) => s.id === 'mask');
    assert.ok(mask, 'the trace has a mask step');
    for (let i = 0; i < 6; i++) for (let j = 0; j < 11; j++) assert.equal(mask.blockedBy[i][j] === 0, allowed(options, 6, 11, i, j), `mask (${i}, ${j})`);
  });

  test(`flashAttention, naiveAttention and sampledWeights take ${label} with kvHeads`, () => {
    const heads = 4,
      kvHeads = 2,
      d = 8,
      dV = 6,
      nQ = 90,
      nK = 150;
    const [Q, K, V] = [matrix(nQ, heads * d, 4), matrix(nK, kvHeads * d, 5), matrix(nK, kvHeads * dV, 6)];
    const request = { Q, K, V, heads, kvHeads, ...options };
    const flash = lab.flashAttention(request);
    const naive = lab.naiveAttention(request);
    assert.deepEqual([flash.output.rows, flash.output.cols], [nQ, heads * dV]);
    for (let h = 0; h < heads; h++) {
      const ref = reference(Q, K, V, options, { heads, kvHeads, h });
      for (const [name, result] of [
        ['flash', flash],
        ['naive', naive],
      ]) {
        let worst = 0;
        for (let i = 0; i < nQ; i++) for (let c = 0; c < dV; c++) worst = Math.max(worst, Math.abs(at(result.output, i, h * dV + c) - ref.output[i][c]));
        assert.ok(worst <= 1e-5, `${name}, head ${h}: max abs diff ${worst}`);
        if (h === 0) assert.deepEqual(result.fullyMaskedRows, ref.masked, `${name}'s fully masked rows`);
      }
      const rows = [0, 45, 89],
        cols = [0, 70, 149];
      const sampled = lab.sampledWeights({ Q, K, heads, kvHeads, ...options, head: h, rows, cols });
      rows.forEach((i, r) => cols.forEach((j, c) => assert.ok(Math.abs(sampled[r][c] - ref.weights[i][j]) <= 1e-6, `sampled (${i}, ${j})`)));
    }
  });
}

test('bad alignments, windows and kvHeads are named', () => {
  const [Q, K, V] = [matrix(4, 8, 7), matrix(4, 8, 8), matrix(4, 8, 9)];
  const bad = (request) => errorOf(() => lab.attention({ Q, K, V, ...request }));
  assert.match(bad({ causalAlignment: 'bottom' }).message, /causalAlignment must be 'top-left' or 'bottom-right'/);
  assert.match(bad({ window: { left: -1 } }).message, /window\.left/);
  assert.match(bad({ window: { lef: 2 } }).message, /did you mean left/);
  assert.match(bad({ window: 'wide' }).message, /window must be a whole number or \{ left, right \}/);
  const long = errorOf(() => lab.flashAttention({ Q: matrix(4, 16, 1), K: matrix(4, 8, 2), V: matrix(4, 8, 3), heads: 2, kvHeads: 3 }));
  assert.equal(long.code, 'invalid-argument');
  assert.match(long.message, /kvHeads \(3\) must divide heads \(2\)/);
});
