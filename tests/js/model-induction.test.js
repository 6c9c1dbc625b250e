// The shipped model copies in context (issue 38): on the induction probe (period random tokens,
// then the same again) its best head attends from each token of the second copy to the token
// after that token's first occurrence, and the second copy is predicted far better than the
// first; switching that head off costs the copy. Every figure is recomputed here in float64
// from forward()'s attention weights and logits, not read from headScores() or loss().
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { attnlab } from './support/package.js';

const PERIOD = 20;
const SEEDS = [1, 2, 3];

const lab = await attnlab.createAttnLab();
const model = await lab.loadModel();
const { layers, heads } = model.config;

const mean = (values) => values.reduce((s, v) => s + v, 0) / values.length;
const range = (from, to) => Array.from({ length: to - from }, (_, i) => from + i);

// −log softmax(logits[i − 1])[tokens[i]] in float64, for each i in [from, to).
function losses(logits, tokens, from, to) {
  return range(from, to).map((i) => {
    const row = logits[i - 1];
    const max = Math.max(...row);
    const total = row.reduce((s, v) => s + Math.exp(v - max), 0);
    return max + Math.log(total) - row[tokens[i]];
  });
}

// The mean loss of the first copy's tokens 1 … P − 1 and of the second copy's P + 1 … 2P − 1
// (token P, the second copy's first, could follow anything).
function copyLosses(probe, options) {
  const { logits } = model.forward(probe, options);
  return { first: mean(losses(logits, probe, 1, PERIOD)), second: mean(losses(logits, probe, PERIOD + 1, 2 * PERIOD)) };
}

// Each head's induction score: the mean weight from query i of the second copy on key i − P + 1.
function inductionScores(probe) {
  const { blocks } = model.forward(probe);
  return blocks.map((block) => block.attention.map((a) => mean(range(PERIOD, 2 * PERIOD).map((i) => a[i][i - PERIOD + 1]))));
}

function bestHead(scores) {
  let best = { layer: 0, head: 0, score: -1 };
  for (let l = 0; l < layers; l++) for (let h = 0; h < heads; h++) if (scores[l][h] > best.score) best = { layer: l, head: h, score: scores[l][h] };
  return best;
}

const probes = SEEDS.map((seed) => model.inductionProbe(PERIOD, seed));

test('an induction head: the best head averages ≥ 0.5 on the probe for seeds 1, 2, 3, as headScores() says', () => {
  const best = probes.map((probe) => {
    const scores = inductionScores(probe);
    const core = model.headScores(probe, PERIOD);
    scores.forEach((row, l) => row.forEach((s, h) => assert.ok(Math.abs(core[l][h].induction - s) <= 1e-6, `L${l + 1} H${h + 1}`)));
    return bestHead(scores);
  });
  const average = mean(best.map((b) => b.score));
  console.log(`best induction scores ${best.map((b) => `L${b.layer + 1} H${b.head + 1} ${b.score.toFixed(3)}`).join(', ')}; mean ${average.toFixed(3)}`);
  assert.ok(average >= 0.5, `mean best induction score ${average}`);
});

test('in-context copying: the second copy costs at most 30% of the first copy’s loss', () => {
  const copies = probes.map((probe) => copyLosses(probe));
  const first = mean(copies.map((c) => c.first));
  const second = mean(copies.map((c) => c.second));
  console.log(`first copy ${first.toFixed(3)} nats, second copy ${second.toFixed(3)} nats (${((100 * second) / first).toFixed(1)}%)`);
  assert.ok(second <= 0.3 * first, `second copy ${second} against first ${first}`);
});

test('ablating the induction head raises the second copy’s loss by ≥ 1 nat, and loss() agrees with the logits', () => {
  const rises = probes.map((probe) => {
    const { layer, head } = bestHead(inductionScores(probe));
    const ablate = [{ layer, head }];
    const before = copyLosses(probe).second;
    const after = copyLosses(probe, { ablate }).second;
    // loss() returns each next token's loss: the same numbers as the float64 ones from the logits.
    const core = model.loss(probe, { ablate });
    const mine = losses(model.forward(probe, { ablate }).logits, probe, 1, probe.length);
    core.forEach((v, i) => assert.ok(Math.abs(v - mine[i]) <= 1e-4 * Math.max(1, Math.abs(mine[i])), `loss of token ${i + 1}`));
    return after - before;
  });
  console.log(`second-copy loss raised by ${rises.map((r) => r.toFixed(2)).join(', ')} nats`);
  assert.ok(mean(rises) >= 1, `mean rise ${mean(rises)}`);
});
