// Bring your own attention (issue 24, item 7): lab.importAttention() with JSON in the Hugging
// Face output_attentions layout. The little model's own weights, written in that layout, come
// back with the scores its headScores() gives and with previous-token scores computed here;
// every malformed import is an AttnLabError naming the layer, head, row or field.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab } from './support/package.js';
import { DOCUMENTED_LIMITS } from './support/documented-limits.js';

const lab = await attnlab.createAttnLab();
const model = await lab.loadModel();
const { tokens, pieces } = model.tokenize('We are blessed with peace at home, and are without entangling alliances abroad.');
const { blocks } = model.forward(tokens);
// As transformers writes it: [layer][batch][head][query][key], a batch of one.
const hf = { tokens: pieces, attentions: blocks.map((b) => [b.attention]) };

async function rejection(json) {
  const error = await lab.importAttention(json).then(
    () => null,
    (e) => e,
  );
  assert.ok(error instanceof attnlab.AttnLabError, `expected an AttnLabError, got ${error}`);
  return error;
}

test("the model's own attention in the Hugging Face layout: its weights and scores come back", async () => {
  const imported = await lab.importAttention(JSON.parse(JSON.stringify(hf)));
  assert.deepEqual(imported.tokens, pieces);
  assert.equal(imported.attention.length, model.config.layers);
  const scores = model.headScores(tokens);
  imported.scores.forEach((layer, l) =>
    layer.forEach((s, h) => {
      const a = blocks[l].attention[h];
      assert.deepEqual(imported.attention[l][h], a); // float32 values through JSON, unchanged
      const previous = a.slice(1).reduce((sum, row, i) => sum + row[i], 0) / (a.length - 1);
      assert.ok(Math.abs(s.previousToken - previous) <= 1e-6, `layer ${l} head ${h}`);
      assert.equal(s.role, scores[l][h].role);
    }),
  );
  // One layer as [head][query][key].
  const one = await lab.importAttention({ tokens: pieces, attention: blocks[0].attention });
  assert.equal(one.attention.length, 1);
  assert.deepEqual(one.scores[0], imported.scores[0]);
});

test('a malformed import names what is wrong', async () => {
  const n = pieces.length;
  const rows = (a) => a.map((row) => [...row]);
  const offRow = rows(blocks[1].attention[2]);
  offRow[4][0] += 0.1;
  const cases = [
    [{ tokens: pieces.slice(1), attention: blocks[0].attention }, 'shape-mismatch', `layer 1, head 1 is ${n}×${n}, but there are ${n - 1} tokens`],
    [
      { ...hf, attentions: hf.attentions.map((l, i) => (i === 1 ? [[...l[0].slice(0, 2), offRow, l[0][3]]] : l)) },
      'invalid-argument',
      'layer 2, head 3, row 5 sums to',
    ],
    [{ ...hf, attentions: [[blocks[0].attention, blocks[0].attention]] }, 'shape-mismatch', 'attentions[0] holds a batch of 2 sequences'],
    [{ tokens: pieces, attention: [[[1, 0], [0.5]]] }, 'shape-mismatch', 'attention[0] is ragged'],
    [{ tokens: pieces.map((p, i) => (i === 2 ? 7 : p)), attention: blocks[0].attention }, 'invalid-argument', 'tokens[2] is number, not a string'],
    [{ tokens: pieces, attention: blocks[0].attention, attentions: hf.attentions }, 'invalid-argument', 'either attentions'],
    [{ tokens: pieces, attentions: [[7]] }, 'invalid-argument', 'attentions[0][0] must be an array of heads'],
    [[1, 2], 'invalid-argument', 'must be a JSON object'],
    [
      {
        tokens: ['a', 'b'],
        attentions: Array.from({ length: DOCUMENTED_LIMITS.importLayers + 1 }, () => [
          [
            [
              [1, 0],
              [0.5, 0.5],
            ],
          ],
        ]),
      },
      'too-large',
      `layers must be a whole number from 1 to ${DOCUMENTED_LIMITS.importLayers}`,
    ],
    [
      {
        tokens: ['a', 'b'],
        attention: [
          [
            [1, 0],
            [-0.5, 1.5],
          ],
        ],
      },
      'invalid-argument',
      'layer 1, head 1, row 2, column 1 is -0.5',
    ],
    [
      {
        tokens: ['a', 'b'],
        attention: [
          [
            [1, 0],
            [NaN, 1],
          ],
        ],
      },
      'non-finite',
      'layer 1, head 1, row 2, column 1',
    ],
  ];
  for (const [json, code, words] of cases) {
    const error = await rejection(json);
    assert.equal(error.code, code, error.message);
    assert.ok(error.message.includes(words), `"${error.message}" lacks "${words}"`);
  }
  assert.equal(lab.limits().importValues, DOCUMENTED_LIMITS.importValues);
});

test('at its limits: traceTokens tokens and importValues weights are taken, one layer or token more is too large', async () => {
  const { traceTokens: n, importValues } = DOCUMENTED_LIMITS;
  const layers = importValues / (n * n); // whole: 16 layers of one 512 × 512 head
  assert.ok(Number.isInteger(layers), `${importValues} / ${n}²`);
  // Uniform causal weights: row i gives 1/(i + 1) to each of its keys.
  const head = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (j <= i ? 1 / (i + 1) : 0)));
  const tokens = Array.from({ length: n }, (_, i) => `t${i}`);
  const taken = await lab.importAttention({ tokens, attentions: Array.from({ length: layers }, () => [[head]]) });
  assert.equal(taken.scores.length, layers);
  assert.equal(taken.scores[0][0].role, 'spread');
  const more = await rejection({ tokens, attentions: Array.from({ length: layers + 1 }, () => [[head]]) });
  assert.equal(more.code, 'too-large');
  assert.match(more.message, /importValues/);
  const longer = [...head.map((row) => [...row, 0]), Array(n + 1).fill(1 / (n + 1))];
  const tooLong = await rejection({ tokens: [...tokens, 'x'], attention: [longer] });
  assert.equal(tooLong.code, 'too-large');
  assert.match(tooLong.message, new RegExp(`tokens must be a whole number from 2 to ${n}`));
});
