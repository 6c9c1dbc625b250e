// lab.attentionBackward from JavaScript: dQ, dK and dV against central finite differences of
// L = Σ dO ⊙ O, with O from a float64 attention forward written here (not lab.attention), for
// plain, causal, key padding, mask, temperature and scale; a fully masked row; the checks on dO.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab } from './support/package.js';
import { seededRows } from './support/seeded-rows.js';

const lab = await attnlab.createAttnLab();

// softmax(Q·Kᵀ · scale / temperature, masked) · V in float64; a row with no allowed key is 0.
function forward(Q, K, V, { causal = false, keyPadding, mask, scale, temperature = 1 }) {
  const factor = (scale ?? 1 / Math.sqrt(Q[0].length)) / temperature;
  return Q.map((q, i) => {
    const allowed = K.map((_, j) => !(causal && j > i) && !keyPadding?.[j] && (mask?.[i][j] ?? true));
    const logits = K.map((k, j) => (allowed[j] ? factor * q.reduce((s, x, t) => s + x * k[t], 0) : -Infinity));
    const max = Math.max(...logits);
    if (max === -Infinity) return V[0].map(() => 0);
    const e = logits.map((l) => Math.exp(l - max));
    const sum = e.reduce((a, b) => a + b, 0);
    return V[0].map((_, c) => e.reduce((acc, w, j) => acc + (w / sum) * V[j][c], 0));
  });
}

const loss = (inputs, dO, options) => forward(inputs.Q, inputs.K, inputs.V, options).reduce((s, row, i) => row.reduce((t, o, c) => t + dO[i][c] * o, s), 0);

// ∂L/∂inputs[name] by central differences, in float64.
function numericGradient(inputs, name, dO, options, h = 1e-6) {
  return inputs[name].map((row, r) =>
    row.map((x, c) => {
      const at = (value) => {
        const m = inputs[name].map((rr) => [...rr]);
        m[r][c] = value;
        return loss({ ...inputs, [name]: m }, dO, options);
      };
      return (at(x + h) - at(x - h)) / (2 * h);
    }),
  );
}

// max |got − expected| / max |expected|.
function relativeError(got, expected) {
  const largest = Math.max(...expected.flat().map(Math.abs));
  return Math.max(...got.flat().map((g, i) => Math.abs(g - expected.flat()[i]))) / Math.max(largest, 1e-12);
}

const matrix = (rows, cols, seed) => seededRows(lab, rows, cols, seed);
const inputs = { Q: matrix(4, 3, 1), K: matrix(5, 3, 2), V: matrix(5, 2, 3) };
const dO = matrix(4, 2, 4);
const mask = [
  [true, false, true, true, false],
  [false, true, true, false, true],
  [true, true, false, true, true],
  [false, false, true, true, true],
];

const CASES = {
  plain: {},
  causal: { causal: true },
  'key padding': { keyPadding: [false, true, false, false, true] },
  mask: { mask },
  'temperature 0.5': { temperature: 0.5 },
  'scale 0.8, temperature 2': { scale: 0.8, temperature: 2 },
  'all at once': { causal: true, keyPadding: [false, false, true, false, false], mask, scale: 0.7, temperature: 1.5 },
  'a fully masked row': { mask: mask.map((row, i) => (i === 1 ? row.map(() => false) : row)) },
};

for (const [name, options] of Object.entries(CASES)) {
  test(`${name}: dQ, dK, dV match finite differences of Σ dO ⊙ O (relative ≤ 1e-3)`, () => {
    const g = lab.attentionBackward({ ...inputs, dO, ...options });
    for (const [key, input] of [
      ['dQ', 'Q'],
      ['dK', 'K'],
      ['dV', 'V'],
    ]) {
      assert.equal(g[key].length, inputs[input].length, key);
      assert.equal(g[key][0].length, inputs[input][0].length, key);
      const error = relativeError(g[key], numericGradient(inputs, input, dO, options));
      assert.ok(error <= 1e-3, `${key}: relative error ${error}`);
    }
  });
}

test('a fully masked row has zero dQ; a padding key zero dK and dV', () => {
  const rowMasked = lab.attentionBackward({ ...inputs, dO, mask: CASES['a fully masked row'].mask });
  assert.deepEqual(rowMasked.dQ[1], [0, 0, 0]);
  const padded = lab.attentionBackward({ ...inputs, dO, keyPadding: [false, true, false, false, false] });
  assert.deepEqual(padded.dK[1], [0, 0, 0]);
  assert.deepEqual(padded.dV[1], [0, 0]);
});

test('dO must be present, of the output shape and finite; errors name it', () => {
  assert.throws(() => lab.attentionBackward(inputs), { code: 'invalid-argument', message: /dO is missing/ });
  assert.throws(() => lab.attentionBackward({ ...inputs, dO: dO.slice(1) }), { code: 'shape-mismatch', message: /dO \(3×2\).*Q \(4×3\)/ });
  assert.throws(() => lab.attentionBackward({ ...inputs, dO: dO.map((r) => [...r, 0]) }), { code: 'shape-mismatch', message: /dO \(4×3\).*V \(5×2\)/ });
  const bad = dO.map((r) => [...r]);
  bad[2][1] = NaN;
  assert.throws(() => lab.attentionBackward({ ...inputs, dO: bad }), { code: 'non-finite', message: /dO \(4×2\) has NaN at row 3, column 2/ });
  assert.throws(() => lab.attentionBackward({ ...inputs, dO, temperature: 0 }), { code: 'invalid-argument', message: /temperature/ });
});
