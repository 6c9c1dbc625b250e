// Exporting a step: CSV, JSON and LaTeX hold the core's numbers and formula; the NumPy and
// PyTorch code run (Debian's python3-numpy; torch as a NumPy-backed stand-in) and compute the
// same numbers (export-random.test.js does so for every step of ≥ 500 random states); SVG and
// PNG are pictures of the result.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { fromJson } from '../../web/element/steps/export.js';
import { stateToTraceRequest } from '../support/state-request.js';
import { encodeHash, expectedTrace, presetState } from './support/expected.js';
import { settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
// Two heads with W_O, causal, key padding and a temperature: every option in the code.
const state = { ...presetState('two-heads'), causal: true, keyPadding: [false, false, false, true], temperature: 0.5, step: 'softmax' };
const trace = expectedTrace(state);
const softmax = trace.steps.filter((s) => s.id === 'softmax');

async function exported(page, kind) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator(`attn-lab [data-export="${kind}"]`).click()]);
  return { name: download.suggestedFilename(), bytes: await readFile(await download.path()) };
}

// Numbers in the printed text, in order ("-inf" and "nan" included as ±Infinity and NaN),
// leaving out the "head 1:" lines between the heads.
const numbers = (text) =>
  [...text.replace(/^head \d+:$/gm, '').matchAll(/-?inf|nan|-?\d+(\.\d+)?(e[-+]?\d+)?/gi)].map(([t]) =>
    /inf/i.test(t) ? (t.startsWith('-') ? -Infinity : Infinity) : Number(t),
  );

test('CSV, JSON and LaTeX exports hold the step as the core computed it', async (t) => {
  const { page } = await session.open(t, encodeHash(state));
  const csv = await exported(page, 'csv');
  assert.equal(csv.name, 'attnlab-softmax-head1.csv');
  const rows = csv.bytes.toString().trim().split('\n');
  assert.deepEqual(
    rows.slice(1).map((row) => row.split(',').slice(1).map(Number)),
    softmax[0].values,
  );
  const json = JSON.parse((await exported(page, 'json')).bytes);
  assert.deepEqual(
    json.map((s) => [s.id, s.head]),
    [
      ['softmax', 0],
      ['softmax', 1],
    ],
  );
  assert.deepEqual(json[1].values, softmax[1].values);
  const tex = (await exported(page, 'latex')).bytes.toString();
  assert.equal(tex.trim(), softmax.map((s) => s.formula).join('\n'));
});

const STANDIN = new URL('./support/torch-standin', import.meta.url).pathname;

test('the NumPy and PyTorch exports run and print the same weights', async (t) => {
  const { page } = await session.open(t, encodeHash(state));
  const want = softmax.flatMap((s) => s.values.flat());
  const numpy = await exported(page, 'numpy');
  assert.equal(numpy.name, 'attnlab-softmax.py');
  const torch = await exported(page, 'pytorch');
  assert.equal(torch.name, 'attnlab-softmax-pytorch.py');
  // The PyTorch code under the stand-in torch (CI has no torch): its own literals and math.
  for (const [code, env] of [
    [numpy.bytes.toString(), {}],
    [torch.bytes.toString(), { PYTHONPATH: STANDIN, PYTHONDONTWRITEBYTECODE: '1' }],
  ]) {
    const printed = execFileSync('/usr/bin/python3', ['-c', code], { encoding: 'utf8', env: { ...process.env, ...env } });
    const got = numbers(printed);
    assert.equal(got.length, want.length, printed);
    got.forEach((v, i) => assert.ok(Math.abs(v - want[i]) <= 1e-5, `value ${i}: ${v} vs ${want[i]}`));
  }
  // Python's booleans and float32 tensors, not JavaScript's false or int64 from integer inputs.
  assert.doesNotMatch(torch.bytes.toString(), /\bfalse\b|\btrue\b/);
  assert.match(torch.bytes.toString(), /torch\.tensor\(rows, dtype=torch\.float32\)/);
  assert.match(torch.bytes.toString(), /torch\.softmax\(S, dim=1\)/);
});

// The cheaper attentions' steps, computed in the learning module: the element's export of
// FAVOR+'s features carries the core's random rows W, retention's state its γ.
test('the cheaper attentions’ steps export too, and their code computes the core’s numbers', async (t) => {
  const lab = await createAttnLab();
  await lab.loadLearning();
  const cases = [
    [{ family: 'linear', featureMap: 'favor', features: 4, seed: 3, temperature: 1 }, 'feature-q', /W=f32\(/],
    [{ family: 'linear', featureMap: 'relu', temperature: 1 }, 'implied-weights', /causal=True/],
    [{ family: 'retention', decay: 0.8, temperature: 1 }, 'kv-state', /gamma=np\.float32\(0\.8\)/],
  ];
  for (const [family, id, shows] of cases) {
    const familyState = { ...state, keyPadding: [false, false, false, false], ...family, step: id };
    const { page } = await session.open(t, encodeHash(familyState));
    const want = lab
      .trace({ ...stateToTraceRequest(familyState), ...family })
      .steps.filter((s) => s.id === id)
      .flatMap((s) => s.values.flat());
    const code = (await exported(page, 'numpy')).bytes.toString();
    assert.match(code, shows, `${id}: ${code}`);
    const got = numbers(execFileSync('/usr/bin/python3', ['-c', code], { encoding: 'utf8' }));
    assert.equal(got.length, want.length, `${family.family} ${id}`);
    got.forEach((v, i) => assert.ok(Math.abs(v - want[i]) <= 1e-5 * Math.max(1, Math.abs(want[i])), `${id}, value ${i}: ${v} vs ${want[i]}`));
  }
});

test('the JSON export writes −∞ as "-Infinity" and reads it back', async (t) => {
  const { page } = await session.open(t, encodeHash({ ...state, step: 'mask' }));
  const text = (await exported(page, 'json')).bytes.toString();
  assert.match(text, /"-Infinity"/);
  assert.doesNotMatch(text, /null/);
  const masked = trace.steps.filter((s) => s.id === 'mask');
  assert.deepEqual(
    fromJson(text).map((s) => s.values),
    masked.map((s) => s.values),
  );
});

test('SVG and PNG exports picture the result, one file per head', async (t) => {
  const { page } = await session.open(t, encodeHash(state));
  await settle(page);
  const svg = await exported(page, 'svg');
  assert.equal(svg.name, 'attnlab-softmax-head1.svg');
  const text = svg.bytes.toString();
  assert.match(text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.equal((text.match(/<rect x=/g) ?? []).length, 16); // a 4x4 result
  const png = await exported(page, 'png');
  assert.deepEqual([...png.bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10]); // the PNG signature
});
