// The shipped model with heads computed by a cheaper attention (issue 37: forward()'s and
// loss()'s replace). Oracle: the family's own entry in the core module (lab.linearAttention,
// lab.retention, lab.lowRankAttention, lab.attention under lab.sparsePattern's mask), called on
// the head's Q, K and V formed here in float64 from the block's norm1 and the head's columns.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab } from './support/package.js';
import { product } from '../support/float64-efficient.js';
import { maxAbsDiff } from '../support/compare.js';

const lab = await attnlab.createAttnLab();
const model = await lab.loadModel();
const text = model.tokenize('The Congress shall have power to lay and collect taxes, and to borrow money on the credit of the United States.').tokenIds;
const n = text.length;
const mean = (values) => values.reduce((s, x) => s + x, 0) / values.length;

const at = { layer: 1, head: 2 };
const plain = model.forward(text);
const { Wq, Wk, Wv } = model.headWeights(at.layer, at.head);
const X = plain.blocks[at.layer].norm1; // the layer's input is the same whatever it replaces
const [Q, K, V] = [Wq, Wk, Wv].map((w) => product(X, w));

const families = [
  { replace: { family: 'linear', featureMap: 'elu' }, oracle: () => lab.linearAttention({ Q, K, V, featureMap: 'elu', causal: true }).weights },
  {
    replace: { family: 'linear', featureMap: 'favor', features: 64, seed: 3 },
    oracle: () => lab.linearAttention({ Q, K, V, featureMap: 'favor', features: 64, seed: 3, causal: true }).weights,
  },
  { replace: { family: 'retention', decay: 0.8 }, oracle: () => lab.retention({ Q, K, V, decay: 0.8 }).weights },
  { replace: { family: 'lowRank', rank: 4 }, oracle: () => lab.lowRankAttention({ Q, K, V, rank: 4, causal: true }).weights },
  {
    replace: { family: 'sparse', window: 3, globalTokens: [0], random: 1, seed: 5 },
    oracle: () =>
      lab.attention({ Q, K, V, causal: true, mask: lab.sparsePattern({ queries: n, window: 3, globalTokens: [0], random: 1, seed: 5 }).mask }).weights,
  },
];

for (const { replace, oracle } of families)
  test(`a head replaced by ${JSON.stringify(replace)}: its weights are the family's on its own Q, K, V`, () => {
    const replaced = model.forward(text, { replace: { ...replace, heads: [at] } });
    assert.deepEqual(replaced.blocks[0].output, plain.blocks[0].output, 'the layer before is untouched');
    const weights = replaced.blocks[at.layer].attention[at.head];
    const want = oracle();
    // Float32 rounding of Q and K, relative to the weights' size: retention's are unnormalised
    // (q·k γ^(i−j)), about 60 at most on this text.
    const tolerance = 1e-5 * Math.max(1, ...want.flat().map(Math.abs));
    const difference = maxAbsDiff(weights, want);
    assert.ok(difference <= tolerance, `max |Δ| ${difference} against the family's entry (tolerance ${tolerance})`);
    const fromSoftmax = maxAbsDiff(weights, plain.blocks[at.layer].attention[at.head]);
    assert.ok(Number.isFinite(fromSoftmax) && fromSoftmax > 1e-3, `the head computes something else than softmax (max |Δ| ${fromSoftmax})`);
    for (let h = 0; h < model.config.heads; h++)
      if (h !== at.head) assert.deepEqual(replaced.blocks[at.layer].attention[h], plain.blocks[at.layer].attention[h]);
    const losses = model.loss(text, { replace: { ...replace, heads: [at] } });
    assert.ok(losses.every(Number.isFinite));
    assert.notDeepEqual(losses, model.loss(text));
  });

test('families that can equal softmax give the model back; softmax itself gives the same numbers', () => {
  const full = model.loss(text, { replace: { family: 'lowRank', rank: n, heads: 'all' } });
  const exact = model.loss(text);
  assert.ok(Math.max(...full.map((x, i) => Math.abs(x - exact[i]))) <= 1e-4);
  const window = model.loss(text, { replace: { family: 'sparse', window: n, heads: 'all' } });
  assert.ok(Math.max(...window.map((x, i) => Math.abs(x - exact[i]))) <= 1e-5);
  assert.deepEqual(model.loss(text, { replace: { family: 'softmax', heads: 'all' } }), exact);
});

test('every head replaced costs the trained model loss, more at a lower rank', () => {
  const loss = (replace) => mean(model.loss(text, { replace: { ...replace, heads: 'all' } }));
  const exact = mean(model.loss(text));
  const [rank2, rank16] = [loss({ family: 'lowRank', rank: 2 }), loss({ family: 'lowRank', rank: 16 })];
  assert.ok(rank2 > rank16 && rank16 > exact - 1e-6, `rank 2 ${rank2}, rank 16 ${rank16}, exact ${exact}`);
  assert.ok(loss({ family: 'linear', featureMap: 'relu' }) > exact);
});

test("replace's errors name the field", () => {
  const refuses = (replace, pattern) =>
    assert.throws(
      () => model.forward(text, { replace }),
      (error) => error instanceof attnlab.AttnLabError && pattern.test(error.message),
      JSON.stringify(replace),
    );
  refuses({ family: 'cosine', heads: 'all' }, /replace\.family must be 'softmax', 'linear'/);
  refuses({ family: 'linear', decay: 0.5, heads: 'all' }, /replace\.decay is not an option of 'linear'/);
  refuses({ family: 'linear' }, /replace\.heads is missing/);
  refuses({ family: 'linear', heads: [{ layer: 9, head: 0 }] }, /replace\.heads\[0\]\.layer/);
  refuses({ family: 'retention', heads: 'all' }, /decay/);
  refuses({ family: 'linear', featureMap: 'tanh', heads: 'all' }, /featureMap/);
  refuses({ family: 'sparse', window: -1, heads: 'all' }, /window/);
  refuses('linear', /replace must be/);
});
