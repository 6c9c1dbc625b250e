// STEP_IDS and ERROR_CODES, the package's synchronous copies, equal the core's own lists.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab } from './support/package.js';

const lab = await attnlab.createAttnLab();

test('STEP_IDS equals the C++ step ids, order included', () => {
  assert.deepEqual([...attnlab.STEP_IDS], lab.stepIds());
  assert.ok(Object.isFrozen(attnlab.STEP_IDS));
});

test('ERROR_CODES equals the C++ error codes, order included', () => {
  assert.deepEqual([...attnlab.ERROR_CODES], lab.errorCodes());
  assert.ok(Object.isFrozen(attnlab.ERROR_CODES));
});

test('every step id a trace emits is in STEP_IDS, in trace order', async () => {
  const X = [
    [1, 0],
    [0, 1],
    [1, 1],
  ];
  const W = [
    [1, 0, 0, 1],
    [0, 1, 1, 0],
  ];
  const request = { X, Wq: W, Wk: W, Wv: W, Wo: W.concat(W), heads: 2, causal: true, positional: 'sinusoidal' };
  await lab.loadLearning(); // the backward steps
  const traces = [
    lab.trace({ ...request, rope: true, softcap: 5, alibi: true, dropout: 0.5 }), // the variants' steps appear only when on
    lab.trace({ ...request, dOutput: X.map(() => [1, -1, 0.5, 2]) }), // the backward steps (no variants)
    lab.trace({ ...request, family: 'linear' }), // linear attention's steps
    lab.trace({ ...request, causal: false, family: 'retention', decay: 0.5 }), // retention's
  ];
  const seen = new Set();
  for (const t of traces) {
    const positions = t.groups.map((g) => attnlab.STEP_IDS.indexOf(g.id));
    assert.ok(positions.every((p) => p >= 0));
    assert.deepEqual(
      positions,
      [...positions].sort((a, b) => a - b),
    );
    t.groups.forEach((g) => seen.add(g.id));
  }
  assert.equal(seen.size, attnlab.STEP_IDS.length); // together they have every step
});
