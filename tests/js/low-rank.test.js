// lab.lowRankAttention() from the packed package against float64 oracles: softmax attention
// by its definition, the singular values and A_k from the eigen-decomposition of the Gram
// matrix A·Aᵀ (or Aᵀ·A) by the cyclic Jacobi eigenvalue method (svdReference, shared with
// fuzz-efficient.test.js in tests/support/float64-efficient.js), Linformer by its definition;
// a seeded fuzz over shapes, methods and ranks; every bad input refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { random } from './support/fuzz-requests.js';
import { attnlab } from './support/package.js';
import { drawnMatrix, uniformDraws } from './support/seeded-rows.js';
import { f32, product, relativeError, svdReference } from '../support/float64-efficient.js';

const lab = await attnlab.createAttnLab();
const { AttnLabError } = attnlab;

const TOLERANCE = 1e-5;
const frobenius = (a, b) => Math.sqrt(a.flat().reduce((s, x, c) => s + (x - (b ? b.flat()[c] : 0)) ** 2, 0));

/** softmax(scale·Q·Kᵀ) in float64, keys after the query hidden when causal. */
function softmaxWeights(Q, K, scale, causal) {
  return Q.map((q, i) => {
    const seen = causal ? Math.min(i + 1, K.length) : K.length;
    const scores = K.slice(0, seen).map((k) => scale * q.reduce((s, x, a) => s + x * k[a], 0));
    const top = Math.max(...scores);
    const e = scores.map((s) => Math.exp(s - top));
    const sum = e.reduce((s, x) => s + x, 0);
    return K.map((_, j) => (j < seen ? e[j] / sum : 0));
  });
}

function svdCase(Q, K, V, { rank, causal = false, scale }) {
  const r = lab.lowRankAttention({ Q, K, V, rank, causal, scale });
  const s = r.scale;
  const A = softmaxWeights(f32(Q), f32(K), s, causal);
  const errors = { A: relativeError(r.exactWeights, A), exactOutput: relativeError(r.exactOutput, product(A, f32(V))) };
  const ref = svdReference(r.exactWeights); // the core's float32 A, decomposed here
  let sigma = 0;
  ref.sigma.forEach((want, i) => {
    const got = r.singularValues[i];
    // Relative to σ_i; below 1e-2·σ_1 within 1e-7·σ_1: the Gram matrix squares A's condition,
    // so its small σ carry errors near √ε·σ_1 (the C++ test checks them relative down to 1e-9·σ_1).
    sigma = Math.max(sigma, Math.abs(got - want) / Math.max(want, 1e-2 * ref.sigma[0]));
    if (i) assert.ok(got <= r.singularValues[i - 1], 'descending');
  });
  errors.sigma = sigma;
  const Ak = ref.truncated(rank);
  errors.weights = relativeError(r.weights, Ak);
  errors.output = relativeError(r.output, product(Ak, f32(V)));
  const tail = Math.sqrt(ref.sigma.slice(rank).reduce((t, x) => t + x * x, 0));
  errors.eckartYoung = Math.max(Math.abs(r.weightsError - r.spectrumError), Math.abs(r.weightsError - tail));
  errors.outputError = Math.abs(r.outputError - frobenius(r.output, r.exactOutput)) / Math.max(1, r.outputError);
  return { r, errors };
}

function linformerCase(Q, K, V, request) {
  const r = lab.lowRankAttention({ Q, K, V, method: 'linformer', ...request });
  const [E, F] = [r.E, r.F].map(f32);
  const P = softmaxWeights(f32(Q), product(E, f32(K)), r.scale, false);
  const W = product(P, F);
  const errors = {
    projected: relativeError(r.projectedWeights, P),
    weights: relativeError(r.weights, W),
    output: relativeError(r.output, product(P, product(F, f32(V)))),
    weightsError: Math.abs(r.weightsError - frobenius(W, softmaxWeights(f32(Q), f32(K), r.scale, false))) / Math.max(1, r.weightsError),
  };
  return { r, errors };
}

test('lowRankAttention svd: σ, A_k, A_k·V and Eckart–Young within 1e-5 of float64; rank = n gives A back', () => {
  const worst = {};
  let seed = 10;
  for (const causal of [false, true])
    for (const [nQ, nK, d] of [
      [1, 1, 1],
      [3, 7, 2],
      [8, 8, 4],
      [12, 5, 6],
      [20, 20, 8],
    ])
      for (let rank = 1; rank <= Math.min(nQ, nK); rank = rank < 3 ? rank + 1 : rank * 2) {
        const draw = uniformDraws(seed++);
        const [Q, K, V] = [drawnMatrix(nQ, d, draw), drawnMatrix(nK, d, draw), drawnMatrix(nK, 3, draw)];
        const { r, errors } = svdCase(Q, K, V, { rank, causal, scale: seed % 3 ? undefined : 0.7 });
        for (const [name, e] of Object.entries(errors)) {
          assert.ok(e <= TOLERANCE, `${name} ${e} (${nQ}×${nK}, rank ${rank}, causal ${causal})`);
          worst[name] = Math.max(worst[name] ?? 0, e);
        }
        assert.equal(r.rank, rank);
        assert.equal(r.singularValues.length, Math.min(nQ, nK));
        assert.equal(r.E, undefined);
      }
  for (const [nQ, nK] of [
    [9, 9],
    [4, 11],
    [11, 4],
  ]) {
    const draw = uniformDraws(seed++);
    const r = lab.lowRankAttention({
      Q: drawnMatrix(nQ, 4, draw),
      K: drawnMatrix(nK, 4, draw),
      V: drawnMatrix(nK, 2, draw),
      rank: Math.min(nQ, nK),
      causal: true,
    });
    assert.ok(relativeError(r.weights, r.exactWeights) <= TOLERANCE, 'A back');
    assert.ok(relativeError(r.output, r.exactOutput) <= TOLERANCE, 'A·V back');
    assert.equal(r.spectrumError, 0);
  }
  console.log(
    `lowRankAttention svd vs float64: ${Object.entries(worst)
      .map(([k, e]) => `${k} ${e.toExponential(2)}`)
      .join(', ')}`,
  );
});

test('lowRankAttention linformer: softmax(Q·(E·K)ᵀ·scale)·(F·V) within 1e-5 of float64; seeded E, F; E = F = I is exact', () => {
  const draw = uniformDraws(77);
  const [Q, K, V] = [drawnMatrix(10, 4, draw), drawnMatrix(16, 4, draw), drawnMatrix(16, 3, draw)];
  const own = { E: drawnMatrix(5, 16, draw), F: drawnMatrix(5, 16, draw) };
  for (const request of [{ rank: 5, ...own }, { rank: 5, seed: 3 }, { rank: 16, seed: 9, scale: 0.25 }, { rank: 1 }]) {
    const { r, errors } = linformerCase(Q, K, V, request);
    for (const [name, e] of Object.entries(errors)) assert.ok(e <= TOLERANCE, `${name} ${e} (${JSON.stringify(Object.keys(request))})`);
    assert.equal(r.singularValues.length, 0);
    assert.equal(r.spectrumError, undefined);
    if (request.E) assert.ok(relativeError(r.E, own.E) <= 1e-7);
  }
  const again = (seed) => lab.lowRankAttention({ Q, K, V, method: 'linformer', rank: 4, seed });
  assert.deepEqual(again(3).E, again(3).E);
  assert.notDeepEqual(again(3).E, again(4).E);
  const identity = K.map((_, i) => K.map((_, j) => (i === j ? 1 : 0)));
  const exact = lab.lowRankAttention({ Q, K, V, method: 'linformer', rank: 16, E: identity, F: identity });
  assert.ok(relativeError(exact.output, exact.exactOutput) <= TOLERANCE);
  // The output error as k grows, Linformer's seeded projections beside the SVD's A_k.
  const rows = [1, 2, 4, 8, 16].map((rank) => {
    const lin = [1, 2, 3, 4].map((seed) => lab.lowRankAttention({ Q, K, V, method: 'linformer', rank, seed }).outputError);
    const svd = rank <= 10 ? lab.lowRankAttention({ Q, K, V, rank }).outputError.toFixed(4) : 'none (k > n_q)';
    return `k ${rank}: svd ${svd}, linformer (mean of 4 seeds) ${(lin.reduce((s, x) => s + x, 0) / 4).toFixed(4)}`;
  });
  console.log(`‖output − A·V‖_F, 10 queries × 16 keys: ${rows.join('; ')}`);
});

test('lowRankAttention: a seeded fuzz of shapes, methods, ranks and scales against the oracles', () => {
  const g = random(2024);
  let cases = 0;
  for (let c = 0; c < 60; c++) {
    const [nQ, nK, d] = [g.int(1, 14), g.int(1, 14), g.int(1, 6)];
    const spread = g.pick([0.1, 1, 4]);
    const draw = () => spread * (2 * g.float() - 1);
    const [Q, K, V] = [drawnMatrix(nQ, d, draw), drawnMatrix(nK, d, draw), drawnMatrix(nK, g.int(1, 4), draw)];
    const scale = g.chance(0.3) ? g.pick([0.01, 0.5, 3]) : undefined;
    const linformer = g.chance(0.4);
    const { r, errors } = linformer
      ? linformerCase(Q, K, V, { rank: g.int(1, nK), seed: g.int(1, 1000), scale })
      : svdCase(Q, K, V, { rank: g.int(1, Math.min(nQ, nK)), causal: g.chance(0.5), scale });
    for (const [name, e] of Object.entries(errors)) assert.ok(e <= TOLERANCE, `case ${c}: ${name} ${e}`);
    for (const value of [r.output, r.weights, r.exactWeights, r.singularValues, r.weightsError, r.outputError].flat(2))
      assert.ok(Number.isFinite(value), `case ${c}: never NaN`);
    cases++;
  }
  assert.equal(cases, 60);
});

test('lowRankAttention at limits().lowRankTokens: the SVD of a 256 × 256 A in wasm', () => {
  const n = lab.limits().lowRankTokens;
  assert.equal(n, 256);
  const draw = uniformDraws(5);
  const [Q, K, V] = [drawnMatrix(n, 64, draw), drawnMatrix(n, 64, draw), drawnMatrix(n, 64, draw)];
  for (const causal of [false, true]) {
    const start = performance.now();
    const r = lab.lowRankAttention({ Q, K, V, rank: n, causal });
    const ms = performance.now() - start;
    console.log(`lowRankAttention svd, ${n} × ${n}, causal ${causal}: ${ms.toFixed(0)} ms in wasm`);
    assert.ok(relativeError(r.weights, r.exactWeights) <= TOLERANCE);
    assert.ok(Math.abs(r.weightsError - r.spectrumError) <= TOLERANCE);
  }
});

const [Q, V] = [
  [
    [1, 0],
    [0, 1],
  ],
  [
    [1, 2],
    [3, 4],
  ],
];
const refusals = [
  ['rank missing', { Q, K: Q, V }, 'invalid-argument', 'rank'],
  ['rank 0', { Q, K: Q, V, rank: 0 }, 'invalid-argument', 'rank'],
  ['rank above min(n_q, n_k)', { Q, K: Q, V, rank: 3 }, 'invalid-argument', 'rank'],
  ['an unknown method', { Q, K: Q, V, rank: 1, method: 'nystrom' }, 'invalid-argument', 'method'],
  ['causal with linformer', { Q, K: Q, V, rank: 1, method: 'linformer', causal: true }, 'invalid-argument', 'causal'],
  ['E and F with svd', { Q, K: Q, V, rank: 1, E: [[1, 0]], F: [[1, 0]] }, 'invalid-argument', 'E'],
  ['E without F', { Q, K: Q, V, rank: 1, method: 'linformer', E: [[1, 0]] }, 'invalid-argument', 'F'],
  ['E of the wrong shape', { Q, K: Q, V, rank: 1, method: 'linformer', E: [[1, 0, 0]], F: [[1, 0]] }, 'shape-mismatch', 'E'],
  ['NaN in F', { Q, K: Q, V, rank: 1, method: 'linformer', E: [[1, 0]], F: [[NaN, 0]] }, 'non-finite', 'F'],
  ['scale 0', { Q, K: Q, V, rank: 1, scale: 0 }, 'invalid-argument', 'scale'],
  ['NaN in Q', { Q: [[NaN, 0]], K: Q, V, rank: 1 }, 'non-finite', 'Q'],
  ['K too narrow', { Q, K: [[1], [2]], V, rank: 1 }, 'shape-mismatch', 'K'],
  ['the SVD past limits().lowRankTokens', { Q: drawnMatrix(257, 1, () => 1), K: [[1]], V: [[1]], rank: 1 }, 'too-large', 'SVD'],
  ['Q past the limits', { Q: drawnMatrix(513, 1, () => 1), K: [[1]], V: [[1]], rank: 1, method: 'linformer' }, 'too-large', 'Q'],
];
for (const [name, request, code, named] of refusals)
  test(`lowRankAttention refuses ${name} (${code})`, () => {
    assert.throws(
      () => lab.lowRankAttention(request),
      (error) => error instanceof AttnLabError && error.code === code && error.message.includes(named),
    );
  });
