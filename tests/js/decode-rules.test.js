// decode() is causal self-attention token by token: a request for non-causal attention is
// refused with a message, not computed causally anyway (ONNX's bidirectional window case gave a
// result off by 1.0 before).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab } from './support/package.js';
import { tinyQKV } from '../support/tiny-example.js';

const lab = await attnlab.createAttnLab();

test('decode() refuses causal: false and takes causal left out or true', () => {
  const { Q, K } = tinyQKV();
  const request = { Q, K: K.slice(0, 2), V: Q };
  assert.throws(
    () => lab.decode({ ...request, causal: false }),
    (e) => e instanceof attnlab.AttnLabError && e.code === 'invalid-argument' && /causal/.test(e.message),
  );
  const implied = lab.decode(request).output;
  assert.deepEqual(lab.decode({ ...request, causal: true }).output, implied);
  assert.deepEqual(implied, lab.trace({ ...request, causal: true }).output);
});
