// Types of attnlab/webgpu (dist/webgpu.js): the tiled forward pass as a WGSL compute shader.
import type { LongAttentionRequest, LongAttentionResult } from './attnlab.js';

/** WebGPU is missing, or no adapter or device could be had. */
export declare class GpuUnavailableError extends Error {
  readonly name: 'GpuUnavailableError';
}

export interface GpuAttentionOptions {
  /** A device to use; without one, an adapter and a device are requested. */
  device?: GPUDevice;
  /** 'f16' stages the K and V tiles as f16 where the device has 'shader-f16'. */
  precision?: 'f32' | 'f16';
}

export interface GpuAttention {
  readonly precision: 'f32' | 'f16';
  /** The same request and result as lab.flashAttention; V must be as wide as Q. */
  attention(request: LongAttentionRequest): Promise<LongAttentionResult>;
  /** Frees buffers and pipelines, and the device when it was requested here. */
  destroy(): void;
}

/** Rejects with GpuUnavailableError where WebGPU, an adapter or a device is missing. */
export declare function createGpuAttention(options?: GpuAttentionOptions): Promise<GpuAttention>;
