// lab.normalMatrix(): the core's seeded N(0, 1) generator from JavaScript.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab, errorOf } from './support/package.js';

const lab = await attnlab.createAttnLab();

test('normalMatrix returns a flat float32 matrix of the asked shape', () => {
  const m = lab.normalMatrix({ rows: 3, cols: 5, seed: 42 });
  assert.equal(m.rows, 3);
  assert.equal(m.cols, 5);
  assert.ok(m.data instanceof Float32Array);
  assert.equal(m.data.length, 15);
  assert.deepEqual(Object.keys(m).sort(), ['cols', 'data', 'rows']);
});

test('the same seed gives the same numbers, another seed others', () => {
  const a = lab.normalMatrix({ rows: 4, cols: 6, seed: 7 });
  const b = lab.normalMatrix({ rows: 4, cols: 6, seed: 7 });
  const c = lab.normalMatrix({ rows: 4, cols: 6, seed: 8 });
  assert.deepEqual(a.data, b.data);
  assert.notDeepEqual(a.data, c.data);
  assert.notEqual(a.data, b.data); // each call owns its copy
  // Row-major from one stream: a taller matrix starts with the shorter one's values.
  assert.deepEqual(lab.normalMatrix({ rows: 6, cols: 6, seed: 7 }).data.subarray(0, 24), a.data);
  // seed defaults to 1
  assert.deepEqual(lab.normalMatrix({ rows: 2, cols: 2 }).data, lab.normalMatrix({ rows: 2, cols: 2, seed: 1 }).data);
});

test("the numbers are the native build's (pinned there too, in random_test.cpp)", () => {
  const pinned = [-0.0282497462, -1.06561768, -0.227919519, 0.0830941722];
  const { data } = lab.normalMatrix({ rows: 1, cols: 4, seed: 1 });
  pinned.forEach((v, i) => assert.ok(Math.abs(data[i] - v) <= 1e-7 * Math.abs(v), `${data[i]} vs ${v}`));
});

test('mean ≈ 0, standard deviation ≈ 1, and the tails of a normal', () => {
  const n = 200_000;
  const { data } = lab.normalMatrix({ rows: 400, cols: 500, seed: 3 });
  let mean = 0;
  for (const x of data) mean += x / n;
  let variance = 0;
  for (const x of data) variance += (x - mean) ** 2 / n;
  // Standard errors: mean 0.0022, variance 0.0032; the bounds are about 4.5 of them.
  assert.ok(Math.abs(mean) < 0.01, `mean ${mean}`);
  assert.ok(Math.abs(Math.sqrt(variance) - 1) < 0.0075, `std ${Math.sqrt(variance)}`);
  // P(|x| > 1.96) = 0.05 for N(0, 1): a uniform or a scaled draw fails this.
  const outside = data.filter((x) => Math.abs(x) > 1.96).length / n;
  assert.ok(Math.abs(outside - 0.05) < 0.003, `tail fraction ${outside}`);
});

test('bad shapes and seeds are AttnLabErrors', () => {
  const code = (request) => errorOf(() => lab.normalMatrix(request)).code;
  assert.equal(code({ rows: 0, cols: 3 }), 'invalid-argument');
  assert.equal(code({ rows: 3, cols: 0 }), 'invalid-argument');
  assert.equal(code({ rows: 4097, cols: 4097 }), 'too-large');
  assert.equal(code({ rows: 1.5, cols: 2 }), 'invalid-argument');
  assert.equal(code({ rows: 2, cols: 2, seed: -1 }), 'invalid-argument');
  assert.equal(code({ rows: 2, cols: 2, seed: 'x' }), 'invalid-argument');
  assert.equal(code(null), 'invalid-argument');
  assert.match(errorOf(() => lab.normalMatrix({ rows: 4097, cols: 4097 })).message, /rows·cols/);
});
