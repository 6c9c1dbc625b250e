// attnlab/webgpu: the tiled forward pass as a WGSL compute shader on the learner's GPU.
//
//   import { createGpuAttention } from 'attnlab/webgpu';
//   const gpu = await createGpuAttention();             // or { device } to bring your own
//   const { output } = await gpu.attention({ Q, K, V, causal: true, heads: 8 });
//   gpu.destroy();
//
// The wasm core checks every request (same errors as lab.flashAttention) and owns the tile
// plan and every rule (lab.flashPlan); this module uploads, dispatches and reads back.
// Pipelines are kept across calls; each call has buffers of its own, destroyed when it settles,
// so any number of calls can be in flight. Once the device is lost (or destroyed) or destroy()
// is called, every pending and later call rejects with 'device-lost': a lost device's
// read-back is never returned.
import { AttnLabError, createAttnLab, ownFields } from 'attnlab';

import { flashShader } from './flash-shader.js';

// n_q, n_k, heads, kv_group (u32), softcap (f32), offset (i32), bias, padding, alibi (u32),
// padded to 16-byte units (flash-shader.js's Params).
const PARAMS_BYTES = 48;
// The bias modes of the shader: none, one (n_q, n_k) for every head, one per head.
const BIAS_MODE = { none: 0, shared: 1, perHead: 2 };

/**
 * The codes this module adds to the core's ERROR_CODES. 'device-lost': the GPU device was
 * lost or destroyed, or destroy() was called. 'gpu-error': the GPU refused the work (a
 * validation or internal error). Running out of GPU memory is 'too-large'.
 */
export const GPU_ERROR_CODES = Object.freeze(['device-lost', 'gpu-error']);

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
 *   Options are read like the package's requests: an unknown one is refused, never ignored.
 */
export async function createGpuAttention(options = {}) {
  const { device, precision = 'f32' } = ownFields(options, ['device', 'precision'], { owner: 'createGpuAttention()' });
  if (precision !== 'f32' && precision !== 'f16') {
    throw new AttnLabError('invalid-argument', `precision must be 'f32' or 'f16', got ${JSON.stringify(precision)}`);
  }
  if (device !== undefined && typeof device?.createBuffer !== 'function') {
    throw new AttnLabError('invalid-argument', `device must be a GPUDevice, got ${device === null ? 'null' : typeof device}`);
  }
  const lab = await createAttnLab();
  const owned = !device;
  const gpuDevice = device ?? (await requestDevice(precision));
  return new GpuAttention(gpuDevice, lab, { owned, f16: precision === 'f16' && gpuDevice.features.has('shader-f16') });
}

// GPUError subclasses carry no name; a DOMException's name ('AbortError') says more than its class.
const describe = (error) => `${error?.name ?? error?.constructor?.name ?? 'Error'}: ${error?.message || 'no message'}`;

class GpuAttention {
  #device;
  #lab;
  #owned;
  #f16;
  #pipelines = new Map(); // head width → compute pipeline
  #calls = 0; // numbers the calls, so a message says which one failed
  #inFlight = new Set(); // each pending call's buffers, for destroy() to free
  #gone = null; // why no call can run any more: the device's loss or destroy()

  constructor(device, lab, { owned, f16 }) {
    this.#device = device;
    this.#lab = lab;
    this.#owned = owned;
    this.#f16 = f16;
    device.lost.then((info) => {
      this.#gone ??= `the GPU device was lost (${info.reason}${info.message ? `: ${info.message}` : ''}); create another GpuAttention on a new device`;
    });
  }

  /** 'f16' when the K and V tiles are staged as f16, else 'f32'. */
  get precision() {
    return this.#f16 ? 'f16' : 'f32';
  }

  /** The same request and result as lab.flashAttention, computed on the GPU. */
  async attention(request) {
    const call = `attention() call ${++this.#calls}`;
    this.#throwIfGone(call);
    const checked = this.#lab.checkFlashAttention(request);
    const { Q, K, V, heads, bias } = checked;
    const what = `${call} (Q ${Q.rows}×${Q.cols}, K ${K.rows}×${K.cols}, ${heads} head${heads === 1 ? '' : 's'})`;
    if (V.cols !== K.cols) {
      throw new AttnLabError('invalid-argument', `the WebGPU kernel needs V as wide as K (V is ${V.rows}×${V.cols}, K ${K.rows}×${K.cols})`);
    }
    const limit = this.#device.limits.maxStorageBufferBindingSize;
    for (const [name, m] of [
      ['Q', Q],
      ['K', K],
      ['V', V],
      ['bias', bias],
    ]) {
      if (m && m.data.byteLength > limit) {
        throw new AttnLabError(
          'too-large',
          `${name} (${m.rows}×${m.cols}) needs ${m.data.byteLength} bytes, above this device's storage binding limit of ${limit}`,
        );
      }
    }
    // The shader cannot flag a score beyond float32 (WGSL may assume no NaN or Infinity), so
    // inputs whose scores could overflow (the core's own bound, the one its kernel checks by)
    // go to the CPU kernel, which reports it exactly: the one request the shader leaves to it.
    // Every rule (the heads' width and factors, each query's keys, ALiBi's slopes, the rows
    // that see no key) is the core's plan, passed on.
    const rules = this.#lab.flashPlan(checked);
    if (rules.mayOverflow) return this.#lab.flashAttention(checked);
    const plan = this.#lab.tilePlan(rules.headWidth);
    const outBytes = Q.rows * Q.cols * 4;
    const buffers = [];
    this.#inFlight.add(buffers);
    try {
      const { readback, mapping, scopeError } = this.#submit(buffers, plan, { ...checked, rules, outBytes });
      const [scoped, mapped] = await Promise.allSettled([scopeError, mapping]);
      this.#throwIfGone(what); // whatever a lost device mapped is not this call's output
      if (scoped.value) throw refused(what, scoped.value);
      if (mapped.status === 'rejected') throw unreadable(what, mapped.reason);
      const data = new Float32Array(readback.getMappedRange(0, outBytes).slice(0));
      const bad = data.findIndex((v) => !Number.isFinite(v));
      if (bad >= 0) {
        // The weighted sum of V beyond float32 (the scores were checked above), said as the
        // CPU kernels say it (flash.cpp).
        throw new AttnLabError(
          'non-finite',
          `${what}: the WebGPU kernel overflows float32 at row ${Math.floor(bad / Q.cols) + 1}: the scores of Q (${Q.rows}×${Q.cols}) and K (${K.rows}×${K.cols}) or the weighted sum of V (${V.rows}×${V.cols}) are beyond ±3.4e38; use smaller values`,
        );
      }
      return { output: { rows: Q.rows, cols: Q.cols, data }, fullyMaskedRows: rules.fullyMaskedRows };
    } catch (error) {
      if (error instanceof AttnLabError) throw error;
      throw new AttnLabError('gpu-error', `${what} failed on the GPU (${describe(error)})`);
    } finally {
      this.#inFlight.delete(buffers);
      for (const b of buffers) b.destroy();
    }
  }

  /**
   * Frees the pending calls' buffers (those calls reject with 'device-lost'), and the device
   * when this module requested it. Every later call rejects with 'device-lost'.
   */
  destroy() {
    this.#gone ??= 'destroy() was called on this GpuAttention; create another with createGpuAttention()';
    for (const buffers of this.#inFlight) for (const b of buffers) b.destroy();
    this.#pipelines.clear();
    if (this.#owned) this.#device.destroy();
  }

  #throwIfGone(what) {
    if (this.#gone) throw new AttnLabError('device-lost', `${what}: ${this.#gone}`);
  }

  // Creates the call's buffers (into `buffers`), uploads, dispatches, copies the output to a
  // mappable buffer and starts mapping it, all inside error scopes: GPU errors are reported,
  // not thrown, and scopes pushed and popped with no await between them are this call's alone.
  #submit(buffers, plan, { Q, K, V, heads, batch, keyPadding, bias, softcap, rules, outBytes }) {
    const device = this.#device;
    const scopes = ['out-of-memory', 'validation', 'internal'];
    for (const filter of scopes) device.pushErrorScope(filter);
    try {
      const buffer = (bytes, usage) => {
        const created = device.createBuffer({ size: Math.max(16, Math.ceil(bytes / 16) * 16), usage });
        buffers.push(created);
        return created;
      };
      const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
      const params = buffer(PARAMS_BYTES, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
      // The rules' arrays: an option left out is a buffer of zeros the shader never reads.
      const padding = keyPadding ? Uint32Array.from(keyPadding, Number) : new Uint32Array(0);
      // Per head: the factors, then ALiBi's slopes (one buffer: WebGPU's default limit is 8 per stage).
      const headRules = Float32Array.from([...rules.factors, ...rules.slopes]);
      const arrays = [Q.data, K.data, V.data, rules.keyBands, bias ? bias.data : new Float32Array(0), padding, headRules];
      const inputs = arrays.map((data) => buffer(data.byteLength, storage));
      const out = buffer(outBytes, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC);
      const readback = buffer(outBytes, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);

      const pipeline = this.#pipeline(plan);
      arrays.forEach((data, i) => data.byteLength && device.queue.writeBuffer(inputs[i], 0, data));
      const values = new ArrayBuffer(PARAMS_BYTES);
      new Uint32Array(values, 0, 4).set([Q.rows / batch, K.rows / batch, heads, rules.kvGroup]);
      new Float32Array(values, 16, 1)[0] = softcap ?? 0;
      new Int32Array(values, 20, 1)[0] = rules.positionOffset;
      const biasMode = !bias ? BIAS_MODE.none : rules.biasPerHead ? BIAS_MODE.perHead : BIAS_MODE.shared;
      new Uint32Array(values, 24, 3).set([biasMode, keyPadding ? 1 : 0, rules.slopes.length ? 1 : 0]);
      device.queue.writeBuffer(params, 0, values);

      const bindGroup = device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: [params, ...inputs.slice(0, 3), out, ...inputs.slice(3)].map((b, binding) => ({ binding, resource: { buffer: b } })),
      });
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bindGroup);
      pass.dispatchWorkgroups(Math.ceil(Q.rows / batch / plan.queryRows), heads, batch);
      pass.end();
      encoder.copyBufferToBuffer(out, 0, readback, 0, outBytes);
      device.queue.submit([encoder.finish()]);
      const mapping = readback.mapAsync(GPUMapMode.READ, 0, outBytes);
      return { readback, mapping, scopeError: this.#firstError(scopes) };
    } catch (error) {
      this.#firstError(scopes).catch(() => {}); // balance the scopes; the throw says what went wrong
      throw error;
    }
  }

  // Pops the scopes pushed for `filters` (innermost first); resolves to the first error caught.
  async #firstError(filters) {
    const popped = await Promise.allSettled(filters.map(() => this.#device.popErrorScope()));
    return popped.map((p) => p.value).find(Boolean) ?? null;
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
}

// A GPU error caught by the call's scopes: out of memory is 'too-large', the rest 'gpu-error'.
// By class name: GPUOutOfMemoryError is a global only where WebGPU is.
function refused(what, error) {
  if (error.constructor?.name === 'GPUOutOfMemoryError') {
    return new AttnLabError('too-large', `${what}: the GPU ran out of memory (${describe(error)})`);
  }
  return new AttnLabError('gpu-error', `${what}: the GPU refused the work (${describe(error)})`);
}

// mapAsync aborts when the device goes (its lost promise may settle later, as in Chromium).
function unreadable(what, error) {
  if (error?.name === 'AbortError') {
    return new AttnLabError('device-lost', `${what}: the GPU device was lost before the output was read back (${describe(error)})`);
  }
  return new AttnLabError('gpu-error', `${what}: the output could not be read back (${describe(error)})`);
}
