// The core's entries measure a matrix before converting it (issue 39, item 1): a Q far past
// its entry's limits is refused from its length alone, in the core's words, in milliseconds,
// and the core's heap does not grow (before, attention() took 1.6 s and grew the heap to 51 MB
// for 200,000 rows; flashAttention() 18 s and 1 GiB for 4,000,000).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab } from './support/package.js';

const lab = await attnlab.createAttnLab();
const limits = lab.limits();
const row = new Array(64).fill(0.1); // every row the same array: the test builds no big matrix of its own
const rows = (n) => new Array(n).fill(row);
const flat = (n, cols = 64) => ({ rows: n, cols, data: new Float32Array(n * cols) });

function refused(call) {
  const heap = lab.memoryStats().heapBytes;
  const cpu = process.cpuUsage();
  let error;
  try {
    call();
  } catch (e) {
    error = e;
  }
  const { user, system } = process.cpuUsage(cpu);
  assert.ok(error instanceof attnlab.AttnLabError, `expected an AttnLabError, got ${error}`);
  assert.equal(lab.memoryStats().heapBytes, heap, 'the core grew its heap for a refused request');
  return { error, ms: (user + system) / 1000 };
}

test("a matrix past its entry's limits is refused before it is converted, the heap as it was", () => {
  const cases = [
    [
      'attention',
      () => lab.attention({ Q: rows(200_000), K: [row], V: [row] }),
      `Q (200000×64) is too large: attention allows at most ${limits.attentionTokens} rows and ${limits.attentionFeatures} columns`,
    ],
    [
      'attentionBackward',
      () => lab.attentionBackward({ Q: [row], K: rows(100_000), V: [row], dOutput: [row] }),
      `K (100000×64) is too large: attention allows at most ${limits.attentionTokens} rows and ${limits.attentionFeatures} columns`,
    ],
    [
      'trace',
      () => lab.trace({ X: rows(100_000), Wq: [[1]], Wk: [[1]], Wv: [[1]] }),
      `X (100000×64) is too large: the trace allows at most ${limits.traceTokens} rows and ${limits.traceFeatures} columns`,
    ],
    [
      'flashAttention',
      () => lab.flashAttention({ Q: rows(4_000_000), K: flat(1), V: flat(1) }),
      `Q (4000000×64) is too large: the flash kernel allows at most ${limits.flashTokens} rows and ${limits.flashFeatures} columns`,
    ],
    [
      'naiveAttention',
      () => lab.naiveAttention({ Q: flat(1), K: { rows: 1_000_000, cols: 64, data: new Array(64_000_000) }, V: flat(1) }),
      `K (1000000×64) is too large: the long-sequence kernels take at most ${limits.flashValues} values (rows × columns)`,
    ],
    [
      'flashWalk',
      () => lab.flashWalk({ Q: rows(50_000), K: [row], V: [row] }),
      `Q (50000×64) is too large: the tile walk allows at most ${limits.walkTokens} rows and ${limits.walkFeatures} columns`,
    ],
  ];
  for (const [entry, call, message] of cases) {
    const { error, ms } = refused(call);
    assert.equal(error.code, 'too-large', `${entry}: ${error.message}`);
    assert.equal(error.message, message);
    assert.ok(ms < 100, `${entry}: refused after ${ms.toFixed(1)} ms of CPU time`);
    console.log(`${entry}: refused in ${ms.toFixed(2)} ms of CPU time`);
  }
  // At the limits the same requests are taken (the check refuses nothing the core takes).
  assert.equal(lab.attention({ Q: rows(limits.attentionTokens), K: [row], V: [row] }).output.length, limits.attentionTokens);
});
