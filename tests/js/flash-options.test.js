// flashAttention() and naiveAttention() with every option a real model sets (grouped K/V heads,
// bottom-right causal, an asymmetric window, key padding, softcap, a bias with −Infinity cells,
// ALiBi), against a float64 reference written here from the frameworks' definitions and against
// attention() and the trace on the same inputs.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { referenceWeights } from '../support/float64-long.js';
import { attnlab, errorOf, maxAbsDiff } from './support/package.js';

const lab = await attnlab.createAttnLab();

function matrix(rows, cols, seed, scale = 1) {
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < data.length; i++) data[i] = scale * (Math.sin(seed * 1000 + i * 12.9898) % 1);
  return { rows, cols, data };
}
const nested = ({ rows, cols, data }) => Array.from({ length: rows }, (_, r) => Array.from(data.subarray(r * cols, (r + 1) * cols)));
const columns = (m, first, width) => nested(m).map((row) => row.slice(first, first + width));

// 4 query heads over 2 K/V heads (d = 16, d_v = 8), causal bottom-right with 64 more keys than
// queries, a window of 300 keys behind and 2 ahead, every 9th key padding, softcap 4, ALiBi, and
// a bias with one −Infinity cell per row and row 5 blocked whole.
function problem(nQ) {
  const nK = nQ + 64;
  const bias = matrix(nQ, nK, 4, 0.5);
  for (let i = 0; i < nQ; i++) bias.data[i * nK + ((i * 7919) % nK)] = -Infinity;
  bias.data.fill(-Infinity, 5 * nK, 6 * nK);
  return {
    Q: matrix(nQ, 64, 1, 2),
    K: matrix(nK, 32, 2),
    V: matrix(nK, 16, 3),
    bias,
    heads: 4,
    kvHeads: 2,
    causal: true,
    causalAlignment: 'bottom-right',
    window: { left: 300, right: 2 },
    keyPadding: Array.from({ length: nK }, (_, j) => j % 9 === 4),
    softcap: 4,
    alibi: true,
  };
}

// Row i of query head h in float64, or null when no key is allowed.
function referenceRow(r, h, i) {
  const { Q, K, V, bias } = r;
  const p = i + K.rows - Q.rows;
  const g = h >> 1;
  const slope = r.alibi ? 2 ** ((-8 * (h + 1)) / r.heads) : 0;
  const logits = [];
  for (let j = 0; j < K.rows; j++) {
    const b = bias.data[i * K.rows + j];
    if (j > p || j < p - r.window.left || j > p + r.window.right || r.keyPadding[j] || b === -Infinity) continue;
    let s = 0;
    for (let c = 0; c < 16; c++) s += Q.data[i * 64 + h * 16 + c] * K.data[j * 32 + g * 16 + c];
    s /= 4; // 1/√16
    s = r.softcap * Math.tanh(s / r.softcap);
    logits.push([j, s - slope * Math.abs(p - j) + b]);
  }
  if (logits.length === 0) return null;
  const max = Math.max(...logits.map(([, x]) => x));
  const weights = logits.map(([j, x]) => [j, Math.exp(x - max)]);
  const sum = weights.reduce((a, [, w]) => a + w, 0);
  return Array.from({ length: 8 }, (_, c) => weights.reduce((a, [j, w]) => a + (w / sum) * V.data[j * 16 + g * 8 + c], 0));
}

function checkAgainstReference(result, r, what) {
  let worst = 0;
  for (let i = 0; i < r.Q.rows; i += i < 8 ? 1 : 61) {
    for (let h = 0; h < 4; h++) {
      const want = referenceRow(r, h, i);
      assert.equal(result.fullyMaskedRows.includes(i), want === null, `${what}: row ${i} listed as fully masked`);
      for (let c = 0; c < 8; c++) worst = Math.max(worst, Math.abs(result.output.data[i * 32 + h * 8 + c] - (want ? want[c] : 0)));
    }
  }
  assert.ok(worst <= 1e-5, `${what}: max abs error ${worst}`);
}

test('flashAttention with every option matches float64 (1,984 queries over 2,048 keys)', () => {
  const r = problem(1984); // wasm's work limit: 2^24 scores per call
  const flash = lab.flashAttention(r);
  checkAgainstReference(flash, r, 'flash');
  assert.equal(flash.fullyMaskedRows[0], 5);
  assert.ok(flash.output.data.subarray(5 * 32, 6 * 32).every((x) => x === 0));
});

test('flash, naive and attention() agree on every option', () => {
  const r = problem(200);
  const flash = lab.flashAttention(r);
  const naive = lab.naiveAttention(r);
  checkAgainstReference(naive, r, 'naive');
  assert.ok(maxAbsDiff(nested(flash.output), nested(naive.output)) <= 1e-5);
  const { alibi, ...withoutAlibi } = r;
  const plain = lab.flashAttention(withoutAlibi);
  const bias = nested(r.bias);
  for (let h = 0; h < 4; h++) {
    const one = lab.attention({
      Q: columns(r.Q, h * 16, 16),
      K: columns(r.K, (h >> 1) * 16, 16),
      V: columns(r.V, (h >> 1) * 8, 8),
      causal: true,
      causalAlignment: 'bottom-right',
      window: r.window,
      keyPadding: r.keyPadding,
      softcap: r.softcap,
      bias,
    });
    assert.ok(maxAbsDiff(columns(plain.output, h * 8, 8), one.output) <= 1e-5, `head ${h + 1}`);
  }
});

test("flashAttention: the options' errors name them", () => {
  const [Q, K, V] = [matrix(6, 8, 1), matrix(9, 8, 2), matrix(9, 8, 3)];
  const bias = errorOf(() => lab.flashAttention({ Q, K, V, heads: 1, bias: matrix(6, 8, 4) }));
  assert.equal(bias.code, 'shape-mismatch');
  assert.match(bias.message, /bias \(6×8\) must be 6×9/);
  assert.match(errorOf(() => lab.flashAttention({ Q, K, V, heads: 1, keyPadding: [true] })).message, /key padding has 1 flags/);
  assert.match(errorOf(() => lab.flashAttention({ Q, K, V, heads: 1, softcap: -1 })).message, /softcap/);
  assert.match(errorOf(() => lab.flashAttention({ Q, K, V, heads: 1, alibi: 'yes' })).message, /alibi/);
});

test('sampledCells takes every option: its weights, hidden cells and visible keys against float64', () => {
  const r = problem(150);
  const rows = [0, 5, 7, 64, 149];
  const cols = [0, 3, 60, 63, 64, 70, 150, 213];
  const perHead = matrix(4 * 150, 214, 9, 0.5);
  perHead.data.fill(-Infinity, (150 + 7) * 214, (150 + 8) * 214); // row 7 blocked in head 1
  for (const request of [r, { ...r, bias: perHead }]) {
    for (let head = 0; head < 4; head++) {
      const { V, ...withoutV } = request; // sampledWeights takes Q and K
      const { weights, hidden, visibleKeys } = lab.sampledCells({ ...withoutV, head, rows, cols });
      rows.forEach((i, k) => {
        const want = referenceWeights(request, head, i);
        assert.equal(visibleKeys[k], want ? want.filter((w) => w > 0).length : 0, `head ${head}, row ${i}: visible keys`);
        cols.forEach((j, c) => {
          const expected = want ? want[j] : 0;
          assert.ok(Math.abs(weights[k][c] - expected) <= 1e-6, `head ${head}, row ${i}, key ${j}: ${weights[k][c]} vs ${expected}`);
          assert.equal(hidden[k][c], expected === 0, `head ${head}, row ${i}, key ${j}: hidden`);
        });
      });
    }
  }
});
