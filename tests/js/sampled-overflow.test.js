// sampledWeights() and sampledCells() follow the flash kernel's overflow rules (issue 39, item 2):
// a bias that pushes a score past float32 is refused as non-finite, never NaN weights, and a
// row whose every key the bias pushes below −3.4e38 is refused, not zeros with every key shown
// as visible. A −∞ bias still blocks: that row is zeros, its keys hidden.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab } from './support/package.js';

const lab = await attnlab.createAttnLab();
const { AttnLabError } = attnlab;
const flat = (m) => ({ rows: m.length, cols: m[0].length, data: Float32Array.from(m.flat()) });

const refusedAsNonFinite = (call, what) => assert.throws(call, (e) => e instanceof AttnLabError && e.code === 'non-finite' && /overflow/.test(e.message), what);

test('a bias past float32 is refused by the sampled weights as by flash', () => {
  const request = { Q: flat([[1e19]]), K: flat([[1e19], [1]]), scale: 1, bias: [[3e38, 0]], rows: [0], cols: [0, 1] };
  refusedAsNonFinite(() => lab.sampledWeights(request), 'sampledWeights, overflow upwards');
  refusedAsNonFinite(() => lab.sampledCells(request), 'sampledCells, overflow upwards');
  refusedAsNonFinite(() => lab.flashAttention({ Q: request.Q, K: request.K, V: request.K, scale: 1, bias: request.bias }), 'flashAttention');
  const below = { Q: flat([[-1e19]]), K: flat([[1e19], [1e19]]), scale: 1, bias: [[-3e38, -3.3e38]], rows: [0], cols: [0, 1] };
  refusedAsNonFinite(() => lab.sampledCells(below), 'sampledCells, every key below float32');
});

test('a −∞ bias blocks: zeros, the keys hidden', () => {
  const r = lab.sampledCells({ Q: flat([[1]]), K: flat([[1], [2]]), bias: [[-Infinity, -Infinity]], rows: [0], cols: [0, 1] });
  assert.deepEqual(Array.from(r.weights[0]), [0, 0]);
  assert.deepEqual(r.visibleKeys, [0]);
});
