// lab.flashWalk from JavaScript: its output is the stepper's O (lab.attention, ≤ 1e-6) and a
// float64 softmax(QKᵀ/√d)V written here; the last tile of each row holds that row's max and
// sum; the tile sizes are checked against lab.limits().
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab } from './support/package.js';

const lab = await attnlab.createAttnLab();

// A float64 reference: softmax(Q·Kᵀ/√d, causal) · V.
function reference(Q, K, V, causal) {
  const d = Q[0].length;
  return Q.map((q, i) => {
    const scores = K.map((k, j) => (causal && j > i ? -Infinity : q.reduce((s, x, t) => s + x * k[t], 0) / Math.sqrt(d)));
    const max = Math.max(...scores);
    const e = scores.map((s) => Math.exp(s - max));
    const sum = e.reduce((a, b) => a + b, 0);
    return { max, sum, output: V[0].map((_, c) => e.reduce((acc, w, j) => acc + (w / sum) * V[j][c], 0)) };
  });
}

const matrix = (rows, cols, seed) => lab.normalMatrix({ rows, cols, seed });
const nested = (m) => Array.from({ length: m.rows }, (_, r) => Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols)));

for (const [n, queryRows, keyRows, causal] of [
  [8, 2, 2, false],
  [12, 3, 4, true],
  [16, 4, 4, false],
  [13, 4, 3, true],
]) {
  test(`n = ${n}, Br = ${queryRows}, Bc = ${keyRows}${causal ? ', causal' : ''}: the walk's output is the stepper's O`, () => {
    const [Q, K, V] = [matrix(n, 3, n), matrix(n, 3, n + 1), matrix(n, 2, n + 2)].map(nested);
    const walk = lab.flashWalk({ Q, K, V, causal, queryRows, keyRows });
    const stepper = lab.attention({ Q, K, V, causal }).output;
    const expected = reference(Q, K, V, causal);
    walk.output.forEach((row, i) =>
      row.forEach((v, c) => {
        assert.ok(Math.abs(v - stepper[i][c]) <= 1e-6, `O[${i}][${c}]: ${v} vs the stepper's ${stepper[i][c]}`);
        assert.ok(Math.abs(v - expected[i].output[c]) <= 1e-5, `O[${i}][${c}] vs float64`);
      }),
    );
    for (const event of walk.events.filter((e) => e.kind === 'finish')) {
      event.sum.forEach((l, r) =>
        assert.ok(Math.abs(l - expected[event.firstQuery + r].sum) <= 1e-5 * expected[event.firstQuery + r].sum, `l of row ${event.firstQuery + r}`),
      );
    }
    const lastTiles = walk.events.filter((e, i) => e.kind === 'tile' && walk.events[i + 1]?.kind === 'finish');
    for (const tile of lastTiles)
      tile.newMax.forEach((m, r) => assert.ok(Math.abs(m - expected[tile.firstQuery + r].max) <= 1e-5, `m of row ${tile.firstQuery + r}`));
    assert.equal(walk.matrixFloats, n * n);
  });
}

test('tile sizes outside 1 … limits().walkTile are refused, naming the range', () => {
  const Q = [
    [1, 0],
    [0, 1],
  ];
  const { walkTile } = lab.limits();
  assert.throws(() => lab.flashWalk({ Q, K: Q, V: Q, queryRows: walkTile + 1 }), { code: 'invalid-argument', message: new RegExp(`from 1 to ${walkTile}`) });
  assert.throws(() => lab.flashWalk({ Q, K: Q, V: Q, keyRows: 0 }), { code: 'invalid-argument' });
  assert.throws(() => lab.flashWalk({ Q, K: Q, V: Q, keyRow: 2 }), { code: 'invalid-argument', message: /did you mean keyRows/ });
});
