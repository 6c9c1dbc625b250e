// Random requests for the fuzz test (fuzz.test.js), from a seeded generator: valid ones for
// every entry, with `model` (the inputs as the core sees them, float32-rounded number[][],
// for the float64 reference), and invalid ones made from a valid one by a single mutation
// whose error codes are known from the README (Errors, Limits). Sizes stay small so that
// thousands of cases fit in the test's time.
/** A seeded generator (mulberry32): float() in [0, 1), int(lo, hi) inclusive, chance(p), pick(list). */
export function random(seed) {
  let a = seed >>> 0;
  const float = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(float() * (hi - lo + 1));
  return { float, int, chance: (p) => float() < p, pick: (list) => list[int(0, list.length - 1)] };
}

const sign = (r) => (r.chance(0.5) ? 1 : -1);
// Magnitudes across float32's range: zeros, tiny and subnormal values, huge values whose
// products overflow, and values next to the largest float32.
const WIDE = [
  () => 0,
  () => -0,
  (r) => r.int(-5, 5),
  (r) => sign(r) * 10 ** (10 * r.float() - 5),
  (r) => sign(r) * 10 ** (-38 + 8 * r.float()),
  (r) => sign(r) * 1e-42,
  (r) => sign(r) * 10 ** (18 + 12 * r.float()),
  (r) => sign(r) * (1e37 + 3.3e38 * r.float()),
];
const REGIMES = {
  plain: (r) => (r.chance(0.1) ? r.int(-3, 3) : 6 * r.float() - 3),
  wide: (r) => r.pick(WIDE)(r),
  huge: (r) => sign(r) * 10 ** (15 + 15 * r.float()),
  tiny: (r) => sign(r) * 10 ** (-40 + 20 * r.float()),
};
// Most cases are plain, so that the reference checks are tight; the rest draw each matrix's
// values from one regime.
const regimeOf = (r) => (r.chance(0.55) ? () => 'plain' : () => r.pick(Object.keys(REGIMES)));

/** A small size: mostly 1 … max, now and then up to 20. */
const size = (r, max = 6) => (r.chance(0.9) ? r.int(1, max) : r.int(max + 1, 20));
const positive = (r, plain) => (plain || r.chance(0.5) ? 0.1 + 3 * r.float() : 10 ** (60 * r.float() - 30));
const f32 = (m) => m.map((row) => row.map(Math.fround));

/** rows × cols raw values (the request) and their float32 rounding (the model). */
function draw(r, rows, cols, regime) {
  const value = REGIMES[regime()];
  const raw = Array.from({ length: rows }, () => Array.from({ length: cols }, () => value(r)));
  return { raw, model: f32(raw) };
}

/** The matrix as one of the forms the package takes: nested rows, or flat with typed or plain data. */
function encode(r, m) {
  const [rows, cols, flat] = [m.length, m[0].length, m.flat()];
  const form = r.int(0, 5);
  if (form === 0) return { rows, cols, data: Float32Array.from(flat) };
  if (form === 1) return { rows, cols, data: flat };
  if (form === 2) return { rows, cols, data: Float64Array.from(flat) };
  return m.map((row) => row.slice());
}

function encodeMask(r, m) {
  if (r.chance(0.3)) return { rows: m.length, cols: m[0].length, data: Uint8Array.from(m.flat(), Number) };
  return r.chance(0.5) ? m.map((row) => row.slice()) : m.map((row) => row.map(Number));
}

/** Adds matrices { name: [rows, cols] } to request and model. */
function matrices(r, request, model, shapes, regime) {
  for (const [name, [rows, cols]] of Object.entries(shapes)) {
    const { raw, model: m } = draw(r, rows, cols, regime);
    request[name] = encode(r, raw);
    model[name] = m;
  }
}

/** The attention options, each present or not: causal, keyPadding, mask, scale, temperature. */
function options(r, request, model, nq, nk, { plain, temperature = true } = {}) {
  if (r.chance(0.4)) request.causal = model.causal = r.chance(0.6);
  if (r.chance(0.25)) {
    model.keyPadding = Array.from({ length: nk }, () => r.chance(0.3));
    request.keyPadding = r.chance(0.8) ? model.keyPadding.slice() : model.keyPadding.map(Number);
  }
  if (r.chance(0.25)) {
    model.mask = Array.from({ length: nq }, () => Array.from({ length: nk }, () => r.chance(0.7)));
    request.mask = encodeMask(r, model.mask);
  }
  if (r.chance(0.3)) model.scale = Math.fround((request.scale = positive(r, plain)));
  if (temperature && r.chance(0.3)) model.temperature = Math.fround((request.temperature = positive(r, plain)));
}

function attention(r) {
  const regime = regimeOf(r);
  const [nq, nk, d, dv] = [size(r), size(r), size(r, 8), size(r, 8)];
  const request = {};
  const model = {};
  matrices(r, request, model, { Q: [nq, d], K: [nk, d], V: [nk, dv] }, regime);
  options(r, request, model, nq, nk, { plain: regime() === 'plain' });
  return { request, model };
}

function trace(r, { projected = r.chance(0.5) } = {}) {
  const regime = regimeOf(r);
  const heads = r.pick([1, 1, 1, 2, 3, 4]);
  const [dk, dv] = [heads * size(r, 4), heads * size(r, 4)];
  const request = {};
  const model = { heads, projected };
  const [nq, nk] = projected ? Array(2).fill(size(r)) : [size(r), size(r)];
  if (projected) {
    const dm = size(r);
    matrices(r, request, model, { X: [nq, dm], Wq: [dm, dk], Wk: [dm, dk], Wv: [dm, dv] }, regime);
    if (r.chance(0.6)) request.positional = model.positional = r.pick(['none', 'sinusoidal']);
  } else {
    matrices(r, request, model, { Q: [nq, dk], K: [nk, dk], V: [nk, dv] }, regime);
    if (r.chance(0.2)) request.positional = 'none';
  }
  if (r.chance(0.4)) matrices(r, request, model, { Wo: [dv, size(r)] }, regime);
  if (heads > 1 || r.chance(0.3)) request.heads = heads;
  if (r.chance(0.3)) request.tokens = model.tokens = Array.from({ length: nq }, (_, i) => `t${i}`);
  options(r, request, model, nq, nk, { plain: regime() === 'plain' });
  return { request, model };
}

function shuffled(r, n) {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = r.int(0, i);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

function permutationCheck(r) {
  const { request, model } = trace(r, { projected: true });
  request.order = model.order = shuffled(r, model.X.length);
  return { request, model };
}

// Mostly short sequences; now and then long enough to cross the kernels' 64-query and
// 256-key blocks.
const sequence = (r) => (r.chance(0.9) ? size(r, 12) : r.int(50, 300));

function long(r) {
  const regime = regimeOf(r);
  const heads = r.pick([1, 1, 2, 3]);
  const d = r.chance(0.95) ? size(r, 8) : r.pick([64, 100]);
  const [nq, nk] = [sequence(r), sequence(r)];
  const request = {};
  const model = { heads };
  matrices(r, request, model, { Q: [nq, heads * d], K: [nk, heads * d], V: [nk, heads * size(r, 8)] }, regime);
  if (heads > 1 || r.chance(0.3)) request.heads = heads;
  if (r.chance(0.5)) request.causal = model.causal = r.chance(0.7);
  if (r.chance(0.3)) model.scale = Math.fround((request.scale = positive(r, regime() === 'plain')));
  return { request, model };
}

function sampledWeights(r) {
  const { request, model } = long(r);
  delete request.V;
  model.head = r.int(0, model.heads - 1);
  if (model.head > 0 || r.chance(0.5)) request.head = model.head;
  const indices = (n) => Array.from({ length: r.int(0, 5) }, () => r.int(0, n - 1));
  request.rows = model.rows = indices(model.Q.length);
  request.cols = model.cols = indices(model.K.length);
  return { request, model };
}

function softmaxBreakdown(r) {
  const regime = regimeOf(r);
  const { raw, model } = draw(r, 1, r.chance(0.9) ? size(r, 12) : r.int(13, 300), regime);
  const request = { scores: r.chance(0.7) ? raw[0] : Float32Array.from(raw[0]) };
  const temperature = r.chance(0.4) ? positive(r, regime() === 'plain') : undefined;
  if (temperature !== undefined) request.temperature = temperature;
  return { request, model: { scores: model[0], temperature: Math.fround(temperature ?? 1) } };
}

function sinusoidalEncoding(r) {
  // Now and then at the limit (lab.limits().sinusoidalMax, 2048).
  const [tokens, width] = r.chance(0.05)
    ? r.pick([
        [1, 2048],
        [2048, 1],
        [64, 512],
      ])
    : [r.int(1, 40), r.int(1, 40)];
  return { request: { tokens, width }, model: { tokens, width } };
}

function scalingStudy(r) {
  const request = { dims: Array.from({ length: r.int(1, 3) }, () => (r.chance(0.9) ? r.int(1, 64) : r.int(65, 512))) };
  const model = { dims: request.dims, keys: 16, samples: 256, seed: 1 };
  if (r.chance(0.7)) request.keys = model.keys = r.int(2, r.chance(0.9) ? 16 : 64);
  if (r.chance(0.95)) request.samples = model.samples = r.int(1, 8);
  if (r.chance(0.7)) request.seed = model.seed = r.int(0, 2 ** 32 - 1);
  if (model.samples * model.keys * Math.max(...model.dims) > 200_000) model.samples = request.samples = 1;
  return { request, model };
}

function normalMatrix(r) {
  const request = { rows: size(r, 10), cols: size(r, 10) };
  if (r.chance(0.7)) request.seed = r.int(0, 2 ** 32 - 1);
  return { request, model: { ...request, seed: request.seed ?? 1 } };
}

function tilePlan(r) {
  const headWidth = r.chance(0.9) ? r.int(1, 512) : r.pick([0, 513, 1000, 2 ** 31]);
  return { request: { headWidth }, model: { headWidth } };
}

const LONG_ENTRIES = ['flashAttention', 'naiveAttention', 'checkFlashAttention'];

/** Per family: the entries one case calls, its generator, and the older positional form if any. */
export const FAMILIES = {
  attention: { entries: ['attention'], make: attention },
  trace: { entries: ['trace'], make: trace },
  permutationCheck: { entries: ['permutationCheck'], make: permutationCheck, older: ({ order, ...rest }) => [rest, order] },
  long: { entries: LONG_ENTRIES, make: long },
  sampledWeights: { entries: ['sampledWeights'], make: sampledWeights },
  softmaxBreakdown: {
    entries: ['softmaxBreakdown'],
    make: softmaxBreakdown,
    older: ({ scores, temperature }) => (temperature === undefined ? [scores] : [scores, temperature]),
  },
  sinusoidalEncoding: { entries: ['sinusoidalEncoding'], make: sinusoidalEncoding, older: ({ tokens, width }) => [tokens, width] },
  scalingStudy: { entries: ['scalingStudy'], make: scalingStudy },
  normalMatrix: { entries: ['normalMatrix'], make: normalMatrix },
  tilePlan: { entries: ['tilePlan'], make: tilePlan, older: ({ headWidth }) => [headWidth] },
};
