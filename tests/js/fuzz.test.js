// A seeded property-based fuzz of the package's JavaScript API: for about 20 s, random
// requests at every entry, about two thirds valid (small shapes, values from 0 and 1e-42 to
// 3e38) and the rest with one thing wrong (a shape, NaN, a type, a hole, an unknown field, a
// count out of range). Properties, checked on every call:
//  - it returns, or throws AttnLabError with a code of ERROR_CODES and a message (nothing else);
//  - the core's live memory (memoryStats().trackedBytes) is back to its baseline;
//  - an invalid request gets the error the README gives for what is wrong with it;
//  - a valid request is refused only where float32 must give up: 'non-finite' when its float64
//    partial sums pass FLOAT32_MAX / 16, 'invalid-argument' when scale / temperature leaves
//    float32 (fuzz-checks.js, MAY_REFUSE);
//  - a result holds no NaN or ±Infinity, except -Infinity in masked logits and a fully masked
//    row's max, and what softmaxBreakdown's withoutMax shows on purpose (attnlab.d.ts);
//  - a result agrees with the float64 references (tests/support/) within tolerances derived
//    from float32 rounding (fuzz-tolerance.js);
//  - checkFlashAttention refuses exactly what flashAttention and naiveAttention refuse.
// Then a small call must still be right. The seed is printed; ATTNLAB_FUZZ_SEED=<seed> replays
// a run, ATTNLAB_FUZZ_CASE=<n> one case of it; ATTNLAB_FUZZ_SECONDS sets the time (20).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { CHECKS, MAY_REFUSE } from './support/fuzz-checks.js';
import { mutate } from './support/fuzz-mutations.js';
import { FAMILIES, random } from './support/fuzz-requests.js';
import { fuzzRun } from './support/fuzz-seed.js';
import { attnlab } from './support/package.js';
import { tinyQKV } from '../support/tiny-example.js';

const lab = await attnlab.createAttnLab();
const { AttnLabError, ERROR_CODES } = attnlab;

const env = process.env;
const { SEED, SECONDS } = fuzzRun('fuzz', 20);
const ONLY = env.ATTNLAB_FUZZ_CASE === undefined ? undefined : Number(env.ATTNLAB_FUZZ_CASE);
const MAX_CASES = 100_000;

// How often each family is drawn: the attention math more than the teaching helpers.
const DRAWS = Object.entries({
  attention: 4,
  trace: 4,
  permutationCheck: 1,
  long: 4,
  sampledWeights: 2,
  softmaxBreakdown: 2,
  sinusoidalEncoding: 1,
  scalingStudy: 1,
  normalMatrix: 1,
  tilePlan: 1,
}).flatMap(([family, weight]) => Array(weight).fill(family));

// Where a result may hold NaN or ±Infinity (attnlab.d.ts): -Infinity in masked logits (the
// trace's mask step and the softmax step's operand) and as a fully masked row's max; anything
// in softmaxBreakdown's withoutMax. Row totals never.
const TRACE_PATH = /^steps\[(\d+)\]\.(values|rowTotals|rowMax|operands\[(\d+)\]\.values)\b/;
const ALLOWED = {
  attention: (path, v) => v === -Infinity && /^(logits\[\d+\]\[\d+\]|rowMax\[\d+\])$/.test(path),
  softmaxBreakdown: (path) => path.startsWith('withoutMax.'),
  trace: (path, v, t) => {
    const [, k, field, o] = TRACE_PATH.exec(path) ?? [];
    const step = t.steps[k];
    if (v !== -Infinity || !step) return false;
    if (o !== undefined) return step.operands[o].name === 'mask';
    if (field === 'rowTotals') return false;
    return field === 'rowMax' ? step.id === 'softmax' : step.id === 'mask';
  },
};

/** [path, value] of every number in `value` that is NaN or ±Infinity. */
function nonFinite(value, path = '', out = []) {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) out.push([path, value]);
  } else if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    for (let i = 0; i < value.length; i++) nonFinite(value[i], `${path}[${i}]`, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) nonFinite(v, path ? `${path}.${key}` : key, out);
  }
  return out;
}

const tracked = () => lab.memoryStats().trackedBytes;

function call(entry, args, baseline) {
  let outcome;
  try {
    outcome = { result: lab[entry](...args) };
  } catch (error) {
    outcome = { error };
  }
  assert.equal(tracked(), baseline, `${entry}: the core's live memory is back to its baseline`);
  const { error } = outcome;
  if (error) {
    if (!(error instanceof AttnLabError)) throw new Error(`${entry} threw ${error?.name}, not AttnLabError: ${error?.message ?? error}`, { cause: error });
    assert.ok(ERROR_CODES.includes(error.code), `${entry}: code ${error.code} is one of ERROR_CODES`);
    assert.ok(typeof error.message === 'string' && error.message.length > 0, `${entry}: an error has a message`);
  }
  return outcome;
}

/** A valid call's outcome: refused only as MAY_REFUSE allows, else finite where due and right. */
function checkValid(entry, { result, error }, model) {
  if (error) {
    const allowed = MAY_REFUSE[entry]?.(model) ?? [];
    assert.ok(allowed.includes(error.code), `${entry} refused a valid request: ${error.code}: ${error.message}`);
    return 'refused';
  }
  const walked = entry === 'trace' ? { ...result, groups: undefined } : result; // groups hold its steps
  const bad = nonFinite(walked).filter(([path, v]) => !ALLOWED[entry]?.(path, v, result));
  assert.deepEqual(bad, [], `${entry}: non-finite values in the result`);
  CHECKS[entry](result, model, lab);
  return 'returned';
}

// What the test prints of a failing request: typed arrays as arrays, BigInts and -0 visible.
const show = (args) =>
  JSON.stringify(args, (_, v) => (typeof v === 'bigint' ? `${v}n` : ArrayBuffer.isView(v) ? Array.from(v) : Object.is(v, -0) ? '-0' : v)) ?? String(args);

function runCase(index, baseline, counts) {
  const r = random((SEED + Math.imul(index + 1, 0x9e3779b9)) >>> 0);
  const name = r.pick(DRAWS);
  const family = FAMILIES[name];
  const { request, model } = family.make(r);
  const invalid = r.chance(0.35) ? mutate(r, name, request, model) : undefined;
  const args = invalid?.args ?? (family.older && r.chance(0.3) ? family.older(request) : [request]);
  try {
    const outcomes = family.entries.map((entry) => {
      const outcome = call(entry, args, baseline);
      let kind;
      if (invalid) {
        assert.ok(outcome.error, `${entry} accepted an invalid request (${invalid.what})`);
        // The rest of the request may overflow float32 before the fault is reached.
        const codes = [...invalid.codes, ...(MAY_REFUSE[entry]?.(model) ?? [])];
        assert.ok(codes.includes(outcome.error.code), `${entry}, ${invalid.what}: expected ${codes}, got ${outcome.error.code}: ${outcome.error.message}`);
        kind = 'invalid';
      } else {
        kind = checkValid(entry, outcome, model);
      }
      counts[entry] ??= { returned: 0, refused: 0, invalid: 0 };
      counts[entry][kind]++;
      return outcome;
    });
    if (name === 'long') {
      // The same code and message, but for the entry's own name in the package's messages.
      const [flash, naive, checked] = outcomes.map((o) => o.error && `${o.error.code}: ${o.error.message.replace(/\w+Attention\(\)/g, 'entry()')}`);
      if (checked) assert.deepEqual([flash, naive], [checked, checked], 'checkFlashAttention refuses what the kernels refuse');
    }
    assert.equal(tracked(), baseline, "the checks leave the core's memory as it was");
  } catch (error) {
    const where = `case ${index} (ATTNLAB_FUZZ_SEED=${SEED} ATTNLAB_FUZZ_CASE=${index}), ${name}, ${invalid ? `invalid: ${invalid.what}` : 'valid'}`;
    throw new Error(`${where}:\n${error.message}\nrequest: ${show(args).slice(0, 3000)}`, { cause: error });
  }
}

test(`fuzz: random valid and invalid requests at every entry for ${SECONDS} s (seed ${SEED})`, () => {
  lab.attention({ Q: [[1]], K: [[1]], V: [[1]] }); // the core's first call allocates what it keeps
  const baseline = tracked();
  const counts = {};
  const start = performance.now();
  let cases = 0;
  if (ONLY !== undefined) {
    runCase(ONLY, baseline, counts);
    cases = 1;
  }
  for (; ONLY === undefined && cases < MAX_CASES && performance.now() - start < SECONDS * 1000; cases++) runCase(cases, baseline, counts);
  const seconds = ((performance.now() - start) / 1000).toFixed(1);
  console.log(`fuzz: ${cases} cases in ${seconds} s, seed ${SEED}; calls per entry (returned, refused although valid, invalid and refused):`);
  for (const [entry, c] of Object.entries(counts).sort())
    console.log(`  ${entry.padEnd(20)} ${String(c.returned + c.refused + c.invalid).padStart(6)}  (${c.returned}, ${c.refused}, ${c.invalid})`);

  // Every entry was reached, and the module still gives the README's tiny example after it all.
  if (ONLY === undefined)
    assert.deepEqual(
      Object.keys(counts).sort(),
      Object.values(FAMILIES)
        .flatMap((f) => f.entries)
        .sort(),
    );
  const { weights } = lab.attention({
    ...tinyQKV(),
  });
  const expected = [
    [0.4011, 0.4011, 0.1978],
    [0.1978, 0.4011, 0.4011],
  ];
  weights.forEach((row, i) => row.forEach((w, j) => assert.ok(Math.abs(w - expected[i][j]) < 1e-4, `weights[${i}][${j}] = ${w}`)));
  assert.equal(tracked(), baseline);
});
