// Every entry at its documented limits (issue 14, item 5): the sizes come from the docs' (docs/javascript.md)
// Limits table, each call succeeds, gives back what it took, holds at most a quarter of the
// 2 GiB wasm heap, and its result is spot-checked against float64 arithmetic done here. The
// times are printed (the machine is shared): the limits were set from them so that every call
// returns in about a second; only the learning entries' CPU time is asserted, with room (issue
// 29, item 5: they once took several seconds within the limits). One step beyond a product limit is too-large,
// refused before the core allocates its working memory.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab, errorOf } from './support/package.js';
import { DOCUMENTED_LIMITS as L } from './support/documented-limits.js';

const lab = await attnlab.createAttnLab();
const MiB = 2 ** 20;
const HEAP_SHARE = 512 * MiB;

// A flat float32 matrix of values in [-1, 1) from a small xorshift generator (fast enough for
// the 16-million-value inputs; the core's own generator is what some entries are about).
function filled(rows, cols, seed) {
  const data = new Float32Array(rows * cols);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < data.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    data[i] = (x >>> 0) / 2 ** 31 - 1;
  }
  return { rows, cols, data };
}
const scaled = (m, factor) => ({ ...m, data: m.data.map((v) => v * factor) });
const nested = ({ rows, cols, data }) => Array.from({ length: rows }, (_, r) => Array.from(data.subarray(r * cols, (r + 1) * cols)));
const at = (m, r, c) => m.data[r * m.cols + c];

// Row i of softmax(scale · Q_i·Kᵀ over the allowed keys)·V in float64, for the columns
// [from, from + width) of Q and K and [vFrom, vFrom + vWidth) of V (one head's slices).
function attentionRow(Q, K, V, i, { allowed = () => true, from = 0, width = Q.cols, vFrom = 0, vWidth = V.cols } = {}) {
  const scores = [];
  for (let j = 0; j < K.rows; j++) {
    if (!allowed(j)) continue;
    let dot = 0;
    for (let c = 0; c < width; c++) dot += at(Q, i, from + c) * at(K, j, from + c);
    scores.push([j, dot / Math.sqrt(width)]);
  }
  const max = scores.reduce((m, [, s]) => Math.max(m, s), -Infinity);
  const weights = scores.map(([j, s]) => [j, Math.exp(s - max)]);
  const sum = weights.reduce((total, [, w]) => total + w, 0);
  return Array.from({ length: vWidth }, (_, c) => weights.reduce((total, [j, w]) => total + (w / sum) * at(V, j, vFrom + c), 0));
}

function assertClose(actual, expected, tolerance, what) {
  const worst = Math.max(...expected.map((e, c) => Math.abs(actual[c] - e)));
  assert.ok(worst <= tolerance, `${what}: max abs difference ${worst} > ${tolerance}`);
}

// Runs call() once: prints its wall and CPU time and its peak memory in the core, and checks
// that it gave back what it took and held at most HEAP_SHARE.
function timed(what, call) {
  lab.resetPeakMemory();
  const before = lab.memoryStats();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = call();
  const ms = performance.now() - start;
  const { user, system } = process.cpuUsage(cpu);
  const after = lab.memoryStats();
  const peak = after.peakTrackedBytes - before.trackedBytes;
  console.log(`${what}: ${ms.toFixed(0)} ms (${((user + system) / 1000).toFixed(0)} ms CPU), peak ${(peak / MiB).toFixed(1)} MiB`);
  assert.equal(after.trackedBytes, before.trackedBytes, `${what} gives back what it took`);
  assert.ok(peak <= HEAP_SHARE, `${what} held ${peak} bytes`);
  return result;
}

test(`attention() at ${L.attentionTokens} tokens and ${L.attentionFeatures} features, nested, with every mask`, () => {
  const [n, d] = [L.attentionTokens, L.attentionFeatures];
  const [Q, K, V] = [1, 2, 3].map((seed) => filled(n, d, seed));
  const padding = Array.from({ length: n }, (_, j) => j % 7 === 3);
  const mask = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i + j) % 5 !== 0));
  const request = { Q: nested(Q), K: nested(K), V: nested(V), causal: true, keyPadding: padding, mask };
  const r = timed(`attention ${n}x${d}`, () => lab.attention(request));
  const i = n - 1;
  const expected = attentionRow(Q, K, V, i, { allowed: (j) => j <= i && !padding[j] && mask[i][j] });
  assertClose(r.output[i], expected, 1e-4, 'the last row');
});

// X + PE, then X·W (float64): the trace's projections of row-major inputs.
function positioned(X) {
  const out = { ...X, data: new Float64Array(X.data) };
  for (let p = 0; p < X.rows; p++)
    for (let c = 0; c < X.cols; c++) {
      const angle = p / 10000 ** ((c - (c % 2)) / X.cols);
      out.data[p * X.cols + c] += c % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
    }
  return out;
}
function times(A, B) {
  const out = { rows: A.rows, cols: B.cols, data: new Float64Array(A.rows * B.cols) };
  for (let r = 0; r < A.rows; r++)
    for (let k = 0; k < A.cols; k++) {
      const a = A.data[r * A.cols + k];
      for (let c = 0; c < B.cols; c++) out.data[r * B.cols + c] += a * B.data[k * B.cols + c];
    }
  return out;
}

test(`trace() at ${L.traceTokens} tokens and ${L.traceFeatures} features (traceScores), projected, positions, masks, W_O`, () => {
  const [n, d] = [L.traceTokens, L.traceFeatures];
  const heads = L.traceScores / (n * n);
  const X = filled(n, d, 4);
  const [Wq, Wk, Wv, Wo] = [5, 6, 7, 8].map((seed) => scaled(filled(d, d, seed), Math.sqrt(3 / d)));
  const padding = Array.from({ length: n }, (_, j) => j % 7 === 3);
  const request = {
    X: nested(X),
    Wq: nested(Wq),
    Wk: nested(Wk),
    Wv: nested(Wv),
    Wo: nested(Wo),
    heads,
    causal: true,
    positional: 'sinusoidal',
    keyPadding: padding,
  };
  const t = timed(`trace ${n}x${d}, ${heads} heads`, () => lab.trace(request));
  const XP = positioned(X);
  const i = n - 1;
  const lastRow = { rows: 1, cols: d, data: XP.data.subarray(i * d) };
  const [Q, K, V] = [times(lastRow, Wq), times(XP, Wk), times(XP, Wv)];
  const width = d / heads;
  const concat = { rows: 1, cols: d, data: Float64Array.from({ length: d }) };
  for (let h = 0; h < heads; h++) {
    const slice = { from: h * width, width, vFrom: h * width, vWidth: width, allowed: (j) => j <= i && !padding[j] };
    concat.data.set(attentionRow(Q, K, V, 0, slice), h * width);
  }
  assertClose(t.output[i], Array.from(times(concat, Wo).data), 1e-3, 'the last output row');
});

test(`trace() at ${L.maxHeads} heads (traceScores), Q, K and V given`, () => {
  const n = Math.floor(Math.sqrt(L.traceScores / L.maxHeads));
  const heads = L.maxHeads;
  const [Q, K, V] = [9, 10, 11].map((seed) => filled(n, L.traceFeatures, seed));
  const t = timed(`trace ${n}x${L.traceFeatures}, ${heads} heads`, () => lab.trace({ Q: nested(Q), K: nested(K), V: nested(V), heads, causal: true }));
  const width = L.traceFeatures / heads;
  const i = n - 1;
  const expected = [];
  for (let h = 0; h < heads; h++) expected.push(...attentionRow(Q, K, V, i, { from: h * width, width, vFrom: h * width, vWidth: width }));
  assertClose(t.output[i], expected, 1e-4, 'the last output row');
});

test(`permutationCheck() at ${L.traceTokens} tokens: without positions the output is only reordered`, () => {
  const [n, d] = [L.traceTokens, L.traceFeatures];
  const X = filled(n, d, 12);
  const W = scaled(filled(d, d, 13), Math.sqrt(3 / d));
  const order = Array.from({ length: n }, (_, i) => (i * 7) % n); // 7 is coprime to 512
  const r = timed(`permutationCheck ${n}x${d}`, () => lab.permutationCheck({ X, Wq: W, Wk: W, Wv: W, heads: L.traceScores / (n * n), order }));
  assert.equal(r.reorderedOnly, true);
  assert.ok(r.maxDifference <= r.tolerance);
});

// The long-sequence kernels at the corners of their limits: both work limits at once with one
// head, the most heads, and the longest keys. Each spot-checks one output row in float64.
function longCorners(scores, multiplyAdds) {
  const n = Math.floor(Math.sqrt(scores));
  const width = Math.floor(multiplyAdds / (n * n) / 2); // d = d_v
  const keysOnly = L.flashValues / 16; // K and V of 16 columns at flashValues
  return [
    { what: `${n} tokens, d ${width}`, n_q: n, n_k: n, d: width, heads: 1 },
    {
      what: `${L.maxHeads} heads`,
      n_q: Math.floor(Math.sqrt(scores / L.maxHeads)),
      n_k: Math.floor(Math.sqrt(scores / L.maxHeads)),
      d: 2 * L.maxHeads,
      heads: L.maxHeads,
    },
    { what: `${keysOnly} keys`, n_q: Math.floor(scores / keysOnly), n_k: keysOnly, d: 16, heads: 1 },
  ];
}

for (const [method, scores, multiplyAdds] of [
  ['flashAttention', L.flashScores, L.flashMultiplyAdds],
  ['naiveAttention', L.naiveScores, L.naiveMultiplyAdds],
]) {
  for (const { what, n_q, n_k, d, heads } of longCorners(scores, multiplyAdds)) {
    test(`${method}() at ${what}`, () => {
      assert.ok(n_q * n_k * heads <= scores && n_q * n_k * 2 * d <= multiplyAdds, 'within the work limits');
      const [Q, K, V] = [filled(n_q, d, 14), filled(n_k, d, 15), filled(n_k, d, 16)];
      const { output } = timed(`${method} ${n_q} x ${n_k} keys, width ${d}, ${heads} heads`, () => lab[method]({ Q, K, V, heads }));
      const width = d / heads;
      const i = n_q - 1;
      const h = heads - 1; // the last head
      const expected = attentionRow(Q, K, V, i, { from: h * width, width, vFrom: h * width, vWidth: width });
      assertClose(Array.from(output.data.subarray(i * d + h * width, i * d + (h + 1) * width)), expected, 1e-4, 'the last row, last head');
    });
  }
}

test('checkFlashAttention() at flashValues, and without the work limits (the computing is elsewhere)', () => {
  const [n, d] = [L.flashValues / 1024, 1024];
  const big = filled(n, d, 17);
  const checked = timed(`checkFlashAttention ${n}x${d}`, () => lab.checkFlashAttention({ Q: big, K: big, V: big, heads: 8 }));
  assert.deepEqual([checked.Q.rows, checked.Q.cols], [n, d]);
  assert.ok(n * n * 8 > L.flashScores, 'beyond the work limits of the wasm kernel');
  assert.equal(errorOf(() => lab.flashAttention({ Q: big, K: big, V: big, heads: 8 })).code, 'too-large');
});

test('sampledWeights() at sampledRows x sampledCols over flashValues keys', () => {
  const n = L.flashValues / 16;
  const Q = filled(n, 16, 18);
  const spread = (count) => Array.from({ length: count }, (_, i) => Math.floor((i * (n - 1)) / (count - 1)));
  const [rows, cols] = [spread(L.sampledRows), spread(L.sampledCols)];
  const w = timed(`sampledWeights ${rows.length}x${cols.length} of ${n} keys`, () => lab.sampledWeights({ Q, K: Q, rows, cols }));
  const i = rows.at(-1);
  const dots = Array.from({ length: n }, (_, j) => {
    let dot = 0;
    for (let c = 0; c < 16; c++) dot += at(Q, i, c) * at(Q, j, c);
    return dot / 4;
  });
  const max = dots.reduce((m, x) => Math.max(m, x), -Infinity);
  const sum = dots.reduce((total, s) => total + Math.exp(s - max), 0);
  const expected = cols.slice(0, 64).map((j) => Math.exp(dots[j] - max) / sum);
  assertClose(w.at(-1).slice(0, 64), expected, 1e-9, 'the last row');
});

test('sampledCells() and flashPlan() at their limits: sampledRows x sampledCols, flashValues', () => {
  const n = L.flashValues / 16;
  const Q = filled(n, 16, 18);
  const spread = (count) => Array.from({ length: count }, (_, i) => Math.floor((i * (n - 1)) / (count - 1)));
  const [rows, cols] = [spread(L.sampledRows), spread(L.sampledCols)];
  const cells = timed(`sampledCells ${rows.length}x${cols.length} of ${n} keys, causal, window`, () =>
    lab.sampledCells({ Q, K: Q, rows, cols, causal: true, window: { left: n / 2 } }),
  );
  // The last row sees keys n − 1 − n/2 … n − 1: the first sampled key is hidden, the last not.
  assert.deepEqual([cells.hidden.at(-1)[0], cells.hidden.at(-1).at(-1)], [true, false]);
  assert.equal(cells.visibleKeys.at(-1), n / 2 + 1);
  const big = filled(L.flashValues / 1024, 1024, 17);
  const plan = timed(`flashPlan ${big.rows}x${big.cols}, 8 heads`, () => lab.flashPlan({ Q: big, K: big, V: big, heads: 8 }));
  assert.deepEqual([plan.headWidth, plan.valueWidth], [128, 128]);
});

test('sinusoidalEncoding(), softmaxBreakdown(), tilePlan() and normalMatrix() at their limits', () => {
  const side = L.sinusoidalMax;
  const pe = timed(`sinusoidalEncoding ${side}x${side}`, () => lab.sinusoidalEncoding({ positions: side, width: side }));
  for (const [p, c] of [
    [side - 1, 0],
    [side - 1, side - 1],
    [1234, 777],
  ]) {
    const angle = p / 10000 ** ((c - (c % 2)) / side);
    assert.ok(Math.abs(pe[p][c] - (c % 2 === 0 ? Math.sin(angle) : Math.cos(angle))) <= 1e-6, `PE[${p}][${c}]`);
  }
  const scores = Array.from({ length: L.softmaxRow }, (_, i) => 30 * Math.sin(i));
  const s = timed(`softmaxBreakdown ${scores.length}`, () => lab.softmaxBreakdown({ scores, temperature: 0.5 }));
  const max = Math.max(...scores) / 0.5;
  const sum = scores.reduce((total, x) => total + Math.exp(x / 0.5 - max), 0);
  assert.ok(Math.abs(s.weights[11] - Math.exp(scores[11] / 0.5 - max) / sum) <= 1e-6);
  assert.equal(timed(`tilePlan ${L.maxHeadWidth}`, () => lab.tilePlan({ headWidth: L.maxHeadWidth })).headWidth, L.maxHeadWidth);
  const side2 = Math.sqrt(L.normalValues);
  const { data } = timed(`normalMatrix ${side2}x${side2}`, () => lab.normalMatrix({ rows: side2, cols: side2, seed: 3 }));
  const mean = data.reduce((total, x) => total + x, 0) / data.length;
  const variance = data.reduce((total, x) => total + (x - mean) ** 2, 0) / data.length;
  assert.ok(Math.abs(mean) < 2e-3 && Math.abs(variance - 1) < 2e-3, `mean ${mean}, variance ${variance}`);
});

test('scalingStudy() at scalingDraws: the most samples and keys, and the widest d_k', () => {
  const perDim = Math.floor(L.scalingDraws / (L.scalingMaxSamples * (L.scalingMaxKeys + 1)) / L.scalingDims);
  const widest = Math.floor(L.scalingDraws / (L.scalingMaxKeys + 1) / L.scalingMaxDk);
  for (const request of [
    { dims: new Array(L.scalingDims).fill(perDim), keys: L.scalingMaxKeys, samples: L.scalingMaxSamples },
    { dims: [L.scalingMaxDk], keys: L.scalingMaxKeys, samples: widest },
  ]) {
    const { points } = timed(`scalingStudy ${request.dims.length} dims of ${request.dims[0]}, ${request.keys} keys, ${request.samples} samples`, () =>
      lab.scalingStudy(request),
    );
    // q·k of N(0, 1) entries has standard deviation √d_k (the study's point).
    for (const p of points) assert.ok(Math.abs(p.scoreStd / Math.sqrt(p.dk) - 1) < 0.05, `d_k ${p.dk}: spread ${p.scoreStd}`);
  }
});

// One step beyond each product limit: too-large, naming the product, with no more memory taken
// than the copies of the inputs.
const BEYOND = [
  [
    'traceScores',
    () => {
      const n = Math.floor(Math.sqrt(L.traceScores / L.maxHeads)) + 1;
      const Q = filled(n, L.traceFeatures, 1);
      return () => lab.trace({ Q, K: Q, V: Q, heads: L.maxHeads });
    },
    /scores/,
  ],
  [
    'flashScores',
    () => {
      const Q = filled(Math.floor(L.flashScores / L.flashTokens) + 1, 4, 2);
      const K = filled(L.flashTokens, 4, 3);
      return () => lab.flashAttention({ Q, K, V: K });
    },
    /scores/,
  ],
  [
    'flashMultiplyAdds',
    () => {
      const n = 4096;
      const Q = filled(n, L.flashMultiplyAdds / (n * n) / 2 + 1, 4);
      return () => lab.flashAttention({ Q, K: Q, V: Q });
    },
    /multiply-adds/,
  ],
  [
    'naiveScores',
    () => {
      const Q = filled(4097, 1, 5);
      const K = filled(4096, 1, 6);
      return () => lab.naiveAttention({ Q, K, V: K });
    },
    /scores/,
  ],
  [
    'naiveMultiplyAdds',
    () => {
      const n = 2048;
      const Q = filled(n, L.naiveMultiplyAdds / (n * n) / 2 + 1, 7);
      return () => lab.naiveAttention({ Q, K: Q, V: Q });
    },
    /multiply-adds/,
  ],
  [
    'flashValues',
    () => {
      const Q = filled(L.flashValues / 4096 + 1, 4096, 8);
      return () => lab.checkFlashAttention({ Q, K: Q, V: Q, heads: 8 });
    },
    /values/,
  ],
  [
    'sampledRows',
    () => {
      const Q = filled(64, 4, 9);
      return () => lab.sampledWeights({ Q, K: Q, rows: new Array(L.sampledRows + 1).fill(0), cols: [0] });
    },
    /rows/,
  ],
  [
    'sampledCols',
    () => {
      const Q = filled(64, 4, 10);
      return () => lab.sampledWeights({ Q, K: Q, rows: [0], cols: new Array(L.sampledCols + 1).fill(0) });
    },
    /cols/,
  ],
  ['scalingDraws', () => () => lab.scalingStudy({ dims: [L.scalingMaxDk], keys: L.scalingMaxKeys, samples: L.scalingMaxSamples }), /draw/],
];

for (const [limit, make, mentions] of BEYOND) {
  test(`one step beyond ${limit} is too-large, refused before the work`, () => {
    const call = make();
    lab.resetPeakMemory();
    const before = lab.memoryStats();
    const { code, message } = errorOf(call);
    const after = lab.memoryStats();
    assert.equal(code, 'too-large', message);
    assert.match(message, mentions);
    assert.match(message, new RegExp(`at most ${L[limit]}|more than the ${L[limit]} allowed`));
    assert.equal(after.trackedBytes, before.trackedBytes);
    // The inputs' copies (float32, at most flashValues each) are all the core took.
    assert.ok(after.peakTrackedBytes - before.trackedBytes <= 3 * 4 * L.flashValues + 4 * MiB);
  });
}

// The learning module's entries at their limits (issue 29, item 5): the backward trace and
// checkGradient at backwardTokens × backwardFeatures (at the trace's 512 × 512 they took
// 1.5–2.5 s and 5.6–7.6 s). Their CPU time is asserted, with room for a shared machine; the
// oracle is the check's own finite differences in float64 and the trace's gradient entry.
await lab.loadLearning();
const CPU_BOUND_MS = 1500;

function cpuTimed(what, call) {
  const cpu = process.cpuUsage();
  const result = timed(what, call);
  const { user, system } = process.cpuUsage(cpu);
  assert.ok((user + system) / 1000 <= CPU_BOUND_MS, `${what} took ${((user + system) / 1000).toFixed(0)} ms of CPU`);
  return result;
}

const learningRequest = (n = L.backwardTokens, d = L.backwardFeatures) => {
  const [Wq, Wk, Wv, Wo] = [14, 15, 16, 18].map((seed) => nested(scaled(filled(d, d, seed), Math.sqrt(3 / d))));
  return { X: nested(filled(n, d, 13)), Wq, Wk, Wv, Wo, causal: true, dOutput: nested(filled(n, d, 17)) };
};

test(`trace() with dOutput at ${L.backwardTokens} tokens and ${L.backwardFeatures} features: the backward steps`, () => {
  const request = learningRequest();
  const t = cpuTimed(`trace with dOutput ${L.backwardTokens}x${L.backwardFeatures}`, () => lab.trace(request));
  const gradX = t.steps.find((s) => s.id === 'grad-x');
  assert.deepEqual(gradX.shape, [L.backwardTokens, L.backwardFeatures]);
  const c = lab.checkGradient(request, { parameter: 'X', row: L.backwardTokens - 1, col: 7 });
  assert.equal(c.analytic, gradX.values[L.backwardTokens - 1][7]);
  assert.ok(c.relativeError <= 1e-3, JSON.stringify(c));
});

for (const parameter of ['X', 'Wq', 'Wv', 'Wo']) {
  test(`checkGradient() of ${parameter} at ${L.backwardTokens} tokens and ${L.backwardFeatures} features`, () => {
    const request = learningRequest();
    const c = cpuTimed(`checkGradient ${parameter} ${L.backwardTokens}x${L.backwardFeatures}`, () => lab.checkGradient(request, { parameter, row: 3, col: 5 }));
    assert.ok(c.relativeError <= 1e-3, JSON.stringify(c));
  });
}

test('one step beyond backwardTokens or backwardFeatures is too-large, with dOutput only', () => {
  for (const [n, d] of [
    [L.backwardTokens + 1, 8],
    [8, L.backwardFeatures + 8],
  ]) {
    const request = learningRequest(n, d);
    for (const call of [() => lab.trace(request), () => lab.checkGradient(request, { parameter: 'X', row: 0, col: 0 })]) {
      const { code, message } = errorOf(call);
      assert.equal(code, 'too-large', message);
      assert.match(message, new RegExp(`at most ${L.backwardTokens} tokens and ${L.backwardFeatures} features`));
    }
    const { dOutput, ...forward } = request;
    assert.equal(errorOf(() => lab.trace(forward)).code, 'no error');
  }
});

test('attentionBackward(), decode(), flashWalk() and a trainer at their limits', async () => {
  const [n, d] = [L.attentionTokens, L.attentionFeatures];
  const [Q, K, V, dO] = [19, 20, 21, 22].map((seed) => nested(filled(n, d, seed)));
  const g = timed(`attentionBackward ${n}x${d}`, () => lab.attentionBackward({ Q, K, V, dO, causal: true }));
  assert.deepEqual([g.dQ.length, g.dK[0].length, g.dV.length], [n, d, n]);
  // With a past cache: its rows and K's make attentionTokens keys; dK and dV span them all.
  const half = (m) => m.slice(0, n / 2);
  const c = timed(`attentionBackward ${n}x${d} after ${n / 2} cached keys`, () =>
    lab.attentionBackward({ Q, K: half(K), V: half(V), pastKey: half(Q), pastValue: half(dO), dO, causal: true }),
  );
  assert.deepEqual([c.dK.length, c.dV.length], [n, n]);
  const m = nested(filled(L.decodeTokens, L.traceFeatures, 23));
  const out = timed(`decode ${L.decodeTokens}x${L.traceFeatures}`, () => lab.decode({ Q: m, K: m, V: m }));
  assert.equal(out.steps.length, L.decodeTokens);
  // From a past cache: its rows and the tokens make decodeKeys keys; one more is refused.
  const past = nested(filled(L.decodeKeys - L.decodeTokens, L.traceFeatures, 25));
  const cached = timed(`decode ${L.decodeTokens} after ${past.length} cached`, () => lab.decode({ Q: m, K: m, V: m, pastKey: past, pastValue: past }));
  assert.equal(cached.steps.at(-1).heads[0].keys.length, L.decodeKeys);
  const beyond = errorOf(() => lab.decode({ Q: m, K: m, V: m, pastKey: [...past, past[0]], pastValue: [...past, past[0]] }));
  assert.equal(beyond.code, 'too-large', beyond.message);
  const w = nested(filled(L.walkTokens, L.walkFeatures, 24));
  timed(`flashWalk ${L.walkTokens}x${L.walkFeatures}`, () => lab.flashWalk({ Q: w, K: w, V: w, causal: true }));
  const config = {
    layers: L.trainLayers,
    heads: L.trainHeads,
    dModel: L.trainDModel,
    contextLength: L.trainContext,
    vocab: L.trainVocab,
    batch: L.trainBatch,
    task: 'induction',
  };
  const trainer = await lab.trainer(config);
  try {
    const [start, cpu] = [performance.now(), process.cpuUsage()];
    const progress = trainer.step(L.trainSteps);
    const { user, system } = process.cpuUsage(cpu);
    console.log(
      `trainer step(${L.trainSteps}) at every training limit: ${(performance.now() - start).toFixed(0)} ms (${((user + system) / 1000).toFixed(0)} ms CPU)`,
    );
    assert.equal(progress.step, L.trainSteps);
    assert.ok(Number.isFinite(progress.loss));
  } finally {
    trainer.delete();
  }
});
