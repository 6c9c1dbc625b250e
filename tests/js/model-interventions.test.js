// Issue 38's interventions on the shipped model, against an oracle written here: forward() with
// heads ablated, loss() per next token and rollout(). The oracle is a float64 forward in
// JavaScript of the last block from its input (the weights read from weights.bin's float16
// halves by model.json's table, not through the model module): the ablated head's output
// recomputed from its attention weights and W_V, replaced by zeros or by its mean over the
// text, then W_O, the MLP, the final norm and the unembedding.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { attnlab } from './support/package.js';
import { maxAbsDiff } from '../support/compare.js';
import { product } from '../support/float64-efficient.js';

const lab = await attnlab.createAttnLab();
const description = JSON.parse(await readFile('model/model.json', 'utf8'));
const halves = new Uint16Array(new Uint8Array(await readFile('model/weights.bin')).buffer);
const model = await lab.loadModel();
const { layers, heads, dModel: d, vocab } = model.config;
const dh = d / heads;
const last = layers - 1;
const text = model.tokenize('The Congress shall have power to lay and collect taxes, and the Congress shall have power to borrow money.').tokenIds;

// IEEE half → number.
function half(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}
// A tensor of model.json as rows of numbers.
function tensor(name) {
  const t = description.tensors.find((entry) => entry.name === name);
  assert.ok(t, name);
  return Array.from({ length: t.rows }, (_, i) => Array.from({ length: t.cols }, (_, j) => half(halves[t.offset + i * t.cols + j])));
}
const add = (a, b) => a.map((row, i) => row.map((x, j) => x + b[i][j]));
function layerNorm(x, gain, bias) {
  return x.map((row) => {
    const mean = row.reduce((s, v) => s + v, 0) / row.length;
    const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / row.length;
    const r = 1 / Math.sqrt(variance + 1e-5);
    return row.map((v, j) => (v - mean) * r * gain[0][j] + bias[0][j]);
  });
}
const gelu = (u) => 0.5 * u * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (u + 0.044715 * u ** 3)));

// The last block and the logits in float64 from the plain pass's block input, head h replaced.
function oracle(plain, h, ablation) {
  const b = plain.blocks[last];
  const p = `layers.${last}.`;
  const v = product(b.norm1, tensor(`${p}w_v`)).map((row) => row.slice(h * dh, (h + 1) * dh));
  const z = product(b.attention[h], v); // the head's output, (n, d_head)
  const mean = z[0].map((_, j) => z.reduce((s, row) => s + row[j], 0) / z.length);
  const replaced = z.map(() => (ablation === 'mean' ? mean : mean.map(() => 0)));
  const wo = tensor(`${p}w_o`).slice(h * dh, (h + 1) * dh);
  const change = product(
    z.map((row, i) => row.map((x, j) => replaced[i][j] - x)),
    wo,
  );
  const attentionOutput = add(b.attentionOutput, change);
  const middle = add(b.input, attentionOutput);
  const norm2 = layerNorm(middle, tensor(`${p}ln2.gain`), tensor(`${p}ln2.bias`));
  const hidden = add(
    product(norm2, tensor(`${p}w_fc`)),
    norm2.map(() => tensor(`${p}b_fc`)[0]),
  ).map((row) => row.map(gelu));
  const mlp = add(
    product(hidden, tensor(`${p}w_proj`)),
    hidden.map(() => tensor(`${p}b_proj`)[0]),
  );
  const output = add(middle, mlp);
  const logits = product(layerNorm(output, tensor('final.gain'), tensor('final.bias')), tensor('unembedding'));
  return { attentionOutput, logits };
}

// −log softmax(row)[target] in float64.
function crossEntropy(row, target) {
  const top = Math.max(...row);
  const z = row.reduce((s, x) => s + Math.exp(x - top), 0);
  return Math.log(z) + top - row[target];
}

test('ablate: [] gives the plain forward pass exactly, for either ablation', () => {
  const plain = model.forward(text);
  assert.deepEqual(model.forward(text, { ablate: [] }), plain);
  assert.deepEqual(model.forward(text, { ablate: [], ablation: 'mean' }), plain);
  assert.deepEqual(model.forward(text, {}), plain);
});

test("zero and mean ablation of each of the last layer's heads match a float64 forward in JavaScript", () => {
  assert.ok(description.tensors.some((t) => t.name === 'final.gain'));
  const plain = model.forward(text);
  for (const ablation of ['zero', 'mean'])
    for (let h = 0; h < heads; h++) {
      const ablated = model.forward(text, { ablate: [{ layer: last, head: h }], ablation });
      const expected = oracle(plain, h, ablation);
      assert.deepEqual(ablated.blocks[last].attention, plain.blocks[last].attention, 'the weights stay the head’s own');
      assert.ok(maxAbsDiff(ablated.blocks[last].attentionOutput, expected.attentionOutput) <= 1e-4, `${ablation} head ${h}: attention output`);
      assert.ok(maxAbsDiff(ablated.logits, expected.logits) <= 2e-3, `${ablation} head ${h}: logits`);
      const moved = maxAbsDiff(ablated.logits, plain.logits);
      assert.ok(Number.isFinite(moved) && moved > 1e-3, `${ablation} head ${h} changed nothing (max |Δ| ${moved})`);
    }
});

test('loss(): each next token’s cross-entropy in nats, ablated or not', () => {
  for (const options of [undefined, { ablate: [{ layer: 0, head: 2 }], ablation: 'mean' }]) {
    const { logits } = model.forward(text, options);
    const losses = model.loss(text, options);
    assert.equal(losses.length, text.length - 1);
    for (let i = 0; i + 1 < text.length; i++) assert.ok(Math.abs(losses[i] - crossEntropy(logits[i], text[i + 1])) <= 1e-5, `token ${i + 1}`);
  }
  assert.deepEqual(model.loss(text, { ablate: [] }), model.loss(text));
});

test('rollout(): 0.5·A + 0.5·I per layer multiplied through, rows summing to 1 within 1e-5', () => {
  const { blocks } = model.forward(text);
  const rollout = model.rollout(text);
  const n = text.length;
  assert.equal(rollout.length, layers);
  let expected = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
  for (let l = 0; l < layers; l++) {
    const mixed = Array.from({ length: n }, (_, i) => {
      const row = Array.from({ length: n }, (_, j) => (0.5 * blocks[l].attention.reduce((s, a) => s + a[i][j], 0)) / heads + (i === j ? 0.5 : 0));
      const total = row.reduce((s, x) => s + x, 0);
      return row.map((x) => x / total);
    });
    expected = product(mixed, expected);
    assert.ok(maxAbsDiff(rollout[l], expected) <= 1e-6, `layer ${l}`);
    for (const [i, row] of rollout[l].entries()) {
      assert.ok(Math.abs(row.reduce((s, x) => s + x, 0) - 1) <= 1e-5, `layer ${l} row ${i}`);
      for (let j = i + 1; j < n; j++) assert.equal(row[j], 0);
    }
  }
});

test('bad ablations and too few tokens are coded AttnLabErrors naming the field', () => {
  const refused = (call, code, pattern) =>
    assert.throws(call, (error) => error instanceof attnlab.AttnLabError && error.code === code && pattern.test(error.message), String(call));
  refused(
    () => model.forward(text, { ablate: [{ layer: layers, head: 0 }] }),
    'invalid-argument',
    /ablate\[0\]\.layer must be a whole number from 0 to 2, got 3/,
  );
  refused(
    () =>
      model.forward(text, {
        ablate: [
          { layer: 0, head: 0 },
          { layer: 0, head: -1 },
        ],
      }),
    'invalid-argument',
    /ablate\[1\]\.head/,
  );
  refused(() => model.forward(text, { ablate: [{ layer: 0, head: 1.5 }] }), 'invalid-argument', /ablate\[0\]\.head/);
  refused(() => model.forward(text, { ablate: [{ layer: 0 }] }), 'invalid-argument', /ablate\[0\]\.head .*got undefined/);
  refused(() => model.forward(text, { ablate: [{ layer: 0, head: 0, heads: 1 }] }), 'invalid-argument', /ablate\[0\]\.heads.*head/);
  refused(() => model.forward(text, { ablate: [[0, 0]] }), 'invalid-argument', /ablate\[0\] must be \{ layer, head \}/);
  refused(() => model.forward(text, { ablate: { layer: 0, head: 0 } }), 'invalid-argument', /ablate must be an array/);
  refused(() => model.loss(text, { ablation: 'random' }), 'invalid-argument', /ablation must be 'zero' or 'mean', got 'random'/);
  refused(() => model.loss(text, { ablaton: 'mean' }), 'invalid-argument', /ablaton.*ablation/);
  refused(() => model.loss(text, { tokenIds: text }), 'invalid-argument', /first argument/);
  refused(() => model.loss(text.slice(0, 1)), 'invalid-argument', /tokenIds has 1 token id: loss\(\) .* at least 2/);
  refused(() => model.loss([]), 'invalid-argument', /tokenIds/);
  refused(() => model.loss([1, vocab]), 'invalid-argument', /token 1 is 512/);
  refused(() => model.rollout([]), 'invalid-argument', /at least one token/);
  refused(() => model.rollout(new Array(model.config.contextLength + 1).fill(1)), 'too-large', /context length/);
  refused(() => model.rollout([1, NaN]), 'invalid-argument', /tokenIds/);
});
