// Values that are not what they seem: sparse arrays, typed arrays whose `length` lies or
// throws, getters and Proxies. Each is refused with AttnLabError 'invalid-argument' naming
// the field, at every entry, and a refused call leaves the core's live memory as it was
// (before, a lying length made the core's copy throw halfway and leak what it had copied).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { VALID_REQUESTS } from './support/entries.js';
import { attnlab, errorOf } from './support/package.js';

const lab = await attnlab.createAttnLab();

/** A copy of `list` with entry i deleted: a hole, not undefined. */
function hole(list, i) {
  const copy = list.slice();
  delete copy[i];
  return copy;
}

/** A Float32Array of `holds` values whose own `length` says `says`. */
function lying(holds, says) {
  const data = new Float32Array(holds);
  Object.defineProperty(data, 'length', { value: says });
  return data;
}

const boom = () => {
  throw new Error('boom');
};

function revokedProxy(target) {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}

/** A copy of entry's valid request with `changes` over it. */
const valid = (entry, changes) => ({ ...VALID_REQUESTS[entry](), ...changes });
const flat = (rows, cols, data) => ({ rows, cols, data });

// [what, entry, request, a fragment the message must contain]
const HOLES = [
  ['a hole in a row', 'attention', valid('attention', { Q: [hole([1, 0], 1), [0, 1]] }), 'Q[0][1] is a hole'],
  ['a hole in dO', 'attentionBackward', valid('attentionBackward', { dO: [[1, -1], hole([0.5, 2], 1)] }), 'dO[1][1] is a hole'],
  [
    'a missing row',
    'trace',
    valid('trace', {
      X: hole(
        [
          [1, 0],
          [0, 1],
          [1, 1],
        ],
        1,
      ),
    }),
    'X[1] is a hole',
  ],
  ['a hole in a query row', 'longLinearAttention', valid('longLinearAttention', { Q: [[1, 0], hole([0, 2], 0), [1, 1]] }), 'Q[1][0] is a hole'],
  ['a hole in a key row', 'longRetention', valid('longRetention', { K: [[1, 0], [0, 2], hole([1, 1], 1)] }), 'K[2][1] is a hole'],
  ['a hole in a value row', 'linearAttention', valid('linearAttention', { V: [[1, 0], hole([0, 2], 1), [1, 1]] }), 'V[1][1] is a hole'],
  [
    'a hole in E',
    'lowRankAttention',
    valid('lowRankAttention', { method: 'linformer', E: [hole([1, 0, 0], 2)], F: [[0, 1, 0]], rank: 1 }),
    'E[0][2] is a hole',
  ],
  [
    'a missing key row',
    'retention',
    valid('retention', {
      K: hole(
        [
          [1, 0],
          [1, 1],
          [0, 1],
        ],
        2,
      ),
    }),
    'K[2] is a hole',
  ],
  ['a hole in the key padding', 'attention', valid('attention', { keyPadding: hole([true, false, false], 1) }), 'keyPadding[1] is a hole'],
  ['a hole in the mask', 'attention', valid('attention', { mask: [[true, true, true], hole([true, true, true], 2)] }), 'mask[1][2] is a hole'],
  ['a hole in the token labels', 'trace', valid('trace', { tokens: hole(['a', 'b', 'c'], 0) }), 'tokens[0] is a hole'],
  ['a hole in the order', 'permutationCheck', valid('permutationCheck', { order: hole([2, 0, 1], 1) }), 'order[1] is a hole'],
  ['a hole in flat data', 'flashAttention', valid('flashAttention', { K: flat(3, 2, hole([1, 0, 1, 1, 0, 1], 5)) }), 'K.data[5] is a hole'],
  ['a hole in flat data', 'naiveAttention', valid('naiveAttention', { V: flat(3, 2, hole([1, 0, 0, 2, 1, 1], 0)) }), 'V.data[0] is a hole'],
  ['a hole in a row', 'checkFlashAttention', valid('checkFlashAttention', { Q: [[1, 0], hole([0, 1], 0)] }), 'Q[1][0] is a hole'],
  ['a hole in the sampled rows', 'sampledWeights', valid('sampledWeights', { rows: hole([0, 1], 0) }), 'rows[0] is a hole'],
  ['a hole in the scores', 'softmaxBreakdown', { scores: hole([1, 2, 3], 1) }, 'scores[1] is a hole'],
  ['a hole in the dims', 'scalingStudy', valid('scalingStudy', { dims: hole([2, 4], 1) }), 'dims[1] is a hole'],
  ['a hole in the global tokens', 'sparsePattern', valid('sparsePattern', { globalTokens: hole([0, 3], 1) }), 'globalTokens[1] is a hole'],
];

class LongerThanItSays extends Float32Array {
  get length() {
    return 4;
  }
}

const throwingLength = new Float32Array(6);
Object.defineProperty(throwingLength, 'length', { get: boom });
const throwingCell = [0, 2];
Object.defineProperty(throwingCell, 0, { get: boom, enumerable: true });

const OTHERS = [
  // Typed arrays whose length lies (the core copied `length` values, then threw).
  ['a length that says less', 'attention', valid('attention', { V: flat(2, 2, lying(6, 4)) }), 'V.data.length says 4 but the typed array holds 6 values'],
  [
    'a length that says more',
    'flashAttention',
    valid('flashAttention', { K: flat(3, 2, lying(2, 6)) }),
    'K.data.length says 6 but the typed array holds 2 values',
  ],
  ['a subclass whose length lies', 'naiveAttention', valid('naiveAttention', { V: flat(2, 2, new LongerThanItSays(6)) }), 'V.data.length says 4'],
  [
    'a length getter that throws',
    'checkFlashAttention',
    valid('checkFlashAttention', { K: flat(3, 2, throwingLength) }),
    'K.data.length could not be read (boom)',
  ],
  ['scores whose length lies', 'softmaxBreakdown', { scores: lying(3, 2) }, 'scores.length says 2 but the typed array holds 3 values'],
  ['BigInt data', 'attention', valid('attention', { Q: flat(2, 2, new BigInt64Array(4)) }), 'Q.data[0] is bigint, not a number'],
  [
    'a DataView as data',
    'flashAttention',
    valid('flashAttention', { Q: flat(2, 2, new DataView(new ArrayBuffer(16))) }),
    'Q.data must be a typed array or an array of numbers',
  ],
  // Getters that throw.
  [
    'a request field getter',
    'sinusoidalEncoding',
    {
      positions: 4,
      get width() {
        return boom();
      },
    },
    'width could not be read (boom)',
  ],
  [
    'a matrix data getter',
    'attention',
    valid('attention', {
      K: {
        rows: 3,
        cols: 2,
        get data() {
          return boom();
        },
      },
    }),
    'K.data could not be read (boom)',
  ],
  ['a cell getter', 'trace', valid('trace', { Wq: [throwingCell, [0, 1]] }), 'Wq[0][0] could not be read (boom)'],
  [
    'a field getter',
    'tilePlan',
    {
      get headWidth() {
        return boom();
      },
    },
    'headWidth could not be read (boom)',
  ],
  // Proxies.
  [
    'a Proxy of a typed array',
    'flashAttention',
    valid('flashAttention', { V: flat(3, 2, new Proxy(new Float32Array(6), {})) }),
    'V.data must be a typed array or an array of numbers, got object',
  ],
  [
    'a Proxy whose get trap throws',
    'attention',
    valid('attention', {
      V: new Proxy(
        [
          [1, 0],
          [0, 2],
          [1, 1],
        ],
        { get: boom },
      ),
    }),
    'V could not be read (boom)',
  ],
  [
    'a Proxy whose length lies',
    'scalingStudy',
    valid('scalingStudy', { dims: new Proxy([2, 4], { get: (t, k) => (k === 'length' ? 3 : t[k]) }) }),
    'dims[2] is a hole',
  ],
  [
    'a request whose keys cannot be listed',
    'normalMatrix',
    new Proxy({ rows: 2, cols: 3 }, { ownKeys: boom }),
    "normalMatrix()'s fields could not be listed (boom)",
  ],
  ['a revoked Proxy as the request', 'sampledWeights', revokedProxy({}), 'sampledWeights(): the request could not be read'],
  ['a revoked Proxy as a matrix', 'permutationCheck', valid('permutationCheck', { X: revokedProxy([]) }), 'X could not be read'],
  ['a global token getter', 'decode', valid('decode', { globalTokens: throwingCell }), 'globalTokens[0] could not be read (boom)'],
  [
    'a field getter',
    'kvCacheBytes',
    {
      ...valid('kvCacheBytes', {}),
      get headDim() {
        return boom();
      },
    },
    'headDim could not be read (boom)',
  ],
];

for (const [group, cases] of [
  ['holes', HOLES],
  ['lying, throwing and proxied values', OTHERS],
]) {
  test(`${group}: AttnLabError 'invalid-argument' naming the field (${cases.length} cases)`, () => {
    for (const [what, entry, request, fragment] of cases) {
      const { code, message } = errorOf(() => lab[entry](request));
      assert.equal(code, 'invalid-argument', `${entry}, ${what}: ${message}`);
      assert.ok(message.includes(fragment), `${entry}, ${what}: "${message}" lacks "${fragment}"`);
    }
  });
}

test('every entry that takes a request has a hostile case', () => {
  const covered = new Set([...HOLES, ...OTHERS].map(([, entry]) => entry));
  assert.deepEqual([...covered].sort(), Object.keys(VALID_REQUESTS).sort());
});

test('an explicit undefined in a list is refused like a hole', () => {
  assert.match(
    errorOf(() =>
      lab.attention(
        valid('attention', {
          Q: [
            [1, undefined],
            [0, 1],
          ],
        }),
      ),
    ).message,
    /Q\[0\]\[1\] is undefined, not a number/,
  );
});

test("a refused call leaves the core's live memory unchanged", () => {
  lab.attention(VALID_REQUESTS.attention()); // the first call grows the heap once
  const before = lab.memoryStats();
  for (const [, entry, request] of [...HOLES, ...OTHERS]) {
    try {
      lab[entry](request);
    } catch {
      // What was thrown is the tests above's concern; this one weighs what stayed behind.
    }
  }
  const after = lab.memoryStats();
  assert.equal(after.trackedBytes, before.trackedBytes, 'bytes held through operator new');
  assert.equal(after.allocatedBytes, before.allocatedBytes, 'bytes malloc holds');
  assert.deepEqual(lab.attention({ Q: [[1]], K: [[1]], V: [[2]] }).output, [[2]], 'the core still works');
});

test('each field is read once: a getter cannot change a value after it was checked', () => {
  let reads = 0;
  const request = {
    Q: [[1, 0]],
    K: [[1, 0]],
    get V() {
      reads += 1;
      return reads === 1 ? [[3, 4]] : [[Number.NaN, 0]];
    },
  };
  assert.deepEqual(lab.attention(request).output, [[3, 4]]);
  assert.equal(reads, 1);
});
