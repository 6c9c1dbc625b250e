// A seeded fuzz of what fuzz.test.js does not draw (issue 29): the trace's variant options
// (RoPE and its base, ALiBi, KV heads, dropout and its seed, a window with global tokens) and
// the learning module's entries (the backward trace with dOutput, checkGradient, trainer
// configurations and step counts), for about 10 s, values across float32's range. Properties
// of every call: it returns, or throws AttnLabError with a code of ERROR_CODES and a message;
// a result holds no NaN or ±Infinity (a masked score's −∞ aside); both modules' live memory
// is back to its baseline; the same request gives the same result. On moderate values, the
// gradient check agrees with its own float64 finite differences and with the trace's step.
// ATTNLAB_FUZZ_SEED=<seed> replays a run; ATTNLAB_FUZZ_SECONDS sets the time (10).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { random } from './support/fuzz-requests.js';
import { fuzzRun } from './support/fuzz-seed.js';
import { attnlab } from './support/package.js';

const lab = await attnlab.createAttnLab();
await lab.loadLearning();
const { AttnLabError, ERROR_CODES } = attnlab;
const { SEED, SECONDS } = fuzzRun('fuzz-learning', 10);

const value = (r, moderate) => (moderate || r.chance(0.8) ? 4 * r.float() - 2 : r.pick([0, 1e-42, 3e38, -3e38, 1e20, NaN, Infinity]));
const matrix = (r, rows, cols, moderate) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => value(r, moderate)));

// A trace request with random variants, and dOutput when `backward`.
function traceRequest(r, backward, moderate) {
  const heads = r.pick([1, 2, 4]);
  const d = heads * r.pick([1, 2, 3]);
  const n = r.int(1, 6);
  const projected = r.chance(0.5);
  const request = projected
    ? { X: matrix(r, n, r.int(1, 5), moderate), heads }
    : { Q: matrix(r, n, d, moderate), K: matrix(r, n, d, moderate), V: matrix(r, n, d, moderate), heads };
  if (projected) for (const w of ['Wq', 'Wk', 'Wv']) request[w] = matrix(r, request.X[0].length, d, moderate);
  const maybe = (p, field, make) => r.chance(p) && (request[field] = make());
  maybe(0.3, 'causal', () => true);
  maybe(0.2, 'rope', () => true);
  maybe(0.1, 'ropeBase', () => r.pick([2, 10000, 1e-3, 0, -1]));
  maybe(0.2, 'alibi', () => true);
  maybe(0.2, 'kvHeads', () => r.pick([0, 1, 2, 3, heads]));
  maybe(0.2, 'dropout', () => r.pick([0, 0.1, 0.5, 0.99, 1, -0.1, 0.99999999]));
  maybe(0.2, 'dropoutSeed', () => r.int(0, 2 ** 32 - 1));
  maybe(0.15, 'window', () => r.int(0, 4));
  maybe(0.1, 'globalTokens', () => [r.int(0, 7)]);
  maybe(0.2, 'Wo', () => matrix(r, d, r.int(1, 4), moderate));
  if (backward) {
    const cols = request.Wo ? request.Wo[0].length : d;
    request.dOutput = matrix(r, r.chance(0.9) ? n : n + 1, cols, moderate);
  }
  return request;
}

const dead = (path, v) => !Number.isFinite(v) && !(v === -Infinity && /\.mask\.|^steps\[\d+\]\(mask\)/.test(path));
// [path, value] of every NaN or ±Infinity, a mask step's −∞ and a softmax row max's aside.
function nonFinite(value, path = '', out = []) {
  if (typeof value === 'number') {
    if (dead(path, value)) out.push([path, value]);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => nonFinite(v, `${path}[${i}]`, out));
  } else if (value && typeof value === 'object') {
    const tag = value.id === 'mask' ? '.mask.' : '';
    for (const [key, v] of Object.entries(value)) if (key !== 'groups' && key !== 'operands' && key !== 'rowMax') nonFinite(v, `${path}${tag}.${key}`, out);
  }
  return out;
}

const held = () => {
  const { trackedBytes, learningAllocatedBytes } = lab.memoryStats();
  return { trackedBytes, learningAllocatedBytes };
};

/** call() returns or throws AttnLabError; the result is finite; memory is back to `baseline`. */
function outcome(what, call, baseline) {
  let result;
  try {
    result = call();
  } catch (error) {
    if (!(error instanceof AttnLabError)) throw new Error(`${what} threw ${error?.name}: ${error?.message}`, { cause: error });
    assert.ok(ERROR_CODES.includes(error.code) && error.message.length > 0, `${what}: ${error.code}`);
    assert.deepEqual(held(), baseline, `${what}: memory back to its baseline`);
    return { error };
  }
  assert.deepEqual(nonFinite(result), [], `${what}: non-finite values in the result`);
  assert.deepEqual(held(), baseline, `${what}: memory back to its baseline`);
  return { result };
}

const PARAMETERS = ['X', 'Q', 'K', 'V', 'Wq', 'Wk', 'Wv', 'Wo'];
const TASKS = ['previous-token', 'copy-first', 'reverse', 'induction'];

function traceCase(r, baseline) {
  const moderate = r.chance(0.5);
  const request = traceRequest(r, r.chance(0.6), moderate);
  const first = outcome('trace', () => lab.trace(request), baseline);
  const again = outcome('trace again', () => lab.trace(request), baseline);
  assert.deepEqual(again, first, 'the same request gives the same result');
  if (!request.dOutput || first.error) return;
  const at = { parameter: r.pick(PARAMETERS), row: r.int(0, 6), col: r.int(0, 6) };
  const { result: c } = outcome('checkGradient', () => lab.checkGradient(request, at), baseline);
  if (!c) return;
  const step = first.result.groups.find((g) => g.id === `grad-${at.parameter.toLowerCase()}`);
  if (step?.steps.length === 1) assert.equal(c.analytic, step.steps[0].values[at.row][at.col], `checkGradient ${JSON.stringify(at)} is the trace's entry`);
  // A saturated softmax leaves some gradients at 1e-12 while others are near 1: float32 cannot
  // carry those to 1% (nor can the float64 differences measure them), so an entry far below the
  // trace's largest gradient is held to an absolute bound instead, 1e-5 of that gradient.
  const largest = Math.max(
    ...first.result.groups.filter((g) => g.id.startsWith('grad-')).flatMap((g) => g.steps.flatMap((s) => s.values.flat().map(Math.abs))),
  );
  const close = c.relativeError <= 1e-2 || Math.abs(c.analytic - c.numeric) <= 1e-5 * largest;
  if (moderate) assert.ok(close, `checkGradient ${JSON.stringify(at)}: ${JSON.stringify(c)}, largest gradient ${largest}`);
}

async function trainerCase(r, baseline) {
  const config = {};
  const field = (name, valid, invalid) => r.chance(0.7) && (config[name] = r.chance(0.85) ? valid() : r.pick(invalid));
  field('task', () => r.pick(TASKS), ['copy', 7, null]);
  field('layers', () => r.int(1, 2), [0, 3, 1.5]);
  field('heads', () => r.pick([1, 2, 4]), [0, 3, 5]);
  field('dModel', () => r.pick([4, 8, 16]), [0, 33, 6]);
  field('contextLength', () => r.int(4, 10), [3, 17]);
  field('vocab', () => r.int(2, 12), [1, 33]);
  field('batch', () => r.int(1, 6), [0, 33]);
  field('learningRate', () => r.pick([0.01, 0.1, 1]), [0, 2, 5e-324, -1, NaN]);
  field('seed', () => r.int(0, 1000), [-1, 0.5]);
  let trainer;
  try {
    trainer = await lab.trainer(config);
  } catch (error) {
    if (!(error instanceof AttnLabError)) throw new Error(`trainer threw ${error?.name}: ${error?.message}`, { cause: error });
    assert.ok(ERROR_CODES.includes(error.code), `trainer: ${error.code}`);
    return;
  }
  try {
    for (let i = r.int(1, 3); i > 0; i--) {
      const count = r.chance(0.85) ? r.int(1, 3) : r.pick([0, 51, 1.5, '2']);
      const { result } = outcome('step', () => trainer.step(count), held());
      if (result) assert.ok(result.accuracy >= 0 && result.accuracy <= 1 && Number.isFinite(result.loss), JSON.stringify(result));
    }
    outcome('attention', () => trainer.attention(), held());
    const { X, Wq, Wk, Wv, Wo, heads } = outcome('model', () => trainer.model(), held()).result;
    const dOutput = matrix(r, X.length, Wo[0].length, true);
    outcome('trace of the trained layer', () => lab.trace({ X, Wq, Wk, Wv, Wo, heads, causal: true, dOutput }), held());
  } finally {
    trainer.delete();
  }
  assert.deepEqual(held(), baseline, 'a deleted trainer gives back its memory');
}

test(`fuzz: the trace's variants and the learning module's entries for ${SECONDS} s`, async () => {
  await lab.trainer({}).then((t) => t.delete()); // the first trainer settles the allocator
  const baseline = held();
  const end = Date.now() + SECONDS * 1000;
  let cases = 0;
  for (; Date.now() < end; cases++) {
    const r = random((SEED + Math.imul(cases + 1, 0x9e3779b9)) >>> 0);
    try {
      if (r.chance(0.8)) traceCase(r, baseline);
      else await trainerCase(r, baseline);
    } catch (error) {
      error.message = `case ${cases} of seed ${SEED}: ${error.message}`;
      throw error;
    }
  }
  console.log(`fuzz-learning: ${cases} cases`);
  assert.ok(cases >= 10, `${cases} cases`); // how many fit depends on the machine and its load
});
