// The WGSL kernel with the score rules (key padding, softcap, a bias shared or per head with
// −Infinity cells, ALiBi) beside grouped K/V heads, the window and bottom-right causal: each
// option and all at once against a float64 reference (tests/support/float64-long.js)
// and against lab.flashAttention, within 1e-5, on Dawn with SwiftShader (as webgpu.test.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { normalQKV } from '../support/normal-qkv.js';
import { referenceError } from '../support/float64-long.js';
import { gpuForFile } from './support/dawn.js';
import { attnlab, importFromConsumer } from './support/package.js';

const { createGpuAttention } = await importFromConsumer('attnlab/webgpu');
const lab = await attnlab.createAttnLab();

const held = gpuForFile(createGpuAttention);

const TOLERANCE = 1e-5;

// Q (nQ, 4 heads·16), K and V (nK, 2 K/V heads·16), drawn by the core from a seed.
function inputs(nQ, nK, seed) {
  const [Q] = normalQKV(lab, { n: nQ, d: 64, seed });
  const [, K, V] = normalQKV(lab, { n: nK, d: 32, seed: seed + 1 });
  return { Q, K, V, heads: 4, kvHeads: 2 };
}

// A bias of `rows` (nQ or 4·nQ) × nK with about one cell in 13 at −Infinity, and the rows
// `blocked` −Infinity whole.
function bias(rows, nK, seed, blocked = []) {
  const data = Float32Array.from({ length: rows * nK }, (_, i) => ((i * 7 + seed) % 13 === 0 ? -Infinity : 0.5 * Math.sin(seed + i * 0.731)));
  for (const r of blocked) data.fill(-Infinity, r * nK, (r + 1) * nK);
  return { rows, cols: nK, data };
}

const padding = (nK) => Array.from({ length: nK }, (_, j) => j % 9 === 4);

// Rows to check against float64: the first and last few, and every 29th.
const sampleRows = (n) => Array.from({ length: n }, (_, i) => i).filter((i) => i < 8 || i + 4 >= n || i % 29 === 0);

/** The GPU's result against lab.flashAttention (every value) and float64 (sampled rows). */
async function check(request, what) {
  const got = await held.gpu.attention(request);
  const cpu = lab.flashAttention(request);
  assert.equal(got.output.data.length, cpu.output.data.length, what);
  let diff = 0;
  for (let i = 0; i < cpu.output.data.length; i++) diff = Math.max(diff, Math.abs(got.output.data[i] - cpu.output.data[i]));
  assert.ok(diff <= TOLERANCE, `${what}: GPU vs flashAttention, max abs diff ${diff}`);
  assert.deepEqual(got.fullyMaskedRows, cpu.fullyMaskedRows, `${what}: fully masked rows`);
  const rows = sampleRows(request.Q.rows);
  const { worst, masked } = referenceError(got, request, rows);
  assert.ok(worst <= TOLERANCE, `${what}: GPU vs float64, max abs error ${worst}`);
  assert.deepEqual(
    got.fullyMaskedRows.filter((i) => rows.includes(i)),
    masked,
    `${what}: fully masked rows against float64`,
  );
  return got;
}

/** Counts the buffers `device` creates while `run` runs: the shader's call makes ten. */
async function buffersCreated(run) {
  let created = 0;
  const { device } = held;
  const createBuffer = device.createBuffer;
  device.createBuffer = function (descriptor) {
    created++;
    return createBuffer.call(this, descriptor);
  };
  try {
    await run();
  } finally {
    delete device.createBuffer;
  }
  return created;
}

test('each score option on the GPU, alone and with the band rules, against float64 and flashAttention', async () => {
  const nQ = 300;
  const nK = 364;
  const base = inputs(nQ, nK, 11);
  const options = {
    keyPadding: { keyPadding: padding(nK) },
    softcap: { softcap: 2 },
    'a bias for every head': { bias: bias(nQ, nK, 3, [5]) },
    'a bias per head': { bias: bias(4 * nQ, nK, 4, [5, nQ + 9]) },
    alibi: { alibi: true },
  };
  for (const [name, option] of Object.entries(options)) {
    for (const band of [{}, { causal: true, causalAlignment: 'bottom-right', window: { left: 40, right: 3 } }]) {
      const request = { ...base, ...option, ...band };
      const created = await buffersCreated(() => check(request, `${name} ${JSON.stringify(band)}`));
      assert.equal(created, 10, `${name}: ran on the GPU (params, Q, K, V, bands, bias, padding, slopes, output, read-back)`);
    }
  }
});

test('a per-head bias that blocks one head of a row gives zeros in that head only', async () => {
  const nQ = 40;
  const request = { ...inputs(nQ, nQ, 21), bias: bias(4 * nQ, nQ, 5, [nQ + 9]) };
  const got = await check(request, 'row 9 blocked in head 1');
  assert.ok(got.output.data.subarray(9 * 64 + 16, 9 * 64 + 32).every((x) => x === 0));
  assert.ok(got.output.data.subarray(9 * 64, 9 * 64 + 16).some((x) => x !== 0));
  assert.ok(!got.fullyMaskedRows.includes(9));
});

// The largest problem the wasm flash kernel compares against: its work limit is 2^24 scores per
// call (limits().flashScores), here 1,984 · 2,048 · 4 heads.
test('every option at once at 1,984 queries over 2,048 keys (kvHeads, window, bottom-right causal)', async () => {
  const nQ = 1984;
  const nK = nQ + 64;
  const request = {
    ...inputs(nQ, nK, 31),
    causal: true,
    causalAlignment: 'bottom-right',
    window: { left: 300, right: 2 },
    keyPadding: padding(nK),
    softcap: 3,
    alibi: true,
    bias: bias(nQ, nK, 6, [5]),
  };
  const got = await check(request, 'every option, 1,984 queries');
  assert.equal(got.fullyMaskedRows[0], 5);
});

test('a batch of sequences runs on the GPU: each sequence with its own keys and the same rules', async () => {
  const nQ = 24;
  const one = inputs(nQ, nQ, 41);
  const two = inputs(nQ, nQ, 51);
  const stack = (a, b) => ({ rows: a.rows + b.rows, cols: a.cols, data: Float32Array.of(...a.data, ...b.data) });
  const rules = { causal: true, keyPadding: padding(nQ), softcap: 2, alibi: true, bias: bias(nQ, nQ, 7) };
  const request = { Q: stack(one.Q, two.Q), K: stack(one.K, two.K), V: stack(one.V, two.V), heads: 4, kvHeads: 2, batch: 2, ...rules };
  let got;
  assert.equal(await buffersCreated(async () => (got = await held.gpu.attention(request))), 10);
  for (const [s, single] of [one, two].entries()) {
    const part = { output: { rows: nQ, cols: 64, data: got.output.data.subarray(s * nQ * 64, (s + 1) * nQ * 64) } };
    const { worst } = referenceError(part, { ...single, ...rules }, sampleRows(nQ));
    assert.ok(worst <= TOLERANCE, `sequence ${s + 1}: max abs error ${worst}`);
  }
});
