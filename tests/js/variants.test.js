// The attention variants through the packed package: the trace's window, globalTokens, rope,
// ropeBase, alibi, kvHeads, dropout, dropoutSeed and context, lab.decode() and
// lab.kvCacheBytes(), each against a float64 loop written here; bad values are AttnLabError
// naming the field.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab, errorOf } from './support/package.js';
import { maxAbsDiff } from '../support/compare.js';
import { product } from '../support/float64-efficient.js';

const lab = await attnlab.createAttnLab();

const nested = (m) => Array.from({ length: m.rows }, (_, r) => Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols)));
const random = (rows, cols, seed) => nested(lab.normalMatrix({ rows, cols, seed }));
const columns = (m, first, count) => m.map((row) => row.slice(first, first + count));

// Pair (2i, 2i+1) of row p turned by p·base^(−2i/d).
function rope(m, base) {
  const d = m[0].length;
  return m.map((row, p) =>
    row.map((x, c) => {
      const i = Math.floor(c / 2);
      const a = p * base ** ((-2 * i) / d);
      return c % 2 === 0 ? x * Math.cos(a) - row[c + 1] * Math.sin(a) : row[c - 1] * Math.sin(a) + x * Math.cos(a);
    }),
  );
}

// Multi-head attention in float64 with every variant: { heads, kvHeads, causal, window,
// globalTokens, rope, ropeBase, alibi, keep (the core's masks, per head), dropout }.
function reference(Q, K, V, o) {
  const heads = o.heads ?? 1;
  const kv = o.kvHeads || heads;
  const dk = Q[0].length / heads;
  const dv = V[0].length / kv;
  const global = new Set(o.globalTokens ?? []);
  const outputs = [];
  for (let h = 0; h < heads; h++) {
    const g = Math.floor(h / (heads / kv));
    let q = columns(Q, h * dk, dk);
    let k = columns(K, g * dk, dk);
    if (o.rope) [q, k] = [rope(q, o.ropeBase ?? 10000), rope(k, o.ropeBase ?? 10000)];
    const v = columns(V, g * dv, dv);
    const slope = 2 ** ((-8 * (h + 1)) / heads);
    outputs.push(
      q.map((qi, i) => {
        const logits = k.map((kj, j) => {
          const far = o.window > 0 && Math.abs(i - j) >= o.window && !global.has(i) && !global.has(j);
          if ((o.causal && j > i) || far) return -Infinity;
          const s = qi.reduce((acc, x, c) => acc + x * kj[c], 0) / Math.sqrt(dk);
          return o.alibi ? s - slope * Math.abs(i - j) : s;
        });
        const max = Math.max(...logits);
        const e = logits.map((s) => Math.exp(s - max));
        const sum = e.reduce((a, b) => a + b, 0);
        const w = e.map((x, j) => (o.keep ? (o.keep[h][i][j] ? x / sum / (1 - o.dropout) : 0) : x / sum));
        return v[0].map((_, c) => w.reduce((acc, wj, j) => acc + wj * v[j][c], 0));
      }),
    );
  }
  return Q.map((_, i) => outputs.flatMap((out) => out[i]));
}

test('window and globalTokens in trace() and attention(): the mask step and the output', () => {
  const [Q, K, V] = [random(7, 4, 1), random(7, 4, 2), random(7, 3, 3)];
  const options = { window: 2, globalTokens: [0, 5] };
  const t = lab.trace({ Q, K, V, ...options });
  assert.ok(maxAbsDiff(t.output, reference(Q, K, V, options)) <= 1e-5);
  const mask = t.steps.find((s) => s.id === 'mask');
  assert.equal(mask.blockedBy[1][3], 8); // |1 − 3| = 2: outside the window
  assert.equal(mask.blockedBy[6][0], 0); // key 0 is global
  assert.ok(maxAbsDiff(lab.attention({ Q, K, V, ...options }).output, t.output) <= 1e-6);
});

test('rope, ropeBase, alibi and kvHeads: the rotate and bias steps and the output', () => {
  const [Q, K, V] = [random(5, 8, 4), random(5, 4, 5), random(5, 2, 6)]; // 4 heads of d_k 2, 2 KV heads
  const options = { heads: 4, kvHeads: 2, rope: true, ropeBase: 100, alibi: true, causal: true };
  const t = lab.trace({ Q, K, V, ...options });
  assert.ok(maxAbsDiff(t.output, reference(Q, K, V, options)) <= 1e-5);
  assert.deepEqual(
    t.groups.map((g) => g.id),
    ['rotate-q', 'rotate-k', 'scores', 'scale', 'bias', 'mask', 'softmax', 'aggregate', 'concat'],
  );
  const rotated = t.steps.filter((s) => s.id === 'rotate-q');
  assert.equal(rotated.length, 4);
  assert.ok(maxAbsDiff(rotated[3].values, rope(columns(Q, 6, 2), 100)) <= 1e-6);
  assert.ok(Math.abs(rotated[0].angles[3][0] - 3) <= 1e-6); // position 3 · θ₀ = 3 · 1
  const bias = t.steps.filter((s) => s.id === 'bias');
  bias.forEach((step, h) => assert.ok(Math.abs(step.slope - 2 ** ((-8 * (h + 1)) / 4)) <= 1e-7));
  assert.equal(bias[0].operands[1].name, 'alibi');
  assert.ok(Math.abs(bias[0].operands[1].values[0][3] - -0.25 * 3) <= 1e-7);
});

test('dropout and dropoutSeed: the keep mask, the rescaled weights and their row sums', () => {
  const [Q, K, V] = [random(6, 4, 7), random(6, 4, 8), random(6, 4, 9)];
  const request = { Q, K, V, heads: 2, dropout: 0.4, dropoutSeed: 12 };
  const t = lab.trace(request);
  const dropped = t.steps.filter((s) => s.id === 'dropout');
  const keep = dropped.map((s) => s.keep);
  assert.ok(maxAbsDiff(t.output, reference(Q, K, V, { heads: 2, keep, dropout: 0.4 })) <= 1e-5);
  assert.deepEqual(
    lab
      .trace(request)
      .steps.filter((s) => s.id === 'dropout')
      .map((s) => s.keep),
    keep,
  ); // same seed
  assert.ok(Math.abs(dropped[0].keepScale - 1 / 0.6) <= 1e-6);
  assert.ok(dropped[0].rowTotals.some((sum) => Math.abs(sum - 1) > 1e-3)); // rows no longer sum to 1
  assert.equal(
    lab.trace({ ...request, dropout: 0 }).steps.some((s) => s.id === 'dropout'),
    false,
  );
});

test('context: cross-attention, Q from X, K and V from a sequence of another length', () => {
  const [X, context, Wq, Wk, Wv] = [random(3, 4, 10), random(5, 4, 11), random(4, 4, 12), random(4, 4, 13), random(4, 4, 14)];
  const t = lab.trace({ X, context, Wq, Wk, Wv, heads: 2 });
  assert.ok(maxAbsDiff(t.output, reference(product(X, Wq), product(context, Wk), product(context, Wv), { heads: 2 })) <= 1e-5);
  assert.deepEqual(t.steps.find((s) => s.id === 'scores').shape, [3, 5]);
});

test('decode() token by token equals the causal trace, the cache growing a row per token', () => {
  const [X, Wq, Wk, Wv, Wo] = [random(6, 8, 15), random(8, 8, 16), random(8, 4, 17), random(8, 4, 18), random(8, 3, 19)];
  const request = { X, Wq, Wk, Wv, Wo, heads: 4, kvHeads: 2, rope: true, alibi: true, window: 3 };
  const d = lab.decode(request);
  const full = lab.trace({ ...request, causal: true });
  assert.ok(maxAbsDiff(d.output, full.output) <= 1e-6);
  d.steps.forEach((step, t) => {
    assert.equal(step.position, t);
    assert.equal(step.heads.length, 4);
    for (const head of step.heads) {
      assert.equal(head.keys.length, t + 1);
      assert.equal(head.weights[0].length, t + 1);
      assert.ok(Math.abs(head.weights[0].reduce((a, b) => a + b, 0) - 1) <= 1e-6);
    }
    assert.ok(maxAbsDiff(step.output, [full.output[t]]) <= 1e-6);
  });
  const plain = { Q: random(4, 2, 20), K: random(4, 2, 21), V: random(4, 2, 22) };
  assert.ok(maxAbsDiff(lab.decode(plain).output, reference(plain.Q, plain.K, plain.V, { causal: true })) <= 1e-5);
});

test('kvCacheBytes: Llama 2 70B keeps 2 · 80 · 8 · 128 · 2 = 327,680 bytes per token', () => {
  assert.equal(lab.kvCacheBytes({ layers: 80, kvHeads: 8, headDim: 128, bytesPerValue: 2 }), 2 * 80 * 8 * 128 * 2);
  assert.equal(lab.kvCacheBytes({ layers: 80, kvHeads: 8, headDim: 128, bytesPerValue: 2 }), 327680);
});

// [entry, request, the code, what the message must say]
const [Q, K, V] = [random(3, 4, 30), random(3, 4, 31), random(3, 4, 32)];
const BAD = [
  ['trace', { Q, K, V, window: -1 }, 'invalid-argument', /^window must be a whole number/],
  ['trace', { Q, K, V, window: 2, globalTokens: [3] }, 'invalid-argument', /global token 3/],
  ['trace', { Q, K, V, globalTokens: 'first' }, 'invalid-argument', /^globalTokens must be an array/],
  ['trace', { Q, K, V, rope: 'yes' }, 'invalid-argument', /^rope must be true or false/],
  ['trace', { Q, K, V, rope: true, ropeBase: -1 }, 'invalid-argument', /RoPE base must be a finite number above 0, got -1/],
  ['trace', { Q: random(3, 3, 1), K: random(3, 3, 2), V, rope: true }, 'invalid-argument', /d_k must be even, got d_k = 3/],
  ['trace', { Q, K, V, alibi: 1 }, 'invalid-argument', /^alibi must be true or false/],
  ['trace', { Q, K, V, heads: 2, kvHeads: 3 }, 'invalid-argument', /KV heads must be a whole number from 0 to 2, got 3/],
  ['trace', { Q, K, V, kvHeads: 0.5 }, 'invalid-argument', /^kvHeads must be a whole number from 0 to 64/],
  ['trace', { Q, K, V, dropout: 1 }, 'invalid-argument', /dropout must be a probability from 0 up to \(not including\) 1, got 1/],
  ['trace', { Q, K, V, dropout: NaN }, 'invalid-argument', /dropout must be a probability .* got NaN/],
  ['trace', { Q, K, V, dropoutSeed: -3 }, 'invalid-argument', /^dropoutSeed must be a whole number/],
  ['trace', { Q, K, V, context: Q }, 'invalid-argument', /^context: trace\(\) takes X, Wq, Wk, Wv or Q, K, V, not a mix/],
  ['decode', { Q, K, V, dropout: 0.5 }, 'invalid-argument', /without dropout/],
  ['kvCacheBytes', { layers: 0, kvHeads: 8, headDim: 128, bytesPerValue: 2 }, 'invalid-argument', /^layers must be a whole number from 1 to 256, got 0/],
  ['kvCacheBytes', { layers: 80, kvHeads: 8, headDim: 128 }, 'invalid-argument', /^bytesPerValue must be a whole number from 1 to 8/],
];

test(`bad values are AttnLabError naming the field (${BAD.length} cases)`, () => {
  for (const [entry, request, code, message] of BAD) {
    const error = errorOf(() => lab[entry](request));
    assert.equal(error.code, code, `${entry} ${error.message}`);
    assert.match(error.message, message);
  }
});
