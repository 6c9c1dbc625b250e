// Every error code, from JavaScript: bad input throws AttnLabError with a code and a
// message that names the offending input, and the module stays usable afterwards.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { withoutGrowth } from './support/heap.js';
import { attnlab } from './support/package.js';
import { tinyQKV } from '../support/tiny-example.js';

const lab = await attnlab.createAttnLab();
const { AttnLabError, ERROR_CODES } = attnlab;

const { Q, K, V } = tinyQKV();
const X = [
  [1, 0, 1],
  [0, 1, 1],
];
const W = [
  [1, 0],
  [0, 1],
  [1, 1],
];
const big = { rows: 2048, cols: 1, data: new Float32Array(2048).fill(0.5) }; // 3 × 16 MiB of scores

// [what, call, expected code, a fragment the message must contain]
const cases = [
  ['Q and K widths differ', () => lab.attention({ Q: [[1, 2, 3]], K, V }), 'shape-mismatch', 'Q (1×3)'],
  ['K and V row counts differ', () => lab.attention({ Q, K, V: [[1, 0]] }), 'shape-mismatch', 'V (1×2)'],
  ['ragged rows', () => lab.attention({ Q: [[1, 0], [1]], K, V }), 'shape-mismatch', 'ragged'],
  ['typed array of the wrong length', () => lab.attention({ Q: { rows: 2, cols: 2, data: new Float32Array(3) }, K, V }), 'shape-mismatch', 'Q.data'],
  ['mask of the wrong shape', () => lab.attention({ Q, K, V, mask: [[true, true]] }), 'shape-mismatch', 'mask'],
  ['key padding of the wrong length', () => lab.attention({ Q, K, V, keyPadding: [true] }), 'shape-mismatch', 'key padding'],
  ['tokens of the wrong count', () => lab.trace({ Q, K, V, tokens: ['a'] }), 'shape-mismatch', 'tokens'],
  ['X and W_Q do not fit', () => lab.trace({ X, Wq: [[1, 0]], Wk: W, Wv: W }), 'shape-mismatch', 'Wq (1×2)'],
  ['W_O rows differ from the heads width', () => lab.trace({ Q, K, V, Wo: [[1]] }), 'shape-mismatch', 'Wo (1×1)'],
  [
    'NaN in Q',
    () =>
      lab.attention({
        Q: [
          [NaN, 0],
          [0, 1],
        ],
        K,
        V,
      }),
    'non-finite',
    'NaN',
  ],
  [
    'Infinity in V',
    () =>
      lab.attention({
        Q,
        K,
        V: [
          [Infinity, 0],
          [0, 2],
          [1, 1],
        ],
      }),
    'non-finite',
    'V (3×2)',
  ],
  [
    '1e39 overflows float32',
    () =>
      lab.trace({
        X: [
          [1e39, 0, 0],
          [0, 1, 1],
        ],
        Wq: W,
        Wk: W,
        Wv: W,
      }),
    'non-finite',
    'X',
  ],
  ['scores overflow', () => lab.attention({ Q: [[1e20, 1e20]], K: [[1e20, 1e20]], V: [[1]] }), 'non-finite', 'scores'],
  // Issue 29, item 4: sums and rescalings after the checks, once Infinity in the result.
  [
    'V at FLT_MAX over 10 keys',
    () => lab.attention({ Q: [[0]], K: Array(10).fill([0]), V: Array(10).fill([3.4028234663852886e38]) }),
    'non-finite',
    'the output A·V (1×1) has Infinity',
  ],
  [
    "dropout's 1/(1 − p) past float32",
    () => lab.trace({ Q: [[0]], K: [[0]], V: [[3e38]], dropout: 0.5, dropoutSeed: 1 }),
    'non-finite',
    'the step aggregate (1×1) has Infinity',
  ],
  ['empty Q', () => lab.attention({ Q: [], K, V }), 'empty', 'Q (0×0)'],
  ['Q with empty rows', () => lab.attention({ Q: [[], []], K, V }), 'empty', 'Q (2×0)'],
  ['513 tokens in a trace', () => lab.trace({ Q: Array.from({ length: 513 }, () => [1, 0]), K, V }), 'too-large', 'Q (513×2)'],
  ['heads 0', () => lab.trace({ Q, K, V, heads: 0 }), 'invalid-argument', 'heads'],
  ['heads 1.5', () => lab.trace({ Q, K, V, heads: 1.5 }), 'invalid-argument', 'heads'],
  [
    'heads not dividing the width',
    () =>
      lab.trace({
        Q,
        K,
        V: [
          [1, 0, 0],
          [0, 2, 0],
          [1, 1, 0],
        ],
        heads: 2,
      }),
    'invalid-argument',
    'V (3×3)',
  ],
  ['scale 0', () => lab.attention({ Q, K, V, scale: 0 }), 'invalid-argument', 'scale'],
  ['negative temperature', () => lab.attention({ Q, K, V, temperature: -1 }), 'invalid-argument', 'temperature'],
  ['NaN temperature', () => lab.attention({ Q, K, V, temperature: NaN }), 'invalid-argument', 'temperature'],
  [
    'a string in a cell',
    () =>
      lab.attention({
        Q: [
          ['1', 0],
          [0, 1],
        ],
        K,
        V,
      }),
    'invalid-argument',
    'Q[0][0]',
  ],
  [
    'null in a cell',
    () =>
      lab.attention({
        Q,
        K: [
          [1, 0],
          [null, 1],
          [0, 1],
        ],
        V,
      }),
    'invalid-argument',
    'K[1][0]',
  ],
  ['null instead of a matrix', () => lab.attention({ Q: null, K, V }), 'invalid-argument', 'Q is missing'],
  ['a string instead of a matrix', () => lab.attention({ Q: 'abc', K, V }), 'invalid-argument', 'Q must be'],
  ['a string as the scale', () => lab.attention({ Q, K, V, scale: '2' }), 'invalid-argument', 'scale'],
  ['unknown positional encoding', () => lab.trace({ X, Wq: W, Wk: W, Wv: W, positional: 'learned' }), 'invalid-argument', 'positional'],
  ['positional with direct Q/K/V', () => lab.trace({ Q, K, V, positional: 'sinusoidal' }), 'invalid-argument', 'positional'],
  ['a request that is not an object', () => lab.attention(null), 'invalid-argument', 'object'],
  ['a heap that cannot grow for 48 MiB', () => withoutGrowth(() => lab.naiveAttention({ Q: big, K: big, V: big })), 'out-of-memory', 'out of memory'],
];

for (const [what, call, code, fragment] of cases) {
  test(`${code}: ${what}`, () => {
    assert.throws(call, (error) => {
      assert.ok(error instanceof AttnLabError, `not an AttnLabError: ${error}`);
      assert.ok(error instanceof Error);
      assert.equal(error.code, code, error.message);
      assert.ok(error.message.includes(fragment), `"${error.message}" lacks "${fragment}"`);
      return true;
    });
  });
}

test("a trace's row totals of scores near FLT_MAX with a padded key are finite (issue 29, item 4)", () => {
  const t = lab.trace({
    Q: [[1e19, 1e19]],
    K: [
      [1e19, 1e19],
      [1e19, 1e19],
      [1, 1],
    ],
    V: [[1], [1], [1]],
    keyPadding: [false, false, true],
    scale: 1,
  });
  for (const step of t.steps) {
    assert.ok(step.rowTotals.every(Number.isFinite), `${step.id}: ${step.rowTotals}`);
    const finite = step.values.flat().filter(Number.isFinite);
    assert.ok(Math.abs(step.rowTotals[0] - finite.reduce((a, b) => a + b, 0)) <= 1e-6 * Math.abs(step.rowTotals[0]), step.id);
  }
});

test('every documented error code is exercised', () => {
  assert.deepEqual([...new Set(cases.map(([, , code]) => code))].sort(), [...ERROR_CODES].sort());
});

test('the module keeps working after errors', () => {
  assert.deepEqual(lab.attention({ Q, K, V }).scores, [
    [1, 1, 0],
    [0, 1, 1],
  ]);
});
