// attnlab/webgpu: the tiled forward pass as a WGSL compute shader on the learner's GPU.
//
//   import { createGpuAttention } from 'attnlab/webgpu';
//   const gpu = await createGpuAttention();             // or { device } to bring your own
//   const { output } = await gpu.attention({ Q, K, V, causal: true, heads: 8 });
//   gpu.destroy();
//
// The wasm core checks every request (same errors as lab.flashAttention) and owns the tile
// plan; this module uploads, dispatches and reads back. Pipelines and buffers are kept and
// reused across calls.
import { AttnLabError, createAttnLab } from 'attnlab';

import { flashShader } from './flash-shader.js';

const PARAMS_BYTES = 32; // n_q, n_k, heads, causal (u32) and scale (f32), padded to 16-byte units

/** No WebGPU, no adapter, or no device: an Error that says which. */
export class GpuUnavailableError extends Error {
  constructor(message) {
    super(message);
    this.name = 'GpuUnavailableError';
  }
}

async function requestDevice(precision) {
  const gpu = globalThis.navigator?.gpu;
  if (!gpu) throw new GpuUnavailableError('WebGPU is not available here (navigator.gpu is missing)');
  const adapter = await gpu.requestAdapter();
  if (!adapter) throw new GpuUnavailableError('WebGPU is available, but no GPU adapter could be had');
  const requiredFeatures = precision === 'f16' && adapter.features.has('shader-f16') ? ['shader-f16'] : [];
  return adapter.requestDevice({ requiredFeatures });
}

/**
 * @param {{ device?: GPUDevice, precision?: 'f32' | 'f16' }} [options] precision 'f16' stages
 *   the K and V tiles as f16 where the device has 'shader-f16', and stays f32 elsewhere.
 */
export async function createGpuAttention({ device, precision = 'f32' } = {}) {
  if (precision !== 'f32' && precision !== 'f16') {
    throw new AttnLabError('invalid-argument', `precision must be 'f32' or 'f16', got ${JSON.stringify(precision)}`);
  }
  const lab = await createAttnLab();
  const owned = !device;
  const gpuDevice = device ?? (await requestDevice(precision));
  return new GpuAttention(gpuDevice, lab, { owned, f16: precision === 'f16' && gpuDevice.features.has('shader-f16') });
}

class GpuAttention {
  #device;
  #lab;
  #owned;
  #f16;
  #pipelines = new Map(); // head width → compute pipeline
  #buffers = new Map(); // role → GPUBuffer, grown as needed
  #params;

  constructor(device, lab, { owned, f16 }) {
    this.#device = device;
    this.#lab = lab;
    this.#owned = owned;
    this.#f16 = f16;
    this.#params = device.createBuffer({ size: PARAMS_BYTES, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  }

  /** 'f16' when the K and V tiles are staged as f16, else 'f32'. */
  get precision() {
    return this.#f16 ? 'f16' : 'f32';
  }

  /** The same request and result as lab.flashAttention, computed on the GPU. */
  async attention(request) {
    const { Q, K, V, causal, heads, scale } = this.#lab.checkFlashAttention(request);
    const headWidth = Q.cols / heads;
    if (V.cols !== Q.cols) {
      throw new AttnLabError('invalid-argument', `the WebGPU kernel needs V as wide as Q (V is ${V.rows}x${V.cols}, Q ${Q.rows}x${Q.cols})`);
    }
    const limit = this.#device.limits.maxStorageBufferBindingSize;
    for (const [name, m] of [['Q', Q], ['K', K], ['V', V]]) {
      if (m.data.byteLength > limit) {
        throw new AttnLabError('too-large', `${name} (${m.rows}x${m.cols}) needs ${m.data.byteLength} bytes, above this device's storage binding limit of ${limit}`);
      }
    }
    const plan = this.#lab.tilePlan(headWidth);
    const pipeline = this.#pipeline(plan);
    const outBytes = Q.rows * Q.cols * 4;
    const buffer = (role, bytes, usage) => this.#buffer(role, bytes, usage);
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
    const inputs = [buffer('q', Q.data.byteLength, storage), buffer('k', K.data.byteLength, storage), buffer('v', V.data.byteLength, storage)];
    const out = buffer('out', outBytes, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC);
    const readback = buffer('readback', outBytes, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);

    const queue = this.#device.queue;
    [Q, K, V].forEach((m, i) => queue.writeBuffer(inputs[i], 0, m.data));
    const params = new ArrayBuffer(PARAMS_BYTES);
    new Uint32Array(params, 0, 4).set([Q.rows, K.rows, heads, causal ? 1 : 0]);
    new Float32Array(params, 16, 1)[0] = scale ?? 1 / Math.sqrt(headWidth);
    queue.writeBuffer(this.#params, 0, params);

    const bindGroup = this.#device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [this.#params, ...inputs, out].map((b, binding) => ({ binding, resource: { buffer: b } })),
    });
    const encoder = this.#device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(Math.ceil(Q.rows / plan.queryRows), heads);
    pass.end();
    encoder.copyBufferToBuffer(out, 0, readback, 0, outBytes);
    queue.submit([encoder.finish()]);

    await readback.mapAsync(GPUMapMode.READ, 0, outBytes);
    const data = new Float32Array(readback.getMappedRange(0, outBytes).slice(0));
    readback.unmap();
    // Causal or not, every query sees at least key 0, so no row is ever fully masked.
    return { output: { rows: Q.rows, cols: Q.cols, data }, fullyMaskedRows: [] };
  }

  /** Frees the buffers, and the device when this module requested it. */
  destroy() {
    for (const b of this.#buffers.values()) b.destroy();
    this.#buffers.clear();
    this.#params.destroy();
    this.#pipelines.clear();
    if (this.#owned) this.#device.destroy();
  }

  #pipeline(plan) {
    let pipeline = this.#pipelines.get(plan.headWidth);
    if (!pipeline) {
      const module = this.#device.createShaderModule({ code: flashShader(plan, { f16: this.#f16 }) });
      pipeline = this.#device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
      this.#pipelines.set(plan.headWidth, pipeline);
    }
    return pipeline;
  }

  // The buffer for `role`, reallocated only when a request needs more bytes than it has.
  #buffer(role, bytes, usage) {
    const size = Math.max(16, Math.ceil(bytes / 16) * 16);
    const current = this.#buffers.get(role);
    if (current && current.size >= size) return current;
    current?.destroy();
    const created = this.#device.createBuffer({ size, usage });
    this.#buffers.set(role, created);
    return created;
  }
}
