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
  console.log(`wasm heap after 10 traces: ${before.heapBytes} bytes, after 10,010: ${after.heapBytes} bytes; in use ${before.allocatedBytes} -> ${after.allocatedBytes}`);
  assert.equal(after.heapBytes, before.heapBytes);
  assert.equal(after.allocatedBytes, before.allocatedBytes);
});
