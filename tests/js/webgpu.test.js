// attnlab/webgpu in Node, on Dawn (npm 'webgpu') with SwiftShader's Vulkan ICD (support/dawn.js).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { compareConcurrently, compareWithWasm, GPU_CASES, GPU_TOLERANCE } from '../support/webgpu-cases.js';
import { dawn, dawnDevice } from './support/dawn.js';
import { attnlab, importFromConsumer } from './support/package.js';

const { createGpuAttention, GPU_ERROR_CODES } = await importFromConsumer('attnlab/webgpu');
const lab = await attnlab.createAttnLab();

let device;
let gpu;
before(async () => {
  device = await dawnDevice();
  gpu = await createGpuAttention({ device });
});
after(() => {
  gpu?.destroy();
  device?.destroy();
});

test('the WGSL kernel matches the wasm flash kernel within 1e-4 (Node, Dawn)', async () => {
  for (const { name, diff } of await compareWithWasm(lab, gpu, GPU_CASES)) {
    assert.ok(diff <= GPU_TOLERANCE, `${name}: max abs diff ${diff}`);
  }
});

test('the pipeline is reused: a second call gives the same bytes', async () => {
  const Q = { rows: 70, cols: 32, data: Float32Array.from({ length: 70 * 32 }, (_, i) => Math.sin(i)) };
  const first = await gpu.attention({ Q, K: Q, V: Q, causal: true });
  const second = await gpu.attention({ Q, K: Q, V: Q, causal: true });
  assert.deepEqual(second.output.data, first.output.data);
});

for (const count of [10, 32]) {
  test(`${count} calls in flight at once each match the wasm flash kernel within 1e-4`, async () => {
    const results = await compareConcurrently(lab, gpu, count);
    assert.equal(results.length, count);
    for (const { name, diff } of results) assert.ok(diff <= GPU_TOLERANCE, `${name}: max abs diff ${diff}`);
  });
}

const small = (seed, rows = 4, cols = 8) => ({ rows, cols, data: Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(seed + i)) });

/** `gpu` computes attention(Q, Q, Q) as the wasm flash kernel does, within GPU_TOLERANCE. */
async function assertRunsRight(gpu, Q) {
  const { output } = await gpu.attention({ Q, K: Q, V: Q });
  const expected = lab.flashAttention({ Q, K: Q, V: Q }).output.data;
  assert.equal(output.data.length, expected.length);
  assert.ok(output.data.every((x, i) => Math.abs(x - expected[i]) <= GPU_TOLERANCE));
}

/** Counts the buffers `device` creates and still holds, by wrapping createBuffer; t.after undoes it. */
function countBuffers(t, device, { breakReadback = () => false } = {}) {
  const counts = { created: 0, live: 0, peak: 0 };
  const createBuffer = device.createBuffer;
  device.createBuffer = function (descriptor) {
    // A mappable buffer may not also be storage: a validation error, on purpose.
    const broken = descriptor.usage & GPUBufferUsage.MAP_READ && breakReadback();
    const buffer = createBuffer.call(this, broken ? { ...descriptor, usage: descriptor.usage | GPUBufferUsage.STORAGE } : descriptor);
    const destroy = buffer.destroy;
    let destroyed = false;
    buffer.destroy = function () {
      if (!destroyed) counts.live--;
      destroyed = true;
      return destroy.call(this);
    };
    counts.created++;
    counts.peak = Math.max(counts.peak, ++counts.live);
    return buffer;
  };
  t.after(() => delete device.createBuffer);
  return counts;
}

test('a GPU validation error rejects with gpu-error, naming the call and its sizes; the next call works', async (t) => {
  let breakNext = true;
  countBuffers(t, device, { breakReadback: () => breakNext });
  const Q = small(1);
  const error = await gpu.attention({ Q, K: Q, V: Q }).catch((e) => e);
  assert.ok(error instanceof attnlab.AttnLabError, String(error));
  assert.equal(error.code, 'gpu-error');
  assert.match(error.message, /^attention\(\) call \d+ \(Q 4×8, K 4×8, 1 head\): the GPU refused the work \(GPUValidationError: .*MapRead/s);
  breakNext = false;
  await assertRunsRight(gpu, Q);
});

test('every buffer a call creates is destroyed: 100 calls, ten at a time, some refused by the GPU', async (t) => {
  let calls = 0;
  const counts = countBuffers(t, device, { breakReadback: () => ++calls % 7 === 0 });
  const codes = [];
  for (let batch = 0; batch < 10; batch++) {
    const settled = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => {
        const Q = small(batch * 10 + i, 5 + i, 8);
        return gpu.attention({ Q, K: Q, V: Q, causal: i % 2 === 0 });
      }),
    );
    codes.push(...settled.map((s) => (s.status === 'fulfilled' ? 'ok' : s.reason.code)));
    assert.equal(counts.live, 0, `after batch ${batch + 1}, ${counts.live} buffers are still held`);
  }
  assert.equal(codes.filter((c) => c === 'ok').length, 86);
  assert.equal(codes.filter((c) => c === 'gpu-error').length, 14);
  // params, Q, K, V, the key bands, bias, padding and slopes, output, read-back
  assert.equal(counts.created, 100 * 10);
  assert.equal(counts.peak, 10 * 10); // ten calls' buffers at once, then none
});

/** A second device on its own adapter, so that losing it leaves the file's device alone. */
async function freshDevice() {
  return (await dawn.requestAdapter()).requestDevice();
}

function assertAllLost(settled, pattern) {
  for (const s of settled) {
    assert.equal(s.status, 'rejected', 'a call resolved on a lost device');
    assert.ok(s.reason instanceof attnlab.AttnLabError, String(s.reason));
    assert.equal(s.reason.code, 'device-lost');
    assert.match(s.reason.message, pattern);
  }
}

test("after the caller's device.destroy(), pending and later calls reject with device-lost", async () => {
  const lost = await freshDevice();
  const doomed = await createGpuAttention({ device: lost });
  const pending = Array.from({ length: 10 }, (_, i) => doomed.attention({ Q: small(i, 300, 32), K: small(i + 1, 300, 32), V: small(i + 2, 300, 32) }));
  lost.destroy();
  assertAllLost(await Promise.allSettled(pending), /^attention\(\) call \d+ \(Q 300×32, K 300×32, 1 head\): the GPU device was lost .+/);
  assert.equal((await lost.lost).reason, 'destroyed');
  assertAllLost(
    await Promise.allSettled([doomed.attention({ Q: small(0), K: small(1), V: small(2) })]),
    /^attention\(\) call 11: the GPU device was lost \(destroyed/,
  );
});

test("destroy() rejects pending and later calls; it destroys a device it requested, never the caller's", async (t) => {
  // A module-owned device: navigator.gpu is Dawn, and the device it hands out is kept here.
  let owned;
  const saved = globalThis.navigator;
  const requestAdapter = async () => {
    const adapter = await dawn.requestAdapter();
    return { features: adapter.features, requestDevice: async (d) => (owned = await adapter.requestDevice(d)) };
  };
  Object.defineProperty(globalThis, 'navigator', { value: { gpu: { requestAdapter } }, configurable: true });
  t.after(() => Object.defineProperty(globalThis, 'navigator', { value: saved, configurable: true }));

  for (const mine of [true, false]) {
    const target = mine ? await createGpuAttention() : await createGpuAttention({ device });
    const pending = Array.from({ length: 5 }, (_, i) => target.attention({ Q: small(i, 200, 32), K: small(i, 200, 32), V: small(i, 200, 32) }));
    target.destroy();
    const later = target.attention({ Q: small(0), K: small(0), V: small(0) });
    assertAllLost(await Promise.allSettled([...pending, later]), /: destroy\(\) was called on this GpuAttention/);
  }
  assert.equal((await owned.lost).reason, 'destroyed');
  await assertRunsRight(gpu, small(3)); // the caller's device still works
});

test("inputs whose scores overflow float32 get the core's non-finite error, as lab.flashAttention gives it: never NaN, Infinity or zeros", async () => {
  // Scores of ±2e40 (beyond float32): positive for one key, or negative for every key (a row
  // with no weight left, which must not come back as zeros).
  const huge = (sign) => ({ rows: 2, cols: 4, data: Float32Array.from({ length: 8 }, () => sign * 1e20) });
  const cases = { 'scores +2e40': { Q: huge(1), K: huge(1), V: huge(1e-20) }, 'every score -2e40': { Q: huge(1), K: huge(-1), V: huge(1e-20) } };
  for (const [name, request] of Object.entries(cases)) {
    assert.throws(() => lab.flashAttention(request), { code: 'non-finite' }, `${name}: the wasm kernel refuses it`);
    await assert.rejects(gpu.attention(request), (error) => {
      assert.equal(error.code, 'non-finite', `${name}: ${error.message}`);
      assert.match(error.message, /overflows float32 at row 1: the scores of Q \(2×4\)/);
      return true;
    });
  }
});

test('a batch of sequences (the batch request field) gives what lab.flashAttention gives: each attends only to its own keys', async () => {
  const matrix = (rows, cols, seed) => ({ rows, cols, data: Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(seed + i * 0.37)) });
  const [Q, K, V] = [1, 2, 3].map((seed) => matrix(12, 8, seed));
  for (const causal of [false, true]) {
    const request = { Q, K, V, causal, heads: 2, batch: 3 };
    const { output } = await gpu.attention(request);
    const expected = lab.flashAttention(request).output.data;
    assert.ok(
      output.data.every((x, i) => Math.abs(x - expected[i]) <= 1e-5),
      `causal ${causal}`,
    );
    const { output: unbatched } = await gpu.attention({ ...request, batch: 1 });
    assert.notDeepEqual(unbatched.data, output.data, 'one sequence of 12 differs, so the comparison can fail');
  }
});

test('createGpuAttention refuses an option it does not take, naming the closest one', async () => {
  await assert.rejects(createGpuAttention({ device, precison: 'f16' }), {
    name: 'AttnLabError',
    code: 'invalid-argument',
    message: 'precison: did you mean precision? (createGpuAttention() has no field "precison")',
  });
  await assert.rejects(createGpuAttention({ devise: device }), { code: 'invalid-argument', message: /^devise: did you mean device\?/ });
  await assert.rejects(createGpuAttention({ device: {} }), { code: 'invalid-argument', message: 'device must be a GPUDevice, got object' });
  assert.deepEqual([...GPU_ERROR_CODES], ['device-lost', 'gpu-error']);
  assert.ok(GPU_ERROR_CODES.every((code) => !attnlab.ERROR_CODES.includes(code)));
});

test("bad input is rejected with the package's error codes, as lab.flashAttention rejects it", async () => {
  const Q = { rows: 4, cols: 8, data: new Float32Array(32) };
  await assert.rejects(gpu.attention({ Q, K: Q, V: Q, casual: true }), { code: 'invalid-argument', message: /^casual: did you mean causal\?/ });
  const lying = new Float32Array(40);
  Object.defineProperty(lying, 'length', { value: 32 });
  await assert.rejects(gpu.attention({ Q, K: { ...Q, data: lying }, V: Q }), { code: 'invalid-argument', message: /^K\.data\.length says 32/ });
  await assert.rejects(gpu.attention({ Q, K: { rows: 4, cols: 6, data: new Float32Array(24) }, V: Q }), { code: 'shape-mismatch' });
  await assert.rejects(gpu.attention({ Q, K: Q, V: Q, heads: 3 }), { code: 'invalid-argument' });
  await assert.rejects(gpu.attention({ Q: { ...Q, data: new Float32Array(32).fill(NaN) }, K: Q, V: Q }), { code: 'non-finite' });
});

test('without WebGPU, createGpuAttention rejects with a clear error', async () => {
  const saved = globalThis.navigator;
  Object.defineProperty(globalThis, 'navigator', { value: {}, configurable: true });
  try {
    await assert.rejects(createGpuAttention(), { name: 'GpuUnavailableError', message: /WebGPU is not available/ });
  } finally {
    Object.defineProperty(globalThis, 'navigator', { value: saved, configurable: true });
  }
});

test('key padding, softcap, a bias and ALiBi run on the GPU as on the CPU kernel (webgpu-rules.test.js checks them against float64)', async (t) => {
  const counts = countBuffers(t, device);
  const [Q, K, V] = [small(1, 6, 8), small(2, 9, 8), small(3, 9, 8)];
  const bias = { rows: 6, cols: 9, data: Float32Array.from({ length: 54 }, (_, i) => (i % 7 === 3 ? -Infinity : Math.cos(i))) };
  for (const options of [
    { keyPadding: [false, true, false, false, false, false, false, false, true] },
    { softcap: 0.5 },
    { bias },
    { alibi: true, heads: 2 },
  ]) {
    const request = { Q, K, V, causal: true, ...options };
    const before = counts.created;
    const { output } = await gpu.attention(request);
    const expected = lab.flashAttention(request).output.data;
    assert.ok(
      output.data.every((x, i) => Math.abs(x - expected[i]) <= 1e-5),
      Object.keys(options).join(),
    );
    assert.equal(counts.created - before, 10, `${Object.keys(options).join()}: the shader's buffers`);
  }
});
