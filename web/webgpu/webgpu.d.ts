// Types of attnlab/webgpu (dist/webgpu.js): the tiled forward pass as a WGSL compute shader.
import type { GpuErrorCode, LongAttentionRequest, LongAttentionResult } from './attnlab.js';

export type { GpuErrorCode };
/** The codes this module adds to ERROR_CODES: 'device-lost' and 'gpu-error'. */
export declare const GPU_ERROR_CODES: readonly GpuErrorCode[];

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
  /**
   * The same request and result as lab.flashAttention, every option included (the rules from
   * lab.flashPlan); V must be as wide as K. A request whose scores could overflow float32
   * (flashPlan().mayOverflow) runs on the CPU kernel. Calls may overlap: each has its own buffers. Rejects with AttnLabError: the core's codes for a bad
   * request, 'device-lost' once the device is lost or destroyed or destroy() was called,
   * 'gpu-error' when the GPU refuses the work, 'too-large' when it runs out of memory.
   */
  attention(request: LongAttentionRequest): Promise<LongAttentionResult>;
  /**
   * Frees the pending calls' buffers (those calls reject with 'device-lost') and the
   * pipelines, and the device when it was requested here; later calls reject with 'device-lost'.
   */
  destroy(): void;
}

/**
 * Rejects with GpuUnavailableError where WebGPU, an adapter or a device is missing, and with
 * AttnLabError ('invalid-argument') for an option it does not take (naming the closest one).
 */
export declare function createGpuAttention(options?: GpuAttentionOptions): Promise<GpuAttention>;
