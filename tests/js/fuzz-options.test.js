// A seeded fuzz of the frameworks' options that fuzz.test.js and fuzz-learning.test.js do not
// draw (issue 29): causalAlignment, a window of one number or { left, right } with global
// tokens, softcap, bias, pastKey/pastValue, in attention(), attentionBackward(), trace() and
// decode(); and every long-sequence option (heads, kvHeads, batch, causalAlignment, window,
// keyPadding, softcap, bias, ALiBi, scale) in flashAttention(), naiveAttention(),
// checkFlashAttention(), flashPlan() and sampledCells(). Requests are valid about two thirds of
// the time; the rest carry hostile values (NaN, ±Infinity, huge numbers, wrong types and shapes).
// Properties of every call: it returns, or throws AttnLabError with a code of ERROR_CODES and a
// message; the core's live memory is back to its baseline; a result holds no NaN or ±Infinity
// where the typings promise numbers. On moderate values the results agree with a float64
// reference written from the documented rules (support/options-reference.js): attention's and
// trace's output and weights, attentionBackward's dV (Aᵀ·dOutput), flash's and naive's output,
// sampledCells' weights; flashPlan refuses exactly what checkFlashAttention refuses.
// ATTNLAB_FUZZ_SEED=<seed> replays a run; ATTNLAB_FUZZ_SECONDS sets the time (10).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { random } from './support/fuzz-requests.js';
import { fuzzRun } from './support/fuzz-seed.js';
import { headReference, slice, transposeTimes, worstDifference } from './support/options-reference.js';
import { attnlab } from './support/package.js';

const lab = await attnlab.createAttnLab();
await lab.loadLearning();
const { AttnLabError, ERROR_CODES } = attnlab;
const { SEED, SECONDS } = fuzzRun('fuzz-options', 10);

// Moderate values keep every float32 sum far from its limits, so the reference's tolerance is
// float32 rounding times a small factor; hostile ones span float32 and beyond.
const HOSTILE = [0, -0, 1e-42, 3e38, -3e38, 1e20, 1e39, NaN, Infinity, -Infinity];
const value = (r, moderate) => (moderate || r.chance(0.9) ? 4 * r.float() - 2 : r.pick(HOSTILE));
const matrix = (r, rows, cols, moderate) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => value(r, moderate)));
const odd = (r) => r.pick([-1, 1.5, NaN, Infinity, '2', null, {}, [], 2 ** 53]);

// What the option fuzz draws for one field: mostly valid, now and then hostile.
const windowOf = (r, moderate) =>
  !moderate && r.chance(0.1)
    ? r.pick([-1, 1.5, { left: -2 }, { right: NaN }, { left: '1' }, { middle: 1 }, null])
    : r.chance(0.5)
      ? r.int(0, 5)
      : r.chance(0.5)
        ? { left: r.int(0, 4), right: r.int(0, 4) }
        : r.chance(0.5)
          ? { left: r.int(0, 4) }
          : { right: r.int(0, 4) };
const biasOf = (r, rows, cols, moderate) => {
  const m = matrix(r, rows, cols, true).map((row) => row.map((x) => (r.chance(0.15) ? -Infinity : 2 * x)));
  if (!moderate && r.chance(0.3))
    return r.chance(0.5) ? matrix(r, rows, cols + 1, true) : m.map((row) => row.map((x) => (r.chance(0.2) ? r.pick([Infinity, NaN, 1e39]) : x)));
  return m;
};
const pick = (r, p, moderate, valid, hostile) => (r.chance(p) ? (!moderate && r.chance(0.1) ? hostile() : valid()) : undefined);

function optionsFor(r, nq, nk, moderate) {
  return {
    causal: pick(
      r,
      0.4,
      moderate,
      () => true,
      () => r.pick(['yes', 1]),
    ),
    causalAlignment: pick(
      r,
      0.4,
      moderate,
      () => r.pick(['top-left', 'bottom-right', r.int(-nq, nk)]),
      () => r.pick(['middle', 1.5, '', nk + 1, -nq - 1]),
    ),
    window: pick(
      r,
      0.4,
      moderate,
      () => windowOf(r, moderate),
      () => odd(r),
    ),
    softcap: pick(
      r,
      0.3,
      moderate,
      () => r.pick([0.5, 1, 5, 50]),
      () => r.pick([0, -1, NaN, Infinity, 1e39, 1e-42]),
    ),
    bias: pick(
      r,
      0.3,
      moderate,
      () => biasOf(r, nq, nk, moderate),
      () => matrix(r, nk, nq + 1, true),
    ),
    keyPadding: pick(
      r,
      0.2,
      moderate,
      () => Array.from({ length: nk }, () => r.chance(0.2)),
      () => Array(nk + 1).fill(false),
    ),
    scale: pick(
      r,
      0.2,
      moderate,
      () => r.pick([0.1, 0.5, 2]),
      () => r.pick([0, -1, NaN, 1e39]),
    ),
  };
}

const defined = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const held = () => {
  const { trackedBytes, learningAllocatedBytes } = lab.memoryStats();
  return { trackedBytes, learningAllocatedBytes };
};

// [path, value] of every NaN or ±Infinity under the given fields (−∞ where `masked` allows it).
function nonFinite(value, path, out = []) {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) out.push([path, value]);
  } else if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    for (let i = 0; i < value.length; i++) nonFinite(value[i], `${path}[${i}]`, out);
  } else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) nonFinite(v, `${path}.${key}`, out);
  }
  return out;
}

/** Calls `call`: a result, or an AttnLabError; memory back to `baseline` either way. */
function outcome(what, call, baseline) {
  let result, error;
  try {
    result = call();
  } catch (caught) {
    if (!(caught instanceof AttnLabError)) throw new Error(`${what} threw ${caught?.name}: ${caught?.message}`, { cause: caught });
    assert.ok(ERROR_CODES.includes(caught.code) && caught.message.length > 0, `${what}: ${caught.code}`);
    error = caught;
  }
  assert.deepEqual(held(), baseline, `${what}: memory back to its baseline`);
  return { result, error };
}

const tolerance = (V) => 1e-4 * Math.max(1, ...V.flat().map(Math.abs));
const closeTo = (what, got, want, tol) => {
  const worst = worstDifference(got, want);
  assert.ok(worst <= tol, `${what}: off the float64 reference by ${worst} (tolerance ${tol})`);
};

// The long-sequence entries' flat matrices.
const flat = (m) => ({ rows: m.length, cols: m[0]?.length ?? 0, data: Float32Array.from(m.flat()) });
const nestedOf = ({ rows, cols, data }) => Array.from({ length: rows }, (_, i) => Array.from(data.subarray(i * cols, (i + 1) * cols)));
// Flash takes no cache: its keys are the cache's and the new ones, and a named alignment becomes
// the key position it gives query 0 over them.
const alignmentOf = (alignment, nq, nk) => (alignment === 'bottom-right' ? nk - nq : alignment === 'top-left' ? 0 : alignment);

// attention(), attentionBackward(), trace() and decode() on one request of one head.
function attentionCase(r, baseline, counts) {
  const moderate = r.chance(0.6);
  const d = r.int(1, 4),
    dv = r.int(1, 4),
    nq = r.int(1, 5),
    nk = r.int(1, 5);
  const past = r.chance(0.35) ? r.int(1, 3) : 0;
  const request = {
    Q: matrix(r, nq, d, moderate),
    K: matrix(r, nk, d, moderate),
    V: matrix(r, nk, dv, moderate),
    ...defined(optionsFor(r, nq, nk + past, moderate)),
  };
  if (past) {
    request.pastKey = matrix(r, past, d, moderate);
    request.pastValue = !moderate && r.chance(0.15) ? matrix(r, past + 1, dv, true) : matrix(r, past, dv, moderate);
  }
  if (r.chance(0.2)) request.globalTokens = [r.int(0, nk + past - 1)];
  if (r.chance(0.15)) request.temperature = moderate ? r.pick([0.5, 2]) : odd(r);
  const forward = outcome('attention', () => lab.attention(request), baseline);
  const traced = outcome('trace', () => lab.trace(request), baseline);
  // ALiBi in the trace places its distances where the causal rule places the queries, as flash
  // does: one head (slope 2^−8), every alignment, with and without a past cache.
  const alibi = outcome('trace with ALiBi', () => lab.trace({ ...request, alibi: true }), baseline);
  const dOutput = matrix(r, nq, dv, true);
  const backward = outcome('attentionBackward', () => lab.attentionBackward({ ...request, dOutput }), baseline);
  const decoded = outcome('decode', () => lab.decode(request), baseline);
  for (const [what, o] of Object.entries({ forward, traced, backward, decoded })) counts[what][o.error ? 'refused' : 'returned']++;
  if (forward.result) assert.deepEqual(nonFinite({ output: forward.result.output, weights: forward.result.weights }, 'attention'), []);
  if (traced.result) assert.deepEqual(nonFinite(traced.result.output, 'trace.output'), []);
  if (backward.result) assert.deepEqual(nonFinite(backward.result, 'attentionBackward'), []);
  if (decoded.result) assert.deepEqual(nonFinite(decoded.result.output ?? [], 'decode.output'), []);
  // The same request: attention and trace both refuse it or both take it (the trace takes every
  // field; with two faults each may name another first).
  assert.equal(Boolean(traced.error), Boolean(forward.error), `trace and attention: ${traced.error?.message} / ${forward.error?.message}`);
  if (!moderate || forward.error) return;
  const K = [...(request.pastKey ?? []), ...request.K];
  const V = [...(request.pastValue ?? []), ...request.V];
  const alignment = request.causalAlignment ?? (past ? 'bottom-right' : 'top-left');
  const ref = headReference({ ...request, K, V, alignment });
  closeTo('attention output', forward.result.output, ref.output, tolerance(V));
  closeTo('attention weights', forward.result.weights, ref.weights, 1e-5);
  closeTo('trace output', traced.result.output, ref.output, tolerance(V));
  assert.ok(alibi.result, `trace refused ALiBi on a request it took: ${alibi.error?.message}`);
  const withSlope = headReference({ ...request, K, V, alignment, slope: 2 ** -8 });
  closeTo('trace output with ALiBi', alibi.result.output, withSlope.output, tolerance(V));
  if (request.globalTokens || request.temperature) return; // flash takes neither
  const { pastKey, pastValue, ...rules } = request; // flash's keys hold the cache's
  const longRequest = { ...rules, Q: flat(request.Q), K: flat(K), V: flat(V), causalAlignment: alignmentOf(alignment, nq, K.length), alibi: true };
  const long = outcome('flashAttention with ALiBi', () => lab.flashAttention(longRequest), baseline);
  assert.ok(long.result, `flashAttention refused what trace took: ${long.error?.message}`);
  closeTo('flash output with ALiBi against the trace', nestedOf(long.result.output), alibi.result.output, tolerance(V));
  assert.ok(backward.result, `attentionBackward refused a request attention() took: ${backward.error?.message}`);
  closeTo('attentionBackward dV', backward.result.dV, transposeTimes(ref.weights, dOutput), tolerance(dOutput) * Math.max(1, nq));
}

function longCase(r, baseline, counts) {
  const moderate = r.chance(0.6);
  const heads = r.pick([1, 2, 4]),
    kvHeads = r.pick([0, 0, 1, 2, heads]);
  const kv = kvHeads || heads;
  const batch = r.pick([1, 1, 2]);
  const d = r.int(1, 3),
    dv = r.int(1, 3),
    nq = r.int(1, 6),
    nk = r.int(1, 6);
  const Q = matrix(r, batch * nq, heads * d, moderate),
    K = matrix(r, batch * nk, kv * d, moderate),
    V = matrix(r, batch * nk, kv * dv, moderate);
  const options = defined({ ...optionsFor(r, nq, nk, moderate), alibi: r.chance(0.2) || undefined });
  const request = { Q: flat(Q), K: flat(K), V: flat(V), heads, kvHeads, batch, ...options };
  if (!moderate && r.chance(0.2))
    Object.assign(request, r.pick([{ heads: odd(r) }, { kvHeads: 3 }, { batch: 3 }, { threads: -1 }, { K: flat(matrix(r, nk, kv * d + 1, true)) }]));
  const checked = outcome('checkFlashAttention', () => lab.checkFlashAttention(request), baseline);
  const plan = outcome('flashPlan', () => lab.flashPlan(request), baseline);
  assert.equal(plan.error?.code, checked.error?.code, `flashPlan refuses what checkFlashAttention refuses: ${plan.error?.message} / ${checked.error?.message}`);
  const results = ['flashAttention', 'naiveAttention'].map((entry) => [entry, outcome(entry, () => lab[entry](request), baseline)]);
  // sampledCells takes one sequence and every score rule the kernels take (the band, padding,
  // softcap, bias, ALiBi): its cells are checked against the same reference as their output.
  const rows = [r.int(0, nq - 1), r.int(0, nq)],
    cols = [r.int(0, nk - 1), r.int(0, nk)];
  const head = r.int(0, heads);
  const cellsRequest = { Q: flat(Q.slice(0, nq)), K: flat(K.slice(0, nk)), heads: request.heads, kvHeads: request.kvHeads, ...options, rows, cols, head };
  const cells = outcome('sampledCells', () => lab.sampledCells(cellsRequest), baseline);
  counts.long[checked.error ? 'refused' : 'returned']++;
  counts.sampledCells[cells.error ? 'refused' : 'returned']++;
  for (const [entry, o] of results) {
    if (checked.error) assert.equal(o.error?.code, checked.error.code, `${entry} refuses what checkFlashAttention refuses`);
    if (o.result) assert.deepEqual(nonFinite(o.result.output, entry), []);
  }
  if (cells.result) assert.deepEqual(nonFinite(cells.result.weights, 'sampledCells'), []);
  if (!moderate || checked.error) return;
  // Each (sequence, head) against the reference; the bias is the same for every one.
  const group = heads / kv;
  for (let b = 0; b < batch; b++)
    for (let h = 0; h < heads; h++) {
      const g = Math.floor(h / group);
      const part = (m, n, from, count) => slice(m.slice(b * n, (b + 1) * n), from, count);
      const slope = options.alibi ? 2 ** ((-8 * (h + 1)) / heads) : 0;
      const ref = headReference({
        ...options,
        Q: part(Q, nq, h * d, d),
        K: part(K, nk, g * d, d),
        V: part(V, nk, g * dv, dv),
        slope,
        alignment: options.causalAlignment,
      });
      for (const [entry, o] of results) {
        assert.ok(o.result, `${entry} refused a request the check took: ${o.error?.message}`);
        closeTo(`${entry} head ${h} of sequence ${b}`, part(nestedOf(o.result.output), nq, h * dv, dv), ref.output, tolerance(V));
      }
      if (b === 0 && h === head && cells.result) {
        const want = rows.map((i) => cols.map((j) => ref.weights[i][j]));
        closeTo('sampledCells weights', cells.result.weights, want, 1e-5);
      }
    }
}

test(`fuzz: the frameworks' options and every long-sequence option for ${SECONDS} s`, () => {
  lab.attention({ Q: [[1]], K: [[1]], V: [[1]] }); // the first call allocates what the core keeps
  const baseline = held();
  const counts = Object.fromEntries(['forward', 'traced', 'backward', 'decoded', 'long', 'sampledCells'].map((k) => [k, { returned: 0, refused: 0 }]));
  const end = Date.now() + SECONDS * 1000;
  let cases = 0;
  for (; Date.now() < end; cases++) {
    const r = random((SEED + Math.imul(cases + 1, 0x9e3779b9)) >>> 0);
    try {
      if (r.chance(0.5)) attentionCase(r, baseline, counts);
      else longCase(r, baseline, counts);
    } catch (error) {
      error.message = `case ${cases} of seed ${SEED}: ${error.message}`;
      throw error;
    }
  }
  console.log(`fuzz-options: ${cases} cases; returned / refused: ${JSON.stringify(counts)}`);
  // Each entry both returned and refused: the draws reach past the checks and into them.
  for (const [what, c] of Object.entries(counts)) assert.ok(c.returned > 0 && c.refused > 0, `${what}: ${JSON.stringify(c)}`);
});
