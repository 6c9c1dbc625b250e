// A seeded fuzz of every cheaper-attention family through the packed package (issue 37):
// random shapes and options for linearAttention (elu, relu, favor; causal; both forms; scale),
// retention (decay, both forms), lowRankAttention (svd, linformer with seeded or given E and F),
// sparsePattern fed to attention({ mask }), and longLinearAttention / longRetention (heads,
// kvHeads, batch, chunk), each against the float64 references of tests/support/float64-efficient.js,
// within 1e-5 of max(1, max |reference|); causal parallel = recurrent within 1e-5. FAVOR+'s W is
// drawn inside the core, so for 'favor' the checks start from the returned W: the features by
// their definition from it, the kernel positive (0 only where causal hides a key) and equal to
// φ(Q)·φ(K)ᵀ, the weights and output from that kernel, the same W for the same seed
// (favor-sparse.test.js rebuilds W itself from lab.normalMatrix). About a third of the draws
// carry one fault: each must throw an AttnLabError with the expected code naming the field,
// never return NaN. ATTNLAB_FUZZ_SEED / ATTNLAB_FUZZ_SECONDS as in fuzz.test.js.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { fuzzRun } from './support/fuzz-seed.js';
import { random } from './support/fuzz-requests.js';
import { attnlab } from './support/package.js';
import * as ref from '../support/float64-efficient.js';
import { FAULTS } from './support/efficient-faults.js';

const lab = await attnlab.createAttnLab();
const { AttnLabError, ERROR_CODES } = attnlab;
const { SEED, SECONDS } = fuzzRun('fuzz-efficient', 10);
const TOLERANCE = 1e-5;
// σ_k and σ_(k+1) this close (relative to σ_1) are a tie: A_k is then one of many.
const TIED = 1e-9;
const MAX_CASES = 20_000;

const matrix = (r, rows, cols, spread) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => spread * (2 * r.float() - 1)));
/** Nested rows, or flat { rows, cols, data } (typed or plain): the forms the package takes. */
const encode = (r, m) => (r.chance(0.6) ? m : { rows: m.length, cols: m[0].length, data: r.chance(0.5) ? Float32Array.from(m.flat()) : m.flat() });
/** Q (n_q, d), K (n_k, d), V (n_k, d_v) as requested and as the core sees them (float32). */
function qkv(r, nq, nk, d, dv, spread) {
  const raw = [matrix(r, nq, d, spread), matrix(r, nk, d, spread), matrix(r, nk, dv, r.pick([1, spread]))];
  const [Q, K, V] = raw.map((m) => encode(r, m));
  const model = raw.map(ref.f32);
  return { request: { Q, K, V }, model: { Q: model[0], K: model[1], V: model[2] } };
}
const optional = (r, p, value) => (r.chance(p) ? value : undefined);
function near(got, want, what, where) {
  const e = ref.relativeError(got, want);
  assert.ok(e <= TOLERANCE, `${where}: ${what} off its float64 reference by ${e}`);
  return e;
}
const worst = {};
const note = (family, e) => (worst[family] = Math.max(worst[family] ?? 0, e));

// Each family: make(r) → { entry, request, check(result, where) }; FAULTS (efficient-faults.js) spoils a valid request.
const FAMILIES = {
  linear(r) {
    const causal = r.chance(0.5);
    const nq = r.int(1, 10);
    const { request, model } = qkv(r, nq, causal ? nq : r.int(1, 10), r.int(1, 8), r.int(1, 5), r.pick([0.1, 1, 2]));
    Object.assign(request, { featureMap: r.pick(['elu', 'relu']), causal, scale: optional(r, 0.4, r.pick([0.25, 0.5, 2])) });
    const want = ref.linearReference(model.Q, model.K, model.V, { ...request, scale: Math.fround(request.scale ?? 1) });
    return { entry: 'linearAttention', request, check: (got, where) => checkLinear(got, want, where, 'linear') };
  },
  favor(r) {
    const causal = r.chance(0.5);
    const nq = r.int(1, 8);
    const d = r.int(1, 6);
    const { request, model } = qkv(r, nq, causal ? nq : r.int(1, 8), d, r.int(1, 4), r.pick([0.1, 0.5]));
    Object.assign(request, { featureMap: 'favor', features: r.pick([1, 3, 16, 64]), seed: r.int(0, 1e6), causal, scale: optional(r, 0.4, r.pick([0.2, 0.5])) });
    const check = (got, where) => {
      const scale = request.scale ?? 1 / Math.sqrt(d);
      assert.ok(Math.abs(got.scale - scale) <= 1e-7 * scale, `${where}: scale ${got.scale}`);
      const W = got.randomFeatures;
      assert.deepEqual([W.length, W[0].length], [request.features, d], `${where}: W is (m, d_k)`);
      const [FQ, FK] = [model.Q, model.K].map((X) => ref.favorFeatures(X, W, got.scale));
      const e = Math.max(near(got.featureQ, FQ, 'φ(Q) from W', where), near(got.featureK, FK, 'φ(K) from W', where));
      got.kernel.forEach((row, i) =>
        row.forEach((x, j) => assert.ok(causal && j > i ? x === 0 : x > 0, `${where}: kernel[${i}][${j}] = ${x}, positive where seen`)),
      );
      const fromKernel = ref.product(ref.rowsOverSums(got.kernel), model.V);
      note('favor', Math.max(e, near(got.output, fromKernel, 'output = the returned kernel normalised, times V', where)));
      return { ...checkLinear(got, ref.linearFromFeatures(FQ, FK, model.V, causal), where, 'favor'), W };
    };
    return { entry: 'linearAttention', request, check };
  },
  retention(r) {
    const n = r.int(1, 12);
    const { request, model } = qkv(r, n, n, r.int(1, 6), r.int(1, 4), r.pick([0.1, 0.5, 1]));
    request.decay = r.pick([1, 0.99, 0.9, 0.5, 0.1, 1 - r.float()]);
    const want = ref.retentionReference(model.Q, model.K, model.V, Math.fround(request.decay));
    const check = (got, where) => {
      assert.equal(got.decay, Math.fround(request.decay));
      for (const field of ['weights', 'output', 'state']) note('retention', near(got[field], want[field], field, where));
    };
    return { entry: 'retention', request, check };
  },
  lowRank(r) {
    const [nq, nk, d] = [r.int(1, 12), r.int(1, 12), r.int(1, 6)];
    const { request, model } = qkv(r, nq, nk, d, r.int(1, 4), r.pick([0.1, 1, 3]));
    const scale = optional(r, 0.3, r.pick([0.05, 0.5, 2]));
    if (r.chance(0.4)) {
      const rank = r.int(1, nk);
      const own = r.chance(0.3) && { E: matrix(r, rank, nk, 1), F: matrix(r, rank, nk, 1) };
      Object.assign(request, { method: 'linformer', rank, scale, ...(own || { seed: optional(r, 0.7, r.int(0, 1e6)) }) });
      return { entry: 'lowRankAttention', request, check: (got, where) => checkLinformer(got, model, own, where) };
    }
    Object.assign(request, { rank: r.int(1, Math.min(nq, nk)), causal: optional(r, 0.6, r.chance(0.5)), scale });
    return { entry: 'lowRankAttention', request, check: (got, where) => checkSvd(got, model, request, where) };
  },
  sparse(r) {
    const nq = r.int(1, 24);
    const nk = r.chance(0.6) ? nq : r.int(1, 24);
    const b = r.chance(0.3) ? r.int(2, 4) : 0;
    const positions = Math.max(nq, nk);
    const request = {
      queries: nq,
      keys: nk === nq && r.chance(0.5) ? undefined : nk,
      blockSize: b || optional(r, 0.2, 0),
      seed: optional(r, 0.8, r.int(0, 1e6)),
    };
    request.window = optional(r, 0.6, r.int(0, 3));
    request.globalTokens = optional(r, 0.4, [...new Set(Array.from({ length: r.int(0, 2) }, () => r.int(0, positions - 1)))]);
    request.random = optional(r, 0.5, r.int(0, Math.min(3, Math.ceil(nk / Math.max(b, 1)))));
    request.stride = optional(r, 0.3, r.int(0, 4));
    if (!request.window && !request.globalTokens?.length && !request.random && !request.stride) request.window = 1;
    request.headWidth = optional(r, 0.3, r.int(1, 16));
    const d = r.int(1, 8);
    const { request: inputs, model } = qkv(r, nq, nk, d, r.int(1, 4), r.pick([0.5, 1, 2]));
    return { entry: 'sparsePattern', request, check: (got, where) => checkSparse(got, request, inputs, model, where) };
  },
  long(r) {
    const retention = r.chance(0.4);
    const heads = r.int(1, 3);
    const kvHeads = r.pick([0, ...[1, 2, 3].filter((k) => heads % k === 0)]);
    const kv = kvHeads || heads;
    const [batch, d, dv, n] = [r.int(1, 2), r.int(1, 6), r.int(1, 4), r.int(1, 20)];
    const causal = retention || r.chance(0.5);
    const nk = causal ? n : r.int(1, 20);
    const spread = retention ? 0.3 : r.pick([0.1, 1, 2]);
    const raw = [matrix(r, batch * n, heads * d, spread), matrix(r, batch * nk, kv * d, spread), matrix(r, batch * nk, kv * dv, 1)];
    const [Q, K, V] = raw.map((m) => ({ rows: m.length, cols: m[0].length, data: Float32Array.from(m.flat()) }));
    const request = { Q, K, V, heads, kvHeads: kvHeads || optional(r, 0.5, 0), batch, chunk: optional(r, 0.7, r.pick([0, 1, 3, 7, 64])) };
    if (retention) request.decay = r.pick([1, 0.95, 0.5, 1 - r.float()]);
    else Object.assign(request, { featureMap: optional(r, 0.7, r.pick(['elu', 'relu'])), causal, scale: optional(r, 0.3, r.pick([0.5, 2])) });
    const entry = retention ? 'longRetention' : 'longLinearAttention';
    return { entry, request, check: (got, where) => checkLong(got, request, raw.map(ref.f32), { n, nk, d, dv, kv }, where) };
  },
};

/** Linear attention's result against a reference { kernel, weights, output, kvState, keySum, normalizer }. */
function checkLinear(got, want, where, family) {
  for (const field of ['output', 'weights', 'kernel', 'kvState', 'keySum', 'normalizer']) note(family, near(got[field], want[field], field, where));
  const zero = want.normalizer.flatMap((z, i) => (z === 0 ? [i] : []));
  assert.deepEqual(got.zeroNormalizerRows, zero, `${where}: zeroNormalizerRows`);
  return got;
}

function checkSvd(got, { Q, K, V }, request, where) {
  const A = ref.softmaxWeights(Q, K, got.scale, (i, j) => !request.causal || j <= i);
  note('lowRank', near(got.exactWeights, A, 'A', where));
  const { sigma, truncated } = ref.svdReference(got.exactWeights); // the core's float32 A, decomposed here
  assert.equal(got.singularValues.length, sigma.length);
  sigma.forEach((want, i) => {
    // Relative to σ_i, down to 1e-2·σ_1: the Gram matrix squares A's condition number.
    const e = Math.abs(got.singularValues[i] - want) / Math.max(want, 1e-2 * sigma[0]);
    assert.ok(e <= TOLERANCE, `${where}: σ_${i} ${got.singularValues[i]} against ${want}`);
  });
  const k = request.rank;
  const tail = Math.sqrt(sigma.slice(k).reduce((t, x) => t + x * x, 0));
  if (k < sigma.length && sigma[k - 1] - sigma[k] <= TIED * sigma[0]) {
    // σ_k = σ_(k+1): A_k is not unique (one-hot softmax rows give σ = 1, 1, …), so the checks
    // are what makes a matrix a best rank-k approximation: rank at most k, A projected onto its
    // own columns, and ‖A − A_k‖_F at the Eckart–Young minimum.
    const W = ref.svdReference(got.weights);
    assert.ok((W.sigma[k] ?? 0) <= TOLERANCE * Math.max(1, W.sigma[0]), `${where}: A_k has rank above ${k} (σ_${k + 1} = ${W.sigma[k]})`);
    note('lowRank', near(got.weights, ref.product(ref.leftProjector(got.weights, k), got.exactWeights), 'A_k against A projected onto its columns', where));
    const residual = Math.sqrt(got.exactWeights.flatMap((row, i) => row.map((a, j) => (a - got.weights[i][j]) ** 2)).reduce((t, x) => t + x, 0));
    assert.ok(Math.abs(residual - tail) <= TOLERANCE * Math.max(1, tail), `${where}: ‖A − A_k‖_F ${residual} against σ's tail ${tail}`);
    note('lowRank', near(got.output, ref.product(got.weights, V), 'A_k·V', where));
  } else {
    const Ak = truncated(k);
    note('lowRank', Math.max(near(got.weights, Ak, 'A_k', where), near(got.output, ref.product(Ak, V), 'A_k·V', where)));
  }
  assert.ok(Math.abs(got.weightsError - tail) <= TOLERANCE && Math.abs(got.spectrumError - tail) <= TOLERANCE, `${where}: Eckart–Young`);
}

function checkLinformer(got, { Q, K, V }, own, where) {
  const [E, F] = [got.E, got.F].map(ref.f32);
  assert.deepEqual([E.length, E[0].length, F.length], [got.rank, K.length, got.rank], `${where}: E and F are (k, n_k)`);
  if (own) near(E.concat(F), ref.f32(own.E.concat(own.F)), 'E and F as given', where);
  const want = ref.linformerReference(Q, K, V, E, F, got.scale);
  for (const [field, w] of [
    ['projectedWeights', want.projected],
    ['weights', want.weights],
    ['output', want.output],
  ])
    note('lowRank', near(got[field], w, field, where));
  assert.deepEqual(got.singularValues, []);
}

function checkSparse(got, request, inputs, { Q, K, V }, where) {
  const nk = request.keys ?? request.queries;
  const globals = request.globalTokens ?? [];
  const fixed = ref.fixedPattern({ ...request, keys: nk });
  const b = Math.max(request.blockSize ?? 0, 1);
  assert.deepEqual([got.mask.length, got.mask[0].length], [request.queries, nk]);
  // Every fixed cell; beyond them, per query block, min(r, free) whole free key blocks, the same for its rows.
  for (const { first, last, free } of ref.freeKeyBlocks(fixed, request)) {
    const rows = Array.from({ length: last - first }, (_, t) => first + t).filter((i) => !globals.includes(i));
    const drawn = rows.length ? free.filter((kb) => got.mask[rows[0]][kb * b]) : [];
    for (let i = first; i < last; i++)
      got.mask[i].forEach((x, j) => {
        const want = fixed[i][j] || (rows.includes(i) && drawn.includes(Math.floor(j / b)));
        assert.equal(x, want, `${where}: mask[${i}][${j}]`);
      });
    if (rows.length) assert.equal(drawn.length, Math.min(request.random ?? 0, free.length), `${where}: random key blocks of query block ${first / b}`);
  }
  const nonzeros = got.mask.flat().filter(Boolean).length;
  assert.deepEqual(
    got.keysPerQuery,
    got.mask.map((row) => row.filter(Boolean).length),
  );
  const width = request.headWidth ?? 64;
  assert.deepEqual(
    [got.nonzeros, got.density, got.flops, got.denseFlops],
    [nonzeros, nonzeros / (request.queries * nk), 4 * width * nonzeros, 4 * width * request.queries * nk],
  );
  assert.equal(JSON.stringify(lab.sparsePattern(request).mask), JSON.stringify(got.mask), `${where}: the same seed, the same pattern`);
  const result = lab.attention({ ...inputs, mask: got.mask });
  const A = ref.softmaxWeights(Q, K, 1 / Math.sqrt(Q[0].length), (i, j) => got.mask[i][j]);
  note('sparse', Math.max(near(result.weights, A, 'masked weights', where), near(result.output, ref.product(A, V), 'masked output', where)));
}

/** The long kernels, head by head and sequence by sequence, against the small entries' references. */
function checkLong(got, request, [Q, K, V], { n, nk, d, dv, kv }, where) {
  const { heads, batch } = request;
  assert.deepEqual([got.output.rows, got.output.cols], [batch * n, heads * dv]);
  const out = Array.from({ length: batch * n }, (_, i) => Array.from(got.output.data.subarray(i * heads * dv, (i + 1) * heads * dv)));
  const slice = (m, first, rows, col, cols) => m.slice(first, first + rows).map((row) => row.slice(col, col + cols));
  const zero = new Set();
  for (let s = 0; s < batch; s++)
    for (let h = 0; h < heads; h++) {
      const g = Math.floor(h / (heads / kv));
      const [q, k, v] = [slice(Q, s * n, n, h * d, d), slice(K, s * nk, nk, g * d, d), slice(V, s * nk, nk, g * dv, dv)];
      const want =
        request.decay === undefined
          ? ref.linearReference(q, k, v, { featureMap: request.featureMap, causal: request.causal, scale: Math.fround(request.scale ?? 1) })
          : ref.retentionReference(q, k, v, Math.fround(request.decay));
      want.normalizer?.forEach((z, i) => z === 0 && zero.add(s * n + i));
      note(request.decay === undefined ? 'longLinear' : 'longRetention', near(slice(out, s * n, n, h * dv, dv), want.output, `sequence ${s} head ${h}`, where));
    }
  assert.deepEqual(
    got.zeroNormalizerRows,
    [...zero].sort((a, b) => a - b),
    `${where}: zeroNormalizerRows`,
  );
}

const tracked = () => lab.memoryStats().trackedBytes;
const finite = (value) => [value].flat(Infinity).every((x) => typeof x !== 'number' || Number.isFinite(x));

function runCase(index, baseline, counts) {
  const r = random((SEED + Math.imul(index + 1, 0x9e3779b9)) >>> 0);
  const family = r.pick(Object.keys(FAMILIES));
  const { entry, request, check } = FAMILIES[family](r);
  const fault = r.chance(0.3) ? r.pick(FAULTS[family]) : undefined;
  const where = `case ${index} (ATTNLAB_FUZZ_SEED=${SEED}), ${family}${fault ? `, fault: ${fault.name}` : ''}`;
  const call = (req) => {
    try {
      return { result: lab[entry](req) };
    } catch (error) {
      return { error };
    } finally {
      assert.equal(tracked(), baseline, `${where}: the core's live memory is back to its baseline`);
    }
  };
  const kind = fault ? 'refused' : 'checked';
  (counts[family] ??= { checked: 0, refused: 0 })[kind]++;
  if (fault) {
    const spoiled = fault.spoil(structuredClone(request), r);
    const field = typeof fault.field === 'function' ? fault.field(spoiled) : fault.field;
    const { error, result } = call(spoiled);
    assert.ok(error, `${where}: accepted, ${finite(result) ? 'finite' : 'with NaN'}`);
    assert.ok(error instanceof AttnLabError && ERROR_CODES.includes(error.code), `${where}: threw ${error}`);
    assert.equal(error.code, fault.code, `${where}: ${error.message}`);
    assert.ok(error.message.includes(field), `${where}: "${error.message}" names ${field}`);
    return;
  }
  const forms = family === 'linear' || family === 'favor' || family === 'retention' ? ['parallel', 'recurrent'] : [undefined];
  const results = forms.map((form) => {
    const { result, error } = call(form ? { ...request, form } : request);
    assert.ok(!error, `${where}: refused a valid request: ${error?.code}: ${error?.message}`);
    assert.ok(finite(result), `${where}: non-finite values in the result`);
    return check(result, `${where}${form ? `, ${form}` : ''}`) ?? result;
  });
  if (forms.length === 2) {
    note('parallel = recurrent', near(results[1].output, results[0].output, 'recurrent against parallel', where));
    if (family === 'favor') assert.deepEqual(results[1].W, results[0].W, `${where}: the same seed, the same W`);
  }
}

test(`fuzz-efficient: every cheaper-attention family against float64 for ${SECONDS} s (seed ${SEED})`, () => {
  lab.attention({ Q: [[1]], K: [[1]], V: [[1]] }); // the core's first call allocates what it keeps
  const baseline = tracked();
  const counts = {};
  const start = performance.now();
  let cases = 0;
  for (; cases < MAX_CASES && performance.now() - start < SECONDS * 1000; cases++) runCase(cases, baseline, counts);
  console.log(`fuzz-efficient: ${cases} cases in ${((performance.now() - start) / 1000).toFixed(1)} s; checked against float64 / faults refused:`);
  for (const [family, c] of Object.entries(counts)) console.log(`  ${family.padEnd(10)} ${c.checked} / ${c.refused}`);
  console.log(
    `  worst relative error: ${Object.entries(worst)
      .map(([k, e]) => `${k} ${e.toExponential(2)}`)
      .join(', ')}`,
  );
  for (const family of Object.keys(FAMILIES)) assert.ok(counts[family]?.checked > 0 && counts[family]?.refused > 0, `${family} drawn valid and faulty`);
});
