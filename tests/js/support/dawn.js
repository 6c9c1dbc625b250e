// WebGPU in Node: Dawn (npm 'webgpu') with SwiftShader's Vulkan ICD from the chromium package
// (scripts/test.sh sets VK_ICD_FILENAMES). Without an adapter the tests fail saying so; they
// never skip.
import { after, before } from 'node:test';

import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);

// Dawn's instance lives as long as this object: the importing file keeps it throughout.
export const dawn = create(['backend=vulkan']);

/** A device of Dawn's adapter; throws, saying what to check, where there is no adapter. */
export async function dawnDevice() {
  const adapter = await dawn.requestAdapter();
  if (!adapter) {
    throw new Error(`no WebGPU adapter in Node (Dawn): is VK_ICD_FILENAMES (${process.env.VK_ICD_FILENAMES}) SwiftShader's ICD, and libvulkan1 installed?`);
  }
  return adapter.requestDevice();
}

/**
 * A Dawn device and a GpuAttention on it (from `createGpuAttention`, attnlab/webgpu's) for the
 * tests of one file: made before them, destroyed after; read as `held.device`, `held.gpu`.
 */
export function gpuForFile(createGpuAttention) {
  const held = {};
  before(async () => {
    held.device = await dawnDevice();
    held.gpu = await createGpuAttention({ device: held.device });
  });
  after(() => {
    held.gpu?.destroy();
    held.device?.destroy();
  });
  return held;
}
