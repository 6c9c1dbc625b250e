// Messages state the real ranges and quote numbers as the caller wrote them (issue 18,
// item 5). Oracles: the "Limits" table of docs/javascript.md (the documented values) and the literal
// the test passes; never the package's own formatting.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab } from './support/package.js';
import { DOCUMENTED_LIMITS } from './support/documented-limits.js';

const lab = await attnlab.createAttnLab();

function messageOf(call) {
  try {
    call();
  } catch (error) {
    assert.equal(error.name, 'AttnLabError', error.stack);
    return error.message;
  }
  assert.fail('no error');
}

test('lab.limits() is the documented table, field by field', () => {
  assert.ok(Object.keys(DOCUMENTED_LIMITS).length >= 10, 'the docs have a limits table');
  assert.deepEqual({ ...lab.limits() }, DOCUMENTED_LIMITS);
});

const Q = [[1, 0, 0, 1]];
const KV = { K: [[1, 0, 0, 1]], V: [[1, 0, 0, 1]] };
const { maxHeads, sinusoidalMax, normalValues, scalingMaxDk, scalingMinKeys, scalingMaxKeys } = DOCUMENTED_LIMITS;

const CASES = [
  // [what, call, message]: the range is the docs'; the number is the literal passed.
  ['heads 2.5 in a trace', () => lab.trace({ Q, ...KV, heads: 2.5 }), `heads must be a whole number from 1 to ${maxHeads}, got 2.5`],
  ['heads -1 in a trace', () => lab.trace({ Q, ...KV, heads: -1 }), `heads must be a whole number from 1 to ${maxHeads}, got -1`],
  ['heads 1e10 in a trace', () => lab.trace({ Q, ...KV, heads: 1e10 }), `heads must be a whole number from 1 to ${maxHeads}, got 10000000000`],
  ['heads 0 in a trace', () => lab.trace({ Q, ...KV, heads: 0 }), `heads must be a whole number from 1 to ${maxHeads}, got 0`],
  ['positions 2.5', () => lab.sinusoidalEncoding({ positions: 2.5, width: 4 }), `positions must be a whole number from 1 to ${sinusoidalMax}, got 2.5`],
  ['rows -3', () => lab.normalMatrix({ rows: -3, cols: 2 }), `rows must be a whole number from 1 to ${normalValues}, got -3`],
  ['dims [0.5]', () => lab.scalingStudy({ dims: [0.5] }), `dims[0] must be a whole number from 1 to ${scalingMaxDk}, got 0.5`],
  ['keys 1.5', () => lab.scalingStudy({ dims: [4], keys: 1.5 }), `keys must be a whole number from ${scalingMinKeys} to ${scalingMaxKeys}, got 1.5`],
  ['temperature -0.1', () => lab.attention({ Q, ...KV, temperature: -0.1 }), 'temperature must be a finite number above 0, got -0.1'],
  ['temperature 0', () => lab.attention({ Q, ...KV, temperature: 0 }), 'temperature must be a finite number above 0, got 0'],
  ['scale -2.5e-8', () => lab.attention({ Q, ...KV, scale: -2.5e-8 }), 'scale must be a finite number above 0, got -2.5e-8'],
];

for (const [what, call, expected] of CASES) {
  test(`message for ${what}: "${expected}"`, () => {
    const message = messageOf(call);
    assert.ok(message.startsWith(expected), message);
    assert.doesNotMatch(message, /\d\.\d{6}\b|2147483647|4294967295/, 'no %f padding, no C++ type range');
  });
}

// Issue 29, item 10, and issue 25, item 7: numbers as written even where float32 would round
// them; the rotated q named for a RoPE overflow; no matrix the call does not take; shapes
// written 2×2 and positions 1-based, as a learner reads a matrix.
const flat = (rows, cols) => ({ rows, cols, data: new Float32Array(rows * cols).fill(0.5) });
const MORE = [
  ['dropout 0.99999999', () => lab.trace({ Q, ...KV, dropout: 0.99999999 }), 'dropout must be a probability from 0 up to (not including) 1, got 0.99999999'],
  ['scale 5e-324', () => lab.attention({ Q, ...KV, scale: 5e-324 }), 'scale is 5e-324, which float32'],
  ['temperature 1e39', () => lab.attention({ Q, ...KV, temperature: 1e39 }), "temperature is 1e+39, which float32 (the core's number type) rounds to Infinity"],
  [
    'a RoPE rotation past float32',
    () =>
      lab.trace({
        Q: [
          [0, 0],
          [3e38, 3e38],
        ],
        K: [
          [0, 0],
          [0, 0],
        ],
        V: [
          [1, 1],
          [1, 1],
        ],
        rope: true,
      }),
    'the rotated q (RoPE) (2×2) has Infinity at row 2, column 2',
  ],
  [
    'sampledWeights with heads 3',
    () => lab.sampledWeights({ Q: flat(12, 4), K: flat(12, 4), heads: 3, rows: [0], cols: [0] }),
    'heads (3) must be at least 1 and divide the width of Q (12×4)',
  ],
  ['1e40 in Q', () => lab.attention({ Q: [[1, 1e40, 0, 0]], ...KV }), 'Q (1×4) has Infinity at row 1, column 2'],
  ['a ragged Q', () => lab.attention({ Q: [[1, 0, 0, 1], [1]], ...KV }), 'Q is ragged: row 2 has 1 entries but row 1 has 4'],
];

for (const [what, call, expected] of MORE) {
  test(`message for ${what}: "${expected}"`, () => {
    const message = messageOf(call);
    assert.ok(message.startsWith(expected), message);
    assert.doesNotMatch(message, /\dx\d|V \(/, 'shapes as 2×2; no V the call does not take');
  });
}

test('a trainer names learningRate 5e-324 as written', async () => {
  const message = await lab.trainer({ learningRate: 5e-324 }).then(
    () => 'no error',
    (error) => error.message,
  );
  assert.ok(message.startsWith('learningRate is 5e-324, which float32'), message);
});

// Issue 29, item 10: counts of heads and layers beyond their range were invalid-argument where
// the docs said too-large; the docs' Limits section now says what the core does.
test("heads, kvHeads and a trainer's layers and heads beyond their range are invalid-argument, as the docs say", async () => {
  const { readFileSync } = await import('node:fs');
  const limits = readFileSync('docs/javascript.md', 'utf8').split('## Limits')[1].split('\n|')[0].replace(/\s+/g, ' ');
  assert.match(
    limits,
    /outside their range they are `invalid-argument`, above `maxHeads` too, as is `kvHeads` above `heads`; so are a trainer's `layers` and `heads`/,
  );
  const { maxHeads, trainLayers, trainHeads } = lab.limits();
  const Q = Array.from({ length: 2 }, () => new Array(4 * (maxHeads + 1)).fill(0.5));
  const codeOf = async (call) => {
    try {
      await call();
      return 'no error';
    } catch (error) {
      return error.code;
    }
  };
  assert.equal(await codeOf(() => lab.trace({ Q, K: Q, V: Q, heads: maxHeads + 1 })), 'invalid-argument');
  const small = [
    [1, 0, 0, 1],
    [0, 1, 1, 0],
  ];
  assert.equal(await codeOf(() => lab.trace({ Q: small, K: small, V: small, heads: 4, kvHeads: 5 })), 'invalid-argument');
  assert.equal(await codeOf(() => lab.trainer({ layers: trainLayers + 1 })), 'invalid-argument');
  assert.equal(await codeOf(() => lab.trainer({ heads: trainHeads + 1 })), 'invalid-argument');
});
