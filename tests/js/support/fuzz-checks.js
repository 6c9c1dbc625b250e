// What the fuzz test checks on the result of a valid request, entry by entry, against the
// float64 references (tests/support/) with the tolerances of fuzz-tolerance.js; and which
// refusals such a request may get (an overflow of float32, a scale / temperature outside it).
import assert from 'node:assert/strict';

import * as ref from '../../support/float64-steps.js';
import { normalValues, scalingPoint } from '../../support/random-reference.js';
import { OVERFLOW_LIMIT, SUBNORMAL, TINY, U, assertConvex, headTolerances, maxAbs, near, nearProduct, softmaxTolerances } from './fuzz-tolerance.js';

const hasMask = (m) => Boolean(m.causal || m.keyPadding || m.mask);
const options = ({ causal, keyPadding, mask, scale, temperature }) => ({ causal, keyPadding, mask, scale, temperature });
const headSlices = (m, heads, h) => ['Q', 'K', 'V'].map((name) => m[name] && ref.columns(m[name], (h * m[name][0].length) / heads, m[name][0].length / heads));
const nested = ({ rows, cols, data }) => Array.from({ length: rows }, (_, i) => Array.from(data.subarray(i * cols, (i + 1) * cols)));

/**
 * One head's results (any of scores … output present in `got`) against the reference on
 * (Q, K, V): end to end within the tolerances, and step by step from the core's own logits
 * and weights, which stays tight when huge logits leave the end-to-end bound loose.
 */
function checkHead(what, got, { Q, K, V, ...opts }) {
  const a = ref.attention({ Q, K, V, ...opts });
  const t = headTolerances(a, Q[0].length, V);
  if (got.scores) near(`${what}.scores`, got.scores, a.scores, t.scores);
  if (got.scaled) near(`${what}.scaled`, got.scaled, a.scaled, t.logit);
  if (got.logits) {
    near(`${what}.logits`, got.logits, a.logits, t.logit);
    near(`${what}.rowMax`, got.rowMax, a.rowMax, t.E);
    near(`${what}.exponentials`, got.exponentials, a.exponentials, t.e);
    near(`${what}.rowSum`, got.rowSum, a.rowSum, t.rowSum);
    got.logits.forEach((row, i) => {
      const s = ref.softmax(row);
      const tol = softmaxTolerances(row, s.max, s.sum, 0).map((x) => x.w);
      near(`${what}.weights[${i}] from its logits`, got.weights[i], s.weights, tol);
    });
    nearProduct(`${what}.output from its weights`, got.output, got.weights, V);
  }
  if (got.factor !== undefined) {
    near(`${what}.scale`, got.scale, a.scale, 2 * U * a.scale);
    assert.equal(got.temperature, opts.temperature ?? 1, `${what}.temperature`);
    near(`${what}.factor`, got.factor, a.factor, 4 * U * a.factor + SUBNORMAL);
  }
  near(`${what}.weights`, got.weights, a.weights, t.w);
  near(`${what}.output`, got.output, a.output, t.output);
  return a;
}

function checkAttention(r, m) {
  const a = checkHead('attention', r, m);
  assert.deepEqual(r.fullyMaskedRows, a.fullyMaskedRows);
}

// ---- trace ----

function expectedSteps(m) {
  const ids = m.positional === 'sinusoidal' ? ['encoding', 'positional'] : [];
  if (m.projected) ids.push('project-q', 'project-k', 'project-v');
  const perHead = ['scores', 'scale', ...(hasMask(m) ? ['mask'] : []), 'softmax', 'aggregate'];
  for (let h = 0; h < m.heads; h++) ids.push(...perHead.map((id) => (m.heads > 1 ? `${id}/${h}` : id)));
  if (m.heads > 1) ids.push('concat');
  if (m.Wo) ids.push('output-projection');
  return ids;
}

/** The steps' shapes, row totals, groups and operands: what ties the trace together. */
function checkTraceStructure(t, m) {
  assert.deepEqual(
    t.steps.map((s) => (s.head === undefined ? s.id : `${s.id}/${s.head}`)),
    expectedSteps(m),
  );
  t.steps.forEach((s, k) => {
    assert.deepEqual(s.shape, [s.values.length, s.values[0].length], `${s.id} shape`);
    const totals = s.values.map((row) => row.reduce((x, y) => x + (Number.isFinite(y) ? y : 0), 0)); // masked left out
    const finite = s.values.map((row) => row.reduce((x, y) => x + (Number.isFinite(y) ? Math.abs(y) : 0), 0));
    near(
      `${s.id} rowTotals`,
      s.rowTotals,
      totals,
      finite.map((x) => 1e-12 * x),
    );
    for (const o of s.operands) {
      const source = t.steps.slice(0, k).findLast((p) => p.id === o.name && p.head === o.head);
      const whole = source ?? t.steps.find((p) => p.id === o.name) ?? { values: m[o.name] };
      assert.ok(whole.values, `${s.id}: operand ${o.name}`);
      if (source) assert.equal(o.values, source.values, `${s.id}: operand ${o.name} is that step's values`);
      else {
        const cols = whole.values[0].length / (o.head === undefined ? 1 : m.heads);
        assert.deepEqual(o.values, ref.columns(whole.values, (o.head ?? 0) * cols, cols), `${s.id}: operand ${o.name}`);
      }
      assert.deepEqual(o.shape, [o.values.length, o.values[0].length]);
    }
  });
  assert.deepEqual(
    t.groups.map((g) => g.id),
    [...new Set(t.steps.map((s) => s.id))],
  );
  for (const g of t.groups) {
    const own = t.steps.filter((s) => s.id === g.id);
    assert.ok(g.steps.length === own.length && g.steps.every((s, i) => s === own[i]), `group ${g.id} holds its steps`);
  }
  assert.deepEqual(t.output, t.steps.at(-1).values);
  assert.deepEqual(t.tokens, m.tokens);
}

function checkTrace(t, m) {
  checkTraceStructure(t, m);
  const step = (id, head) => t.steps.find((s) => s.id === id && s.head === (m.heads > 1 ? head : undefined))?.values;
  let qkv = m;
  if (m.projected) {
    let X = m.X;
    if (m.positional === 'sinusoidal') {
      near('encoding', step('encoding'), ref.sinusoidal(X.length, X[0].length), 1e-6);
      const sum = X.map((row, i) => row.map((x, j) => x + step('encoding')[i][j]));
      near(
        'positional',
        step('positional'),
        sum,
        sum.map((row) => row.map((v) => 2 * U * Math.abs(v) + TINY)),
      );
      X = step('positional');
    }
    qkv = {};
    for (const [name, W, id] of [
      ['Q', m.Wq, 'project-q'],
      ['K', m.Wk, 'project-k'],
      ['V', m.Wv, 'project-v'],
    ]) {
      nearProduct(id, step(id), X, W);
      qkv[name] = step(id); // the heads are checked on the core's projections
    }
  }
  const outputs = [];
  for (let h = 0; h < m.heads; h++) {
    const [Q, K, V] = headSlices(qkv, m.heads, h);
    const softmax = t.steps.find((s) => s.id === 'softmax' && s.head === (m.heads > 1 ? h : undefined));
    const scale = t.steps.find((s) => s.id === 'scale' && s.head === softmax.head);
    const got = {
      ...softmax,
      ...scale,
      scores: step('scores', h),
      scaled: scale.values,
      logits: step('mask', h) ?? scale.values,
      weights: softmax.values,
      output: step('aggregate', h),
    };
    const a = checkHead(`head ${h}`, got, { Q, K, V, ...options(m) });
    assert.equal(scale.dk, Q[0].length);
    assert.equal(scale.defaultScale, m.scale === undefined);
    const mask = t.steps.find((s) => s.id === 'mask' && s.head === softmax.head);
    if (mask) {
      assert.deepEqual(mask.blockedBy, a.blocked);
      assert.deepEqual(
        mask.allowed,
        a.blocked.map((row) => row.map((b) => b === 0)),
      );
    }
    assert.deepEqual(t.fullyMaskedRows[h], a.fullyMaskedRows, `head ${h}'s fully masked rows`);
    outputs.push(step('aggregate', h));
  }
  const concat = outputs[0].map((_, i) => outputs.flatMap((o) => o[i]));
  if (m.heads > 1) assert.deepEqual(step('concat'), concat);
  if (m.Wo) nearProduct('output-projection', step('output-projection'), concat, m.Wo);
}

/** original and permuted are trace()'s outputs (d.ts); the rest follows from them. */
function checkPermutation(p, m, lab) {
  const { order, X, tokens, projected, ...rest } = m;
  const request = { X, ...rest };
  const reordered = order.map((i) => X[i]);
  assert.deepEqual(p.original, lab.trace(request).output);
  assert.deepEqual(p.permuted, lab.trace({ ...request, X: reordered }).output);
  assert.deepEqual(
    p.predicted,
    order.map((i) => p.original[i]),
  );
  const difference = Math.max(0, ...p.permuted.flatMap((row, i) => row.map((v, j) => Math.abs(v - p.predicted[i][j]))));
  assert.equal(p.maxDifference, difference);
  near('tolerance', p.tolerance, 1e-5 * Math.max(1, maxAbs(p.original)), 1e-12 * p.tolerance);
  assert.equal(p.reorderedOnly, p.maxDifference <= p.tolerance);
  assert.deepEqual(p.order, order);
  assert.deepEqual(p.tokens, tokens);
}

// ---- the long-sequence kernels ----

function checkLong(r, m) {
  assert.ok(r.output.data instanceof Float32Array);
  assert.deepEqual([r.output.rows, r.output.cols], [m.Q.length, m.V[0].length]);
  assert.deepEqual(r.fullyMaskedRows, []);
  const out = nested(r.output);
  for (let h = 0; h < m.heads; h++) {
    const [Q, K, V] = headSlices(m, m.heads, h);
    const a = ref.attention({ Q, K, V, causal: m.causal, scale: m.scale });
    const mine = ref.columns(out, (h * out[0].length) / m.heads, V[0].length);
    near(`head ${h} output`, mine, a.output, headTolerances(a, Q[0].length, V).output);
    assertConvex(`head ${h} output`, mine, V, (i, j) => a.blocked[i][j] === 0);
  }
}

/** The checked request: the same request, its matrices flat float32. */
function checkChecked(c, m) {
  for (const name of ['Q', 'K', 'V']) {
    assert.ok(c[name].data instanceof Float32Array);
    assert.deepEqual(nested(c[name]), m[name]);
  }
  assert.deepEqual([c.causal, c.heads, c.scale === undefined ? undefined : Math.fround(c.scale)], [m.causal ?? false, m.heads, m.scale]);
}

function checkSampled(w, m) {
  const [Q, K] = headSlices(m, m.heads, m.head);
  const a = ref.attention({ Q, K, V: K, causal: m.causal, scale: m.scale });
  const E = headTolerances(a, Q[0].length, K).w;
  near(
    'sampled weights',
    w,
    m.rows.map((i) => m.cols.map((j) => a.weights[i][j])),
    m.rows.map((i) => m.cols.map((j) => E[i][j])),
  );
}

// ---- the teaching entries ----

function checkSoftmax(b, { scores, temperature }) {
  const n = scores.length;
  assert.equal(b.temperature, temperature);
  const want = scores.map((s) => s / temperature);
  near(
    'scaled',
    b.scaled,
    want,
    want.map((x) => 2 * U * Math.abs(x) + TINY),
  );
  assert.ok(b.max === Math.max(...b.scaled), `max ${b.max}`); // -0 or 0 when every score is 0
  assert.deepEqual(
    b.shifted,
    b.scaled.map((x) => Math.fround(x - b.max)),
  );
  const e = b.shifted.map(Math.exp);
  near(
    'exponentials',
    b.exponentials,
    e,
    e.map((x, i) => x * (8 * U + U * -b.shifted[i]) + TINY),
  );
  near(
    'sum',
    b.sum,
    b.exponentials.reduce((s, x) => s + x, 0),
    2 * (n + 2) * U * b.sum,
  );
  near(
    'weights',
    b.weights,
    b.exponentials.map((x) => x / b.sum),
    b.exponentials.map((x) => (4 * U * x) / b.sum + TINY),
  );
  const end = ref.softmax(want);
  const E = Math.max(...want.map((x) => 4 * U * Math.abs(x))) + TINY;
  near(
    'weights end to end',
    b.weights,
    end.weights,
    softmaxTolerances(want, end.max, end.sum, E).map((t) => t.w),
  );
  // Without the max, in float32: Infinity and NaN are the point (d.ts), but follow the rules.
  const w = b.withoutMax;
  b.scaled.forEach((x, i) => {
    const exact = Math.exp(x);
    const got = w.exponentials[i];
    if (exact > ref.FLOAT32_MAX * (1 + 1e-5)) assert.equal(got, Infinity, `withoutMax.exponentials[${i}]`);
    else if (exact < ref.FLOAT32_MAX * (1 - 1e-5)) near(`withoutMax.exponentials[${i}]`, got, exact, 8 * U * exact + 1e-44);
  });
  assert.deepEqual([w.overflowed, w.termOverflowed, w.underflowed], [w.sum === Infinity, w.exponentials.includes(Infinity), w.sum === 0]);
  if (Number.isFinite(w.sum))
    near(
      'withoutMax.sum',
      w.sum,
      w.exponentials.reduce((s, x) => s + x, 0),
      2 * (n + 2) * U * w.sum,
    );
  w.weights.forEach((x, i) => assert.ok(Object.is(x, Math.fround(w.exponentials[i] / w.sum)), `withoutMax.weights[${i}] = ${x}`));
}

function checkScaling(s, m) {
  assert.deepEqual([s.keys, s.samples], [m.keys, m.samples]);
  near('maxEntropy', s.maxEntropy, Math.log(m.keys), 1e-6);
  assert.equal(s.points.length, m.dims.length);
  s.points.forEach((p, k) => {
    const want = scalingPoint(m.dims[k], m);
    const scoreTol = want.magnitudes.map((row) => row.map((x) => 2 * (m.dims[k] + 2) * U * x + TINY));
    const tolOf = (factor) =>
      want.scores.map((row, i) => {
        const logits = row.map((x) => x * factor);
        const max = Math.max(...logits);
        const sum = logits.reduce((a, x) => a + Math.exp(x - max), 0);
        return softmaxTolerances(logits, max, sum, Math.max(...scoreTol[i]) * factor + 4 * U * maxAbs(logits)).map((t) => t.w);
      });
    const [scaled, unscaled] = [tolOf(1 / Math.sqrt(m.dims[k])), tolOf(1)];
    const worst = (tol) => Math.max(...tol.flat());
    assert.equal(p.dk, want.dk);
    near('sqrtDk', p.sqrtDk, want.sqrtDk, 2 * U * want.sqrtDk);
    near('scoreStd', p.scoreStd, want.scoreStd, Math.max(...scoreTol.flat()) + 4 * U * want.scoreStd);
    near('exampleScores', p.exampleScores, want.exampleScores, scoreTol[0]);
    near('exampleWeightsScaled', p.exampleWeightsScaled, want.exampleWeightsScaled, scaled[0]);
    near('exampleWeightsUnscaled', p.exampleWeightsUnscaled, want.exampleWeightsUnscaled, unscaled[0]);
    near('maxWeightScaled', p.maxWeightScaled, want.maxWeightScaled, worst(scaled) + 4 * U);
    near('maxWeightUnscaled', p.maxWeightUnscaled, want.maxWeightUnscaled, worst(unscaled) + 4 * U);
    // |Δ entropy| ≤ Σ|ln w + 1|·|Δw| ≤ (ln(keys) + 1 + …)·Σ|Δw|: bounded through the weights.
    const entropyTol = (tol) => (Math.log(m.keys) + 2) * m.keys * worst(tol) * 4 + 1e-6;
    near('entropyScaled', p.entropyScaled, want.entropyScaled, entropyTol(scaled));
    near('entropyUnscaled', p.entropyUnscaled, want.entropyUnscaled, entropyTol(unscaled));
  });
}

function checkNormal(n, m) {
  assert.ok(n.data instanceof Float32Array);
  assert.deepEqual([n.rows, n.cols], [m.rows, m.cols]);
  const want = normalValues(m.rows * m.cols, m.seed);
  near(
    'normal values',
    Array.from(n.data),
    want,
    want.map((x) => 2 ** -22 * Math.abs(x)),
  );
}

const checkSinusoidal = (pe, m) => near('encoding', pe, ref.sinusoidal(m.tokens, m.width), 1e-6);
const checkTilePlan = (plan, m) => assert.deepEqual(plan, ref.tilePlan(m.headWidth));

/** entry → (result, model, lab) → throws AssertionError when a property fails. */
export const CHECKS = {
  attention: checkAttention,
  trace: checkTrace,
  permutationCheck: checkPermutation,
  flashAttention: checkLong,
  naiveAttention: checkLong,
  checkFlashAttention: checkChecked,
  sampledWeights: checkSampled,
  softmaxBreakdown: checkSoftmax,
  sinusoidalEncoding: checkSinusoidal,
  scalingStudy: checkScaling,
  normalMatrix: checkNormal,
  tilePlan: checkTilePlan,
};

// ---- what a valid request may still be refused for ----

/** x · factor where a zero stays zero: an infinite factor (refused later) must not make the bound NaN. */
const scaled = (x, factor) => (x === 0 ? 0 : x * factor);

/** The largest float64 partial sum of one head: Σ|q·k| (times a factor above 1), |q|·factor, Σ|v|. */
function headBound(Q, K, V, factor) {
  const a = ref.matmul(Q, ref.transpose(K)).magnitude;
  const vSum = V ? Math.max(...V[0].map((_, c) => V.reduce((s, v) => s + Math.abs(v[c]), 0))) : 0;
  return Math.max(scaled(maxAbs(a), Math.max(1, factor)), scaled(maxAbs(Q), factor), vSum);
}

/** Bounds that hold for X in any order (permutationCheck): the projections' Σ|x·w|, with |PE| ≤ 1. */
function traceBound(m) {
  let qkv = m;
  let bound = 0;
  if (m.projected) {
    const X = m.positional === 'sinusoidal' ? m.X.map((row) => row.map((x) => Math.abs(x) + 1)) : m.X;
    const [Q, K, V] = [m.Wq, m.Wk, m.Wv].map((W) => ref.matmul(X, W).magnitude);
    qkv = { Q, K, V };
    bound = Math.max(...[Q, K, V].map(maxAbs));
  }
  const factor = factorOf(m, qkv.Q[0].length / m.heads);
  for (let h = 0; h < m.heads; h++) bound = Math.max(bound, headBound(...headSlices(qkv, m.heads, h), factor));
  if (!m.Wo) return bound;
  // Each head's output is a convex combination of its values: column l within V's largest |v|.
  const largest = qkv.V[0].map((_, l) => Math.max(...qkv.V.map((row) => Math.abs(row[l]))));
  return Math.max(bound, maxAbs(ref.matmul([largest], m.Wo).magnitude));
}

/** scale / temperature as the core forms it in float32. */
function factorOf(m, dk) {
  const base = m.scale ?? Math.fround(1 / Math.fround(Math.sqrt(dk)));
  return Math.fround(base / (m.temperature ?? 1));
}

const longBound = (m) =>
  Math.max(
    ...Array.from({ length: m.heads }, (_, h) => {
      const [Q, K, V] = headSlices(m, m.heads, h);
      return headBound(Q, K, V, m.scale ?? 1 / Math.sqrt(Q[0].length));
    }),
  );

const factorRefusal = (m, dk) => (factorOf(m, dk) > 0 && Number.isFinite(factorOf(m, dk)) ? [] : ['invalid-argument']);
const overflow = (bound) => (bound > OVERFLOW_LIMIT ? ['non-finite'] : []);

/** entry → (model) → the codes a valid request may be refused with: float32's range, exceeded. */
export const MAY_REFUSE = {
  attention: (m) => [...overflow(headBound(m.Q, m.K, m.V, factorOf(m, m.Q[0].length))), ...factorRefusal(m, m.Q[0].length)],
  trace: (m) => [...overflow(traceBound(m)), ...factorRefusal(m, (m.projected ? m.Wq : m.Q)[0].length / m.heads)],
  permutationCheck: (m) => MAY_REFUSE.trace(m),
  flashAttention: (m) => overflow(longBound(m)),
  naiveAttention: (m) => overflow(longBound(m)),
  sampledWeights: (m) => overflow(longBound({ ...m, V: undefined })),
  softmaxBreakdown: (m) => overflow(maxAbs([m.scores]) / m.temperature),
};
