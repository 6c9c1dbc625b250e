// One argument style: every entry takes a request object; the older positional forms of
// sinusoidalEncoding, softmaxBreakdown, permutationCheck and tilePlan still work.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab, errorOf } from './support/package.js';
import { tinyX } from '../support/tiny-example.js';

const lab = await attnlab.createAttnLab();

const codeOf = (call) => {
  const { code, message } = errorOf(call);
  return [code, message];
};

test('sinusoidalEncoding({ positions, width }) equals the older (positions, width) and { tokens, width }, and all are PE', () => {
  const pe = lab.sinusoidalEncoding({ positions: 5, width: 6 });
  assert.deepEqual(pe, lab.sinusoidalEncoding(5, 6));
  assert.deepEqual(pe, lab.sinusoidalEncoding({ tokens: 5, width: 6 }), 'tokens, the older name of positions');
  assert.notDeepEqual(pe, lab.sinusoidalEncoding({ tokens: 4, width: 6 }));
  assert.deepEqual(
    codeOf(() => lab.sinusoidalEncoding({ tokens: 5, positions: 5, width: 6 })),
    ['invalid-argument', 'tokens is the older name of positions: give one of them'],
  );
  assert.equal(pe.length, 5);
  // pe(p, 2i) = sin(p / 10000^(2i/d)), pe(p, 2i+1) = cos(same), computed here.
  pe.forEach((row, p) =>
    row.forEach((v, c) => {
      const angle = p / 10000 ** ((c - (c % 2)) / 6);
      assert.ok(Math.abs(v - (c % 2 ? Math.cos(angle) : Math.sin(angle))) < 1e-6, `${p},${c}`);
    }),
  );
});

test('sinusoidalEncoding: the core checks the range 1 … 2048 and names the argument', () => {
  const cases = [
    [{ positions: 0, width: 4 }, 'invalid-argument', /^positions must be a whole number from 1 to 2048, got 0/],
    [{ positions: 4, width: 0 }, 'invalid-argument', /^width must be a whole number from 1 to 2048, got 0/],
    [{ positions: 2049, width: 4 }, 'too-large', /^positions must be a whole number from 1 to 2048, got 2049/],
    [{ positions: 4, width: 2049 }, 'too-large', /^width .* got 2049/],
    [{ positions: 1.5, width: 4 }, 'invalid-argument', /^positions/],
    [{ tokens: 1.5, width: 4 }, 'invalid-argument', /^tokens must be a whole number/],
    [{ positions: 4 }, 'invalid-argument', /^width/],
    [{ width: 4 }, 'invalid-argument', /^positions must be a whole number from 1 to 2048, got undefined/],
  ];
  for (const [request, code, message] of cases) {
    const [gotCode, gotMessage] = codeOf(() => lab.sinusoidalEncoding(request));
    assert.equal(gotCode, code, JSON.stringify(request));
    assert.match(gotMessage, message);
  }
  assert.equal(codeOf(() => lab.sinusoidalEncoding(2049, 2))[0], 'too-large');
  assert.equal(lab.sinusoidalEncoding({ tokens: 2048, width: 1 }).length, 2048);
});

test('softmaxBreakdown({ scores, temperature }) equals the older (scores, temperature)', () => {
  assert.deepEqual(lab.softmaxBreakdown({ scores: [3, 1, 2], temperature: 2 }), lab.softmaxBreakdown([3, 1, 2], 2));
  assert.deepEqual(lab.softmaxBreakdown({ scores: new Float32Array([3, 1]) }), lab.softmaxBreakdown([3, 1]));
  assert.equal(lab.softmaxBreakdown({ scores: [3, 1], temperature: 2 }).temperature, 2);
  assert.equal(codeOf(() => lab.softmaxBreakdown({ temperature: 2 }))[0], 'invalid-argument');
  assert.equal(codeOf(() => lab.softmaxBreakdown({ scores: [1], temperature: '2' }))[0], 'invalid-argument');
});

test('permutationCheck({ ...request, order }) equals the older (request, order)', () => {
  const request = tinyX();
  const order = [2, 0, 1];
  const check = lab.permutationCheck({ ...request, order });
  assert.deepEqual(check, lab.permutationCheck(request, order));
  assert.deepEqual(check.order, order);
  assert.equal(check.reorderedOnly, true);
  assert.match(codeOf(() => lab.permutationCheck(request))[1], /^order must be an array/);
});

test('tilePlan({ headWidth }) equals the older tilePlan(headWidth); null beyond the widths', () => {
  const plan = lab.tilePlan({ headWidth: 64 });
  assert.deepEqual(plan, lab.tilePlan(64));
  assert.equal(plan.headWidth, 64);
  assert.equal(plan.workgroupStorageBytes, 2 * plan.keyRows * 64 * 4);
  assert.equal(lab.tilePlan({ headWidth: 100000 }), null);
  assert.equal(codeOf(() => lab.tilePlan({}))[0], 'invalid-argument');
});

test('attention(): scale excludes the temperature, factor is what multiplies the scores', () => {
  // q·k = 2 and 4 with d_k = 2; the temperature divides what the scale multiplied.
  const qkv = {
    Q: [[1, 1]],
    K: [
      [2, 0],
      [0, 4],
    ],
    V: [[1], [2]],
  };
  const r = lab.attention({ ...qkv, temperature: 2 });
  assert.ok(Math.abs(r.scale - Math.SQRT1_2) < 1e-7);
  assert.equal(r.temperature, 2);
  assert.ok(Math.abs(r.factor - Math.SQRT1_2 / 2) < 1e-7);
  assert.ok(Math.abs(r.scaled[0][0] - (2 * Math.SQRT1_2) / 2) < 1e-6);
  assert.ok(Math.abs(r.scaled[0][1] - (4 * Math.SQRT1_2) / 2) < 1e-6);
  const explicit = lab.attention({ ...qkv, scale: 0.5, temperature: 4 });
  assert.deepEqual([explicit.scale, explicit.temperature, explicit.factor], [0.5, 4, 0.125]);
});

test('results are plain values: no handles, typed arrays only where documented as flat', () => {
  const isPlain = (value) => {
    if (value === null || typeof value !== 'object') return true;
    if (ArrayBuffer.isView(value)) return false;
    return Object.values(value).every(isPlain);
  };
  const Q = [
    [1, 0],
    [0, 1],
  ];
  assert.ok(isPlain(lab.attention({ Q, K: Q, V: Q, causal: true })));
  assert.ok(isPlain(lab.trace({ Q, K: Q, V: Q, causal: true })));
  assert.ok(isPlain(lab.softmaxBreakdown({ scores: [1, 2] })));
  assert.ok(isPlain(lab.scalingStudy({ dims: [2], samples: 4 })));
  assert.ok(lab.flashAttention({ Q, K: Q, V: Q }).output.data instanceof Float32Array);
  assert.ok(lab.naiveAttention({ Q, K: Q, V: Q }).output.data instanceof Float32Array);
});
