// attnlab/webgpu in Node, on Dawn (npm 'webgpu') with SwiftShader's Vulkan ICD from the
// chromium package (scripts/test.sh sets VK_ICD_FILENAMES). Without an adapter the tests
// fail saying so; they never skip.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { create, globals } from 'webgpu';

import { compareWithWasm, GPU_CASES, GPU_TOLERANCE } from '../support/webgpu-cases.js';
import { attnlab, importFromConsumer } from './support/package.js';

Object.assign(globalThis, globals);
const { createGpuAttention } = await importFromConsumer('attnlab/webgpu');
const lab = await attnlab.createAttnLab();

// Dawn's instance lives as long as this object: keep it for the whole file.
const dawn = create(['backend=vulkan']);
let device;
let gpu;
before(async () => {
  const adapter = await dawn.requestAdapter();
  if (!adapter) {
    throw new Error(`no WebGPU adapter in Node (Dawn): is VK_ICD_FILENAMES (${process.env.VK_ICD_FILENAMES}) SwiftShader's ICD, and libvulkan1 installed?`);
  }
  device = await adapter.requestDevice();
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

test('buffers and pipelines are reused: a second call gives the same bytes', async () => {
  const Q = { rows: 70, cols: 32, data: Float32Array.from({ length: 70 * 32 }, (_, i) => Math.sin(i)) };
  const first = await gpu.attention({ Q, K: Q, V: Q, causal: true });
  const second = await gpu.attention({ Q, K: Q, V: Q, causal: true });
  assert.deepEqual(second.output.data, first.output.data);
});

test('bad input is rejected with the package\'s error codes, as lab.flashAttention rejects it', async () => {
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
