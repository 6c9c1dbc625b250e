// The model module's entries at their limits (issue 29), as limits.test.js does for the core's:
// the packaged model's every method at its context (tokenize at tokenizeBytes, the worst text:
// one chunk of letters, and four-byte characters), lab.importAttention() at importValues and
// importLayers, lab.loadModel() itself. Each call succeeds; its wall and CPU times are
// printed, never asserted (the machine is shared); its result is spot-checked.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DOCUMENTED_LIMITS as L } from './support/documented-limits.js';
import { attnlab } from './support/package.js';

const lab = await attnlab.createAttnLab();

/** Runs call() once and prints its wall and CPU time. */
async function timedAsync(what, call) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = await call();
  const ms = performance.now() - start;
  const { user, system } = process.cpuUsage(cpu);
  console.log(`${what}: ${ms.toFixed(0)} ms (${((user + system) / 1000).toFixed(0)} ms CPU)`);
  return result;
}

const model = await timedAsync('loadModel (the packaged model, the module loaded first)', () => lab.loadModel());
const { vocab, contextLength: context, layers, heads } = model.config;

test(`tokenize() at ${L.tokenizeBytes} bytes and pieces() at as many ids`, async () => {
  for (const [what, text] of [
    ['one chunk of letters', 'a'.repeat(L.tokenizeBytes)],
    ['words', 'the nation '.repeat(L.tokenizeBytes / 11 + 1).slice(0, L.tokenizeBytes)],
    ['four-byte characters', '😀'.repeat(L.tokenizeBytes / 4)],
  ]) {
    const { tokenIds: tokens, pieces } = await timedAsync(`tokenize ${L.tokenizeBytes} bytes, ${what}`, () => model.tokenize(text));
    assert.ok(tokens.length > 0 && tokens.length <= L.tokenizeBytes);
    if (!what.startsWith('four')) assert.equal(pieces.join(''), text, 'the pieces spell the text'); // a piece may split a character
  }
  const ids = Array.from({ length: L.tokenizeBytes }, (_, i) => i % vocab);
  assert.equal((await timedAsync(`pieces ${ids.length} ids`, () => model.pieces(ids))).length, ids.length);
});

test(`forward, generate, headScores, nextTokenDistribution, headWeights and inductionProbe at the context (${context} tokens)`, async () => {
  const tokens = Array.from({ length: context }, (_, i) => (i * 37) % vocab);
  const { logits } = await timedAsync(`forward ${context} tokens`, () => model.forward(tokens));
  assert.deepEqual([logits.length, logits[0].length], [context, vocab]);
  const generated = await timedAsync(`generate ${context - 1} tokens after 1`, () =>
    model.generate([tokens[0]], { count: context - 1, temperature: 1, topK: 0, seed: 3 }),
  );
  assert.equal(generated.length, context - 1);
  const probe = await timedAsync(`inductionProbe ${context / 2}`, () => model.inductionProbe(context / 2));
  const scores = await timedAsync(`headScores ${context} tokens, period ${context / 2}`, () => model.headScores(probe, context / 2));
  assert.deepEqual([scores.length, scores[0].length], [layers, heads]);
  const { probabilities } = await timedAsync(`nextTokenDistribution ${vocab} logits`, () => model.nextTokenDistribution(logits.at(-1)));
  assert.ok(Math.abs(probabilities.reduce((a, b) => a + b, 0) - 1) <= 1e-9);
  const { Wq } = await timedAsync(`headWeights layer ${layers - 1}, head ${heads - 1}`, () => model.headWeights(layers - 1, heads - 1));
  assert.equal(Wq[0].length * heads, model.config.dModel);
});

// Rows of n weights that sum to 1, different per row.
const rows = (n, seed) =>
  Array.from({ length: n }, (_, i) => {
    const e = Array.from({ length: n }, (_, j) => 1 + ((i * 7 + j * 13 + seed) % 17));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / sum);
  });

test(`importAttention() at importValues (${L.importValues}) and at importLayers (${L.importLayers})`, async () => {
  const n = L.traceTokens;
  const big = { tokens: Array.from({ length: n }, (_, i) => `t${i}`), attentions: Array.from({ length: L.importValues / (n * n) }, (_, l) => [[rows(n, l)]]) };
  const imported = await timedAsync(`importAttention ${big.attentions.length} layers of one ${n} x ${n} head`, () => lab.importAttention(big));
  assert.equal(imported.attention.length, big.attentions.length);
  assert.ok(Math.abs(imported.attention.at(-1)[0][n - 1][3] - big.attentions.at(-1)[0][0][n - 1][3]) <= 1e-7);
  const m = Math.floor(Math.sqrt(L.importValues / (L.importLayers * L.maxHeads)));
  const many = {
    tokens: Array.from({ length: m }, (_, i) => `t${i}`),
    attentions: Array.from({ length: L.importLayers }, (_, l) => [Array.from({ length: L.maxHeads }, (_, h) => rows(m, l + h))]),
  };
  const scored = await timedAsync(`importAttention ${L.importLayers} layers of ${L.maxHeads} ${m} x ${m} heads`, () => lab.importAttention(many));
  assert.deepEqual([scored.scores.length, scored.scores[0].length], [L.importLayers, L.maxHeads]);
});
