// longLinearAttention() and longRetention() through the packed package: a seeded fuzz against a
// float64 recurrence written here (heads, kvHeads, batch, chunk boundaries, causal and not), the
// small entries (linearAttention(), retention()) head by head, and their coded errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab, errorOf } from './support/package.js';

const lab = await attnlab.createAttnLab();

// rows × cols draws of N(0, spread²) from the core's seeded generator, flat: the same float32
// numbers the float64 oracle reads.
function matrix(rows, cols, seed, spread = 1) {
  const m = lab.normalMatrix({ rows, cols, seed });
  return { rows, cols, data: m.data.map((x) => x * spread) };
}

// S_t = γ·S_{t−1} + φ(k_t)v_tᵀ, z_t = z_{t−1} + φ(k_t) in float64 per (sequence, head); linear
// attention reads φ(q)ᵀS / φ(q)ᵀz (non-causal: after the last key), retention qᵀS.
function reference(Q, K, V, c) {
  const kv = c.kvHeads || c.heads;
  const [d, dv] = [Q.cols / c.heads, V.cols / kv];
  const [nq, nk] = [Q.rows / c.batch, K.rows / c.batch];
  const phi = (x) => (c.retention ? x : c.featureMap === 'relu' ? Math.max(x, 0) : x > 0 ? x + 1 : Math.exp(x));
  const out = new Float64Array(Q.rows * c.heads * dv);
  for (let s = 0; s < c.batch; s++)
    for (let h = 0; h < c.heads; h++) {
      const g = Math.floor(h / (c.heads / kv));
      const S = new Float64Array(d * dv);
      const z = new Float64Array(d);
      const read = (i) => {
        const row = s * nq + i;
        const fq = Array.from({ length: d }, (_, a) => phi((c.scale ?? 1) * Q.data[row * Q.cols + h * d + a]));
        const den = fq.reduce((sum, f, a) => sum + f * z[a], 0);
        for (let col = 0; col < dv; col++) {
          let num = 0;
          for (let a = 0; a < d; a++) num += fq[a] * S[a * dv + col];
          out[row * c.heads * dv + h * dv + col] = c.retention ? num : den === 0 ? 0 : num / den;
        }
      };
      for (let t = 0; t < nk; t++) {
        const row = s * nk + t;
        for (let a = 0; a < d; a++) {
          const f = phi(K.data[row * K.cols + g * d + a]);
          z[a] += f;
          for (let col = 0; col < dv; col++) S[a * dv + col] = S[a * dv + col] * (c.retention ? c.decay : 1) + f * V.data[row * V.cols + g * dv + col];
        }
        if (c.causal) read(t);
      }
      if (!c.causal) for (let i = 0; i < nq; i++) read(i);
    }
  return out;
}

// max |a − b| / max(1, max |b|).
function relativeError(actual, expected) {
  let [worst, biggest] = [0, 1];
  for (let i = 0; i < expected.length; i++) {
    worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
    biggest = Math.max(biggest, Math.abs(expected[i]));
  }
  return worst / biggest;
}

test('longLinearAttention and longRetention: 24 seeded cases within 1e-5 of float64', () => {
  let worst = 0;
  for (let seed = 1; seed <= 24; seed++) {
    const retention = seed % 3 === 0;
    const c = {
      retention,
      featureMap: seed % 2 ? 'elu' : 'relu',
      causal: retention || seed % 4 < 2,
      heads: seed % 5 === 0 ? 1 : 4,
      batch: seed % 7 === 0 ? 2 : 1,
      decay: seed % 6 === 0 ? 1 : 0.9,
      chunk: [1, 7, 16, 0][seed % 4],
    };
    c.kvHeads = c.heads === 4 && seed % 2 === 0 ? 2 : 0;
    if (!retention && seed % 5 === 1) c.scale = 0.5;
    const n = 1 + ((seed * 37) % 150);
    const kv = c.kvHeads || c.heads;
    const keys = c.causal ? n : n + 5;
    const spread = retention ? 0.3 : 1;
    const [Q, K, V] = [
      matrix(n * c.batch, 8 * c.heads, 3 * seed, spread),
      matrix(keys * c.batch, 8 * kv, 3 * seed + 1, spread),
      matrix(keys * c.batch, 4 * kv, 3 * seed + 2),
    ];
    const layout = { Q, K, V, heads: c.heads, kvHeads: c.kvHeads, batch: c.batch, chunk: c.chunk };
    const r = retention
      ? lab.longRetention({ ...layout, decay: c.decay })
      : lab.longLinearAttention({ ...layout, featureMap: c.featureMap, causal: c.causal, ...(c.scale ? { scale: c.scale } : {}) });
    assert.equal(r.output.rows, n * c.batch);
    assert.equal(r.output.cols, 4 * c.heads);
    const e = relativeError(r.output.data, reference(Q, K, V, c));
    assert.ok(e < 1e-5, `seed ${seed}: ${e}`);
    worst = Math.max(worst, e);
  }
  console.log(`long linear kernels in wasm: worst relative error against float64 ${worst.toExponential(2)}`);
});

test('the long kernels equal linearAttention() and retention() head by head', () => {
  const [Q, K, V] = [matrix(60, 16, 99), matrix(60, 16, 100), matrix(60, 8, 101)];
  const nested = (m, first, width) => Array.from({ length: m.rows }, (_, r) => Array.from(m.data.subarray(r * m.cols + first, r * m.cols + first + width)));
  const long = lab.longLinearAttention({ Q, K, V, heads: 2, causal: true, chunk: 16 }).output;
  const longRetention = lab.longRetention({ Q, K, V, heads: 2, decay: 0.8 }).output;
  for (let h = 0; h < 2; h++) {
    const head = { Q: nested(Q, 8 * h, 8), K: nested(K, 8 * h, 8), V: nested(V, 4 * h, 4) };
    const small = lab.linearAttention({ ...head, causal: true }).output.flat();
    const smallRetention = lab.retention({ ...head, decay: 0.8 }).output.flat();
    assert.ok(relativeError(nested(long, 4 * h, 4).flat(), small) < 1e-5);
    assert.ok(relativeError(nested(longRetention, 4 * h, 4).flat(), smallRetention) < 1e-5);
  }
});

test('the long kernels refuse bad requests with coded errors naming the field', () => {
  const [Q, K, V] = [matrix(8, 4, 5), matrix(8, 4, 6), matrix(8, 4, 7)];
  const cases = [
    [() => lab.longLinearAttention({ Q, K, V, featureMap: 'favor' }), 'invalid-argument', 'featureMap'],
    [() => lab.longLinearAttention({ Q, K, V, chunk: lab.limits().longChunk + 1 }), 'too-large', 'chunk'],
    [() => lab.longLinearAttention({ Q, K: matrix(9, 4, 8), V: matrix(9, 4, 9), causal: true }), 'shape-mismatch', 'rows'],
    [() => lab.longLinearAttention({ Q, K, V, heads: 3 }), 'invalid-argument', 'heads'],
    [() => lab.longRetention({ Q, K, V }), 'invalid-argument', 'decay'],
    [() => lab.longRetention({ Q, K, V, decay: 1.5 }), 'invalid-argument', 'decay'],
  ];
  for (const [call, code, field] of cases) {
    const error = errorOf(call);
    assert.equal(error.code, code, error.message);
    assert.ok(error.message.includes(field), error.message);
  }
});

test('the threaded core: the same bits on 1 and 2 threads as the single-threaded core', async () => {
  const threaded = await attnlab.createAttnLab({ threads: true });
  const [Q, K, V] = [matrix(512, 128, 11), matrix(512, 128, 12), matrix(512, 128, 13)];
  for (const causal of [false, true]) {
    const request = { Q, K, V, heads: 4, causal, chunk: 48 };
    const single = lab.longLinearAttention(request).output.data;
    for (const threads of [1, 2])
      assert.deepEqual(threaded.longLinearAttention({ ...request, threads }).output.data, single, `causal ${causal}, ${threads} threads`);
  }
  const retained = lab.longRetention({ Q, K, V, heads: 4, decay: 0.95 }).output.data;
  assert.deepEqual(threaded.longRetention({ Q, K, V, heads: 4, decay: 0.95, threads: 2 }).output.data, retained);
});
