// lab.linearAttention({ featureMap: 'favor' }) and lab.sparsePattern() from the packed package.
// FAVOR+ against a float64 reference written here (W orthogonalised here from the same
// generator's draws, lab.normalMatrix, by classical Gram–Schmidt; the features, kernel, weights
// and output by their definitions), on random cases, both forms equal; its error against
// softmax's weights falling with m. The patterns cell by cell against their rules, used as
// attention()'s mask against a float64 masked softmax; every bad input refused by its code.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { random } from './support/fuzz-requests.js';
import { attnlab } from './support/package.js';
import { drawnMatrix, uniformDraws } from './support/seeded-rows.js';
import { dot, f32, relativeError } from '../support/float64-efficient.js';

const lab = await attnlab.createAttnLab();
const { AttnLabError } = attnlab;

const TOLERANCE = 1e-5;

/** W (m, d) in float64: blocks of d Gaussian rows orthonormalised, each row then as long as Gaussian row m + i. */
function projection(m, d, seed) {
  const { data } = lab.normalMatrix({ rows: 2 * m, cols: d, seed });
  const rowOf = (i) => Array.from(data.subarray(i * d, (i + 1) * d));
  const unit = [];
  const w = [];
  for (let i = 0; i < m; i++) {
    const block = unit.slice(i - (i % d), i);
    let v = rowOf(i);
    for (let pass = 0; pass < 2; pass++) {
      const c = block.map((u) => dot(v, u)); // classical: every coefficient from the same v
      v = v.map((x, a) => x - block.reduce((s, u, b) => s + c[b] * u[a], 0));
    }
    const norm = Math.hypot(...v);
    const length = Math.hypot(...rowOf(m + i));
    unit.push(v.map((x) => x / norm));
    w.push(v.map((x) => (x / norm) * length));
  }
  return w;
}

/** FAVOR+ linear attention by its definition, in float64. */
function favorReference(Q, K, V, { features, seed, causal = false, scale }) {
  [Q, K, V] = [Q, K, V].map(f32);
  const s = scale === undefined ? 1 / Math.sqrt(Q[0].length) : Math.fround(scale);
  const w = projection(features, Q[0].length, seed);
  const phi = (x) => {
    const y = x.map((v) => Math.sqrt(s) * v);
    return w.map((row) => Math.exp(dot(row, y) - dot(y, y) / 2) / Math.sqrt(features));
  };
  const [fq, fk] = [Q.map(phi), K.map(phi)];
  const kernel = fq.map((q, i) => fk.map((k, j) => (causal && j > i ? 0 : dot(q, k))));
  const weights = kernel.map((row) => row.map((x) => x / row.reduce((t, y) => t + y, 0)));
  const output = weights.map((r) => V[0].map((_, c) => r.reduce((t, x, j) => t + x * V[j][c], 0)));
  return { w, kernel, weights, output, scale: s };
}

test('favor: both forms, causal or not, within 1e-5 of float64 on random cases; parallel = recurrent', () => {
  const r = random(37);
  let worst = 0;
  let worstForms = 0;
  for (let trial = 0; trial < 12; trial++) {
    const causal = r.chance(0.5);
    const [nQ, dK, dV, features] = [r.int(1, 12), r.int(1, 9), r.int(1, 4), r.pick([1, 5, 16, 64, 200])];
    const nK = causal ? nQ : r.int(1, 12);
    const draw = uniformDraws(100 + trial);
    const [Q, K, V] = [drawnMatrix(nQ, dK, () => draw() / 2), drawnMatrix(nK, dK, () => draw() / 2), drawnMatrix(nK, dV, draw)];
    const scale = r.chance(0.5) ? 0.3 : undefined;
    const seed = r.int(1, 1000);
    const want = favorReference(Q, K, V, { features, seed, causal, scale });
    const got = ['parallel', 'recurrent'].map((form) => lab.linearAttention({ Q, K, V, featureMap: 'favor', features, seed, causal, form, scale }));
    for (const g of got) {
      const where = `trial ${trial}: ${nQ}×${nK}, d ${dK}, m ${features}, causal ${causal}`;
      assert.ok(Math.abs(g.scale - want.scale) <= 1e-7 * want.scale, where);
      assert.equal(g.featureQ[0].length, features);
      for (const [field, expected] of [
        ['randomFeatures', want.w],
        ['kernel', want.kernel],
        ['weights', want.weights],
        ['output', want.output],
      ]) {
        const e = relativeError(g[field], expected);
        assert.ok(e <= TOLERANCE, `${where} ${field}: ${e}`);
        worst = Math.max(worst, e);
      }
    }
    const e = relativeError(got[1].output, got[0].output);
    assert.ok(e <= TOLERANCE, `parallel vs recurrent ${e}`);
    worstForms = Math.max(worstForms, e);
  }
  console.log(`favor vs float64: ${worst.toExponential(2)}; parallel vs recurrent: ${worstForms.toExponential(2)}`);
});

test('favor: the mean error against softmax weights falls at least 4× from m = 16 to m = 1,024', () => {
  const draw = uniformDraws(5);
  const [Q, K, V] = [drawnMatrix(32, 16, draw), drawnMatrix(32, 16, draw), drawnMatrix(32, 2, draw)].map((m) => m.map((row) => row.map((x) => x / 2)));
  const exact = f32(Q).map((q) => {
    const e = f32(K).map((k) => Math.exp(dot(q, k) / 4));
    const sum = e.reduce((s, x) => s + x, 0);
    return e.map((x) => x / sum);
  });
  const meanError = (features) => {
    let total = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const { weights } = lab.linearAttention({ Q, K, V, featureMap: 'favor', features, seed });
      total += weights.flat().reduce((s, x, c) => s + Math.abs(x - exact.flat()[c]), 0) / (32 * 32);
    }
    return total / 8;
  };
  const [few, many] = [meanError(16), meanError(1024)];
  console.log(`favor mean |weights − softmax| over 8 seeds: m = 16 ${few.toPrecision(3)}, m = 1024 ${many.toPrecision(3)} (${(few / many).toFixed(1)}×)`);
  assert.ok(few >= 4 * many, `${few} vs ${many}`);
});

/** Pattern rules, written here: [i][j] → allowed by window (in blocks), globals or stride. */
function fixedRule({ window = 0, globalTokens = [], stride = 0, blockSize = 0 }) {
  const b = Math.max(blockSize, 1);
  return (i, j) =>
    (window > 0 && Math.abs(Math.floor(i / b) - Math.floor(j / b)) < window) ||
    globalTokens.includes(i) ||
    globalTokens.includes(j) ||
    (stride > 0 && Math.abs(i - j) % stride === 0);
}

test('sparsePattern: BigBird rows hold their window, their globals and exactly r random keys; seeded', () => {
  const request = { queries: 40, window: 2, globalTokens: [0, 9], random: 3 };
  const rule = fixedRule(request);
  const masks = [1, 2, 3].map((seed) => {
    const p = lab.sparsePattern({ ...request, seed });
    assert.equal(p.mask.length, 40);
    p.mask.forEach((row, i) => {
      assert.equal(row.length, 40);
      assert.ok(
        row.every((x) => typeof x === 'boolean'),
        'booleans',
      );
      const extra = row.filter((x, j) => x && !rule(i, j)).length;
      assert.ok(
        row.every((x, j) => x || !rule(i, j)),
        `row ${i} misses a window or global key`,
      );
      assert.equal(extra, request.globalTokens.includes(i) ? 0 : 3, `row ${i}`);
      assert.equal(p.keysPerQuery[i], row.filter(Boolean).length);
    });
    const nonzeros = p.mask.flat().filter(Boolean).length;
    assert.equal(p.nonzeros, nonzeros);
    assert.equal(p.density, nonzeros / 1600);
    assert.equal(p.flops, 4 * 64 * nonzeros);
    assert.equal(p.denseFlops, 4 * 64 * 1600);
    return JSON.stringify(p.mask);
  });
  assert.equal(JSON.stringify(lab.sparsePattern({ ...request, seed: 2 }).mask), masks[1], 'the same seed, the same pattern');
  assert.equal(new Set(masks).size, 3, 'different seeds, different patterns');
});

test('sparsePattern: blocks of blockSize, and the strided pattern', () => {
  const p = lab.sparsePattern({ queries: 30, window: 1, random: 1, blockSize: 6, seed: 4 });
  for (let qb = 0; qb < 5; qb++) {
    let random = 0;
    for (let kb = 0; kb < 5; kb++) {
      const cells = new Set();
      for (let i = qb * 6; i < qb * 6 + 6; i++) for (let j = kb * 6; j < kb * 6 + 6; j++) cells.add(p.mask[i][j]);
      assert.equal(cells.size, 1, 'a block is in or out as a whole');
      if (qb === kb) assert.ok(p.mask[qb * 6][kb * 6]);
      else random += p.mask[qb * 6][kb * 6];
    }
    assert.equal(random, 1, `query block ${qb}`);
  }
  const strided = lab.sparsePattern({ queries: 10, keys: 14, window: 3, stride: 3, headWidth: 8 });
  const rule = fixedRule({ window: 3, stride: 3 });
  strided.mask.forEach((row, i) => row.forEach((x, j) => assert.equal(x, rule(i, j), `${i}, ${j}`)));
  assert.equal(strided.denseFlops, 4 * 8 * 140);
});

test('sparsePattern as attention()’s mask: a float64 masked softmax, and its distance from dense', () => {
  const draw = uniformDraws(8);
  const [Q, K, V] = [drawnMatrix(24, 8, draw), drawnMatrix(24, 8, draw), drawnMatrix(24, 3, draw)];
  const { mask, density } = lab.sparsePattern({ queries: 24, window: 3, globalTokens: [0], random: 2, seed: 3 });
  const sparse = lab.attention({ Q, K, V, mask });
  const dense = lab.attention({ Q, K, V });
  const want = f32(Q).map((q, i) => {
    const e = f32(K).map((k, j) => (mask[i][j] ? Math.exp(dot(q, k) / Math.sqrt(8)) : 0));
    const sum = e.reduce((s, x) => s + x, 0);
    return f32(V)[0].map((_, c) => e.reduce((s, x, j) => s + (x / sum) * f32(V)[j][c], 0));
  });
  const e = relativeError(sparse.output, want);
  assert.ok(e <= TOLERANCE, `${e}`);
  const fromDense = relativeError(sparse.output, dense.output);
  console.log(`sparsePattern as a mask: output vs float64 ${e.toExponential(2)}; vs dense ${fromDense.toPrecision(3)} at density ${density.toFixed(3)}`);
});

const Q = [
  [1, 0],
  [0, 1],
];
const refusals = [
  ['favor with 0 features', () => lab.linearAttention({ Q, K: Q, V: Q, featureMap: 'favor', features: 0 }), 'invalid-argument', 'features'],
  ['favor past its features', () => lab.linearAttention({ Q, K: Q, V: Q, featureMap: 'favor', features: 4097 }), 'too-large', 'features'],
  ['favor with features as text', () => lab.linearAttention({ Q, K: Q, V: Q, featureMap: 'favor', features: '8' }), 'invalid-argument', 'features'],
  ['features without favor', () => lab.linearAttention({ Q, K: Q, V: Q, features: 8 }), 'invalid-argument', 'features'],
  ['a seed without favor', () => lab.linearAttention({ Q, K: Q, V: Q, featureMap: 'relu', seed: 2 }), 'invalid-argument', 'seed'],
  ['no pattern request', () => lab.sparsePattern(), 'invalid-argument', 'sparsePattern'],
  ['a pattern without queries', () => lab.sparsePattern({ window: 2 }), 'invalid-argument', 'queries'],
  ['an empty pattern', () => lab.sparsePattern({ queries: 4 }), 'invalid-argument', 'window'],
  ['a global token past the positions', () => lab.sparsePattern({ queries: 4, globalTokens: [4] }), 'invalid-argument', 'globalTokens'],
  ['more random keys than keys', () => lab.sparsePattern({ queries: 4, random: 5 }), 'invalid-argument', 'random'],
  ['more random blocks than blocks', () => lab.sparsePattern({ queries: 8, random: 3, blockSize: 4 }), 'invalid-argument', 'random'],
  ['a pattern past its cells', () => lab.sparsePattern({ queries: 4096, keys: 4096, window: 1 }), 'too-large', 'cells'],
  ['a pattern past its queries', () => lab.sparsePattern({ queries: 70000, keys: 1, window: 1 }), 'too-large', 'queries'],
  ['a negative window', () => lab.sparsePattern({ queries: 4, window: -1 }), 'invalid-argument', 'window'],
  ['headWidth 0', () => lab.sparsePattern({ queries: 4, window: 1, headWidth: 0 }), 'invalid-argument', 'headWidth'],
];
test(`${refusals.length} bad requests refused, each an AttnLabError with its code, naming the field`, () => {
  const outcome = ([, call]) => {
    try {
      call();
      return { code: 'no error', message: '' };
    } catch (error) {
      return error instanceof AttnLabError ? error : { code: `not an AttnLabError: ${error}`, message: '' };
    }
  };
  for (const refusal of refusals) {
    const [name, , code, named] = refusal;
    const { code: got, message } = outcome(refusal);
    assert.equal(got, code, `${name}: ${message}`);
    assert.ok(message.includes(named), `${name}: "${message}" names ${named}`);
  }
});
