// No leaks: users never call .delete(), and 10,000 traces leave the wasm heap as it was.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab } from './support/package.js';

test('10,000 trace calls leave the wasm heap the size it was after the first 10', async () => {
  const lab = await attnlab.createAttnLab();
  const request = {
    X: Array.from({ length: 8 }, (_, i) => Array.from({ length: 8 }, (_, j) => Math.sin(i * 8 + j))),
    Wq: Array.from({ length: 8 }, (_, i) => Array.from({ length: 8 }, (_, j) => Math.cos(i - j))),
    Wk: Array.from({ length: 8 }, (_, i) => Array.from({ length: 8 }, (_, j) => Math.sin(i + 2 * j))),
    Wv: Array.from({ length: 8 }, (_, i) => Array.from({ length: 8 }, (_, j) => (i === j ? 1 : 0))),
    Wo: Array.from({ length: 8 }, (_, i) => Array.from({ length: 8 }, (_, j) => (i + j) % 3)),
    heads: 2,
    causal: true,
    positional: 'sinusoidal',
  };
  const run = (times) => {
    for (let i = 0; i < times; i++) lab.trace(request);
  };
  run(10);
  const before = lab.memoryStats();
  run(10_000);
  const after = lab.memoryStats();
  test.diagnostic?.(`heap ${before.heapBytes} -> ${after.heapBytes} bytes`);
  console.log(
    `wasm heap after 10 traces: ${before.heapBytes} bytes, after 10,010: ${after.heapBytes} bytes; in use ${before.allocatedBytes} -> ${after.allocatedBytes}`,
  );
  assert.equal(after.heapBytes, before.heapBytes);
  assert.equal(after.allocatedBytes, before.allocatedBytes);
});

test("the peak count sees the naive kernel's n×n matrices and the flash kernel's O(n·d) memory", async () => {
  const lab = await attnlab.createAttnLab();
  const peakOf = (method, n, d = 32) => {
    const m = { rows: n, cols: d, data: new Float32Array(n * d).fill(0.25) };
    lab.resetPeakMemory();
    const before = lab.memoryStats();
    lab[method]({ Q: m, K: m, V: m, causal: false });
    const after = lab.memoryStats();
    assert.equal(after.trackedBytes, before.trackedBytes, `${method} gives back what it took`);
    return after.peakTrackedBytes - before.trackedBytes;
  };
  for (const n of [512, 1024]) {
    const naive = peakOf('naiveAttention', n);
    const flash = peakOf('flashAttention', n);
    console.log(`n=${n}: naive peak ${naive} B, flash peak ${flash} B, 4n² = ${4 * n * n} B`);
    assert.ok(naive >= 4 * n * n, `naive holds at least one n×n float32 matrix (${naive} B)`);
    assert.ok(flash < 4 * n * n, `flash holds less than one n×n matrix (${flash} B)`);
    assert.ok(flash < naive / 3, 'flash holds a fraction of what naive holds');
  }
  assert.ok(peakOf('naiveAttention', 512) > 3 * peakOf('naiveAttention', 256), 'naive memory grows like n²');
});
