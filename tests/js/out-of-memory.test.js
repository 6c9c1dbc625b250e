// Out of memory inside the limits (issue 14, item 1). A browser short of memory refuses to
// grow the wasm heap; here the heap refuses the same way (support/heap.js), so every call
// that needs more than the heap holds fails for real inside the core. Such a call is an
// AttnLabError 'out-of-memory', gives back everything it took, and the module keeps working.
// Beyond the limits a call is refused before the core allocates (too-large).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { withoutGrowth } from './support/heap.js';
import { attnlab, errorOf } from './support/package.js';
import { identity } from '../support/tiny-example.js';
import { DOCUMENTED_LIMITS as L } from './support/documented-limits.js';

const lab = await attnlab.createAttnLab(); // a fresh module: the 16 MiB heap it starts with
const MiB = 2 ** 20;

function ramp(rows, cols) {
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < data.length; i++) data[i] = Math.sin(i);
  return { rows, cols, data };
}

// Requests within the limits whose calls need more than the initial heap (16 MiB).
const X = ramp(L.traceTokens, L.traceFeatures);
const W = ramp(L.traceFeatures, L.traceFeatures);
const LONG = ramp(L.flashValues / 16, 16);
const REQUESTS = [
  ['trace', () => lab.trace({ X, Wq: W, Wk: W, Wv: W, Wo: W, causal: true, positional: 'sinusoidal' })],
  ['permutationCheck', () => lab.permutationCheck({ X, Wq: W, Wk: W, Wv: W, order: Array.from({ length: L.traceTokens }, (_, i) => i) })],
  ['flashAttention', () => lab.flashAttention({ Q: ramp(8, 16), K: LONG, V: LONG })],
  ['naiveAttention', () => lab.naiveAttention({ Q: ramp(2048, 8), K: ramp(2048, 8), V: ramp(2048, 8) })],
  ['checkFlashAttention', () => lab.checkFlashAttention({ Q: LONG, K: LONG, V: LONG })],
  ['sampledWeights', () => lab.sampledWeights({ Q: LONG, K: LONG, rows: [0], cols: [0] })],
  ['sinusoidalEncoding', () => lab.sinusoidalEncoding({ positions: L.sinusoidalMax, width: L.sinusoidalMax })],
  ['normalMatrix', () => lab.normalMatrix({ rows: 4096, cols: 4096 })],
];

const inUse = () => {
  const { allocatedBytes, trackedBytes } = lab.memoryStats();
  return { allocatedBytes, trackedBytes };
};

test('every entry whose call outgrows the heap is out-of-memory, and takes nothing with it', () => {
  lab.attention({ Q: [[1]], K: [[1]], V: [[2]] });
  const before = inUse();
  for (const [entry, call] of REQUESTS) {
    const { code, message } = withoutGrowth(() => errorOf(call));
    assert.equal(code, 'out-of-memory', `${entry}: ${message}`);
    assert.match(message, /heap could not grow .* everything the call took has been given back/);
    assert.deepEqual(inUse(), before, `${entry} gave back what it took`);
  }
});

test('100 out-of-memory calls leave the heap as it was, and the module computes right', () => {
  const [Q, K, V] = [1, 2, 3].map((seed) => ramp(2048, 8).data.map((x) => x * seed)).map((data) => ({ rows: 2048, cols: 8, data }));
  const call = () => errorOf(() => lab.naiveAttention({ Q, K, V }));
  assert.equal(withoutGrowth(call).code, 'out-of-memory'); // the first settles the allocator's bookkeeping
  const before = lab.memoryStats();
  const codes = withoutGrowth(() => Array.from({ length: 100 }, () => call().code));
  const after = lab.memoryStats();
  console.log(
    `wasm heap before 100 out-of-memory calls: ${before.heapBytes} B (${before.allocatedBytes} B in use); after: ${after.heapBytes} B (${after.allocatedBytes} B in use)`,
  );
  assert.deepEqual(new Set(codes), new Set(['out-of-memory']));
  assert.deepEqual(after, before);
  assert.deepEqual(lab.attention({ Q: [[1]], K: [[1]], V: [[2]] }).output, [[2]]);
  // With room to grow, the same call succeeds: row 0 sees its scores against every key.
  const { output } = lab.naiveAttention({ Q, K, V });
  const scores = Array.from(
    { length: 2048 },
    (_, j) => Array.from({ length: 8 }, (_, c) => Q.data[c] * K.data[j * 8 + c]).reduce((a, b) => a + b) / Math.sqrt(8),
  );
  const max = Math.max(...scores);
  const weights = scores.map((s) => Math.exp(s - max));
  const sum = weights.reduce((a, b) => a + b);
  for (let c = 0; c < 8; c++) {
    const expected = weights.reduce((total, w, j) => total + (w / sum) * V.data[j * 8 + c], 0);
    assert.ok(Math.abs(output.data[c] - expected) <= 1e-5, `output[0][${c}]`);
  }
});

// The JS engine refusing to allocate, as it does when it is short of memory: while call() runs,
// every typed array's slice() (the core's copy out of its heap) throws the engine's RangeError.
function withoutCopies(call) {
  const typedArray = Object.getPrototypeOf(Float32Array.prototype);
  const slice = typedArray.slice;
  typedArray.slice = () => {
    throw new RangeError('Array buffer allocation failed');
  };
  try {
    return call();
  } finally {
    typedArray.slice = slice;
  }
}

// The same refusal one step later: once the core has copied its result out (a typed array's
// slice()), the Array constructor, with which the plain copy allocates its rows, throws. The
// inputs, read before the core runs, are not refused.
function withoutPlainCopies(call) {
  const typedArray = Object.getPrototypeOf(Float32Array.prototype);
  const [slice, OriginalArray] = [typedArray.slice, globalThis.Array];
  let copied = false;
  typedArray.slice = function (...args) {
    copied = true;
    return slice.apply(this, args);
  };
  globalThis.Array = Object.assign(
    function (...args) {
      if (copied) throw new RangeError('Array buffer allocation failed');
      return new OriginalArray(...args);
    },
    { isArray: OriginalArray.isArray, from: OriginalArray.from, of: OriginalArray.of, prototype: OriginalArray.prototype },
  );
  try {
    return call();
  } finally {
    typedArray.slice = slice;
    globalThis.Array = OriginalArray;
  }
}

test('a result the JS engine cannot copy is out-of-memory, and the core gives back its copy (issue 29, item 11)', () => {
  const request = {
    Q: identity(2),
    K: identity(2),
    V: [
      [1, 2],
      [3, 4],
    ],
  };
  const expected = lab.attention(request);
  const traceRequest = {
    X: identity(2),
    Wq: identity(2),
    Wk: identity(2),
    Wv: identity(2),
    heads: 2,
  };
  lab.trace(traceRequest);
  const calls = [() => lab.attention(request), () => lab.trace(traceRequest)];
  // The core's copies (every entry), then the plain copies (the entries with nested results).
  const rounds = [
    [withoutCopies, [...calls, () => lab.flashAttention({ Q: ramp(4, 2), K: ramp(4, 2), V: ramp(4, 2) })]],
    [withoutPlainCopies, calls],
  ];
  const refuseAll = () => {
    for (const [refuse, entries] of rounds) {
      for (const call of entries) {
        const error = refuse(() => errorOf(call));
        assert.equal(error.code, 'out-of-memory', error.message);
        assert.match(
          error.message,
          refuse === withoutPlainCopies
            ? /^out of memory: Array buffer allocation failed$/
            : /JavaScript engine could not allocate the result; everything the call took has been given back/,
        );
      }
    }
  };
  refuseAll(); // the first refusals settle the allocator's bookkeeping
  const before = inUse();
  for (let i = 0; i < 20; i++) refuseAll();
  assert.deepEqual(inUse(), before, 'nothing of the calls stays in the heap');
  assert.deepEqual(lab.attention(request), expected, 'the module computes as before');
});

test("naiveAttention at 16,384 tokens (issue 14's example) is too-large, before the core allocates", () => {
  const m = ramp(16384, 1);
  lab.resetPeakMemory();
  const before = lab.memoryStats();
  const { code, message } = errorOf(() => lab.naiveAttention({ Q: m, K: m, V: m }));
  const after = lab.memoryStats();
  assert.equal(code, 'too-large', message);
  assert.match(message, /268435456 scores/);
  assert.equal(after.trackedBytes, before.trackedBytes);
  assert.ok(after.peakTrackedBytes - before.trackedBytes <= 3 * 16384 * 4 + MiB, "no more than the inputs' copies");
});
