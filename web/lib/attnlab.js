// attnlab: scaled dot-product attention computed by the C++ core compiled to WebAssembly.
//
//   import { createAttnLab } from 'attnlab';
//   const lab = await createAttnLab();
//   const { weights, output } = lab.attention({ Q, K, V, causal: true });
//
// This layer turns friendly JavaScript values into the core's matrices and back, and the
// core's error values into AttnLabError. It does no attention math of its own.
//
// Every entry takes one request object. Results are plain values: matrices as number[][]
// (the core's { rows, cols, data } nested by fromCore), lists as number[]; the long-sequence
// kernels and normalMatrix keep their matrices flat ({ rows, cols, data: Float32Array }).
import createAttnLabModule from './attnlab-core.js';
import { AttnLabError } from './errors.js';
import { fromCore } from './matrices.js';
import {
  attentionBackwardRequest,
  attentionRequest,
  flashWalkRequest,
  longRequest,
  normalMatrixRequest,
  permutationRequest,
  sampledWeightsRequest,
  scalingStudyRequest,
  sinusoidalRequest,
  softmaxRequest,
  tilePlanRequest,
  traceRequest,
  useLimits,
} from './requests.js';

export { AttnLabError, ERROR_CODES } from './errors.js';
// The package's reader of request objects, public so that attnlab/webgpu (which imports only
// this entry) reads its options the same way and throws the same AttnLabError class.
export { ownFields } from './fields.js';

/**
 * Step ids in trace order; per-head steps repeat for each head. The core's list
 * (lab.stepIds()), here so it is known before the wasm loads; a test keeps the two equal.
 */
export const STEP_IDS = Object.freeze([
  'encoding',
  'positional',
  'project-q',
  'project-k',
  'project-v',
  'scores',
  'scale',
  'mask',
  'softmax',
  'aggregate',
  'concat',
  'output-projection',
]);

const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';

// The wasm is found next to this file. Browsers and bundlers fetch it through
// import.meta.url; in Node the bytes are read here, because the generated loader only
// knows how to fetch.
async function instantiate() {
  const wasmUrl = new URL('./attnlab-core.wasm', import.meta.url);
  if (!isNode) return createAttnLabModule();
  const fs = 'node:fs/promises'; // a variable, so browser bundlers leave it alone
  const { readFile } = await import(/* @vite-ignore */ fs);
  return createAttnLabModule({ wasmBinary: await readFile(wasmUrl) });
}

let modulePromise;
function loadModule() {
  modulePromise ??= instantiate().then((core) => {
    useLimits(core.limits()); // the checks of requests.js quote the core's ranges
    return core;
  }).catch((error) => {
    modulePromise = undefined; // let a later call try again
    throw error;
  });
  return modulePromise;
}

function unwrap(result) {
  if (result.error) throw new AttnLabError(result.error.code, result.error.message);
  return result;
}

const shapeOf = (matrix) => [matrix.rows, matrix.cols];

// The core's trace as plain values. Steps get their shape; an operand that is another
// step's result (the core sends that step's index) gets that step's very values array, so
// nothing is copied twice; groups hold the same step objects as `steps`.
function traceFromCore({ steps: coreSteps, groups, ...rest }) {
  const steps = coreSteps.map(({ operands, ...step }) => ({ ...fromCore(step), shape: shapeOf(step.values) }));
  steps.forEach((step, i) => {
    step.operands = coreSteps[i].operands.map(({ step: index, values, ...operand }) => {
      const source = index === undefined ? { shape: shapeOf(values), values: fromCore(values) } : steps[index];
      return { ...fromCore(operand), shape: source.shape, values: source.values };
    });
  });
  return {
    steps,
    groups: groups.map((group) => ({ ...group, steps: group.steps.map((i) => steps[i]) })),
    ...fromCore(rest),
  };
}

class AttnLab {
  #core;

  constructor(core) {
    this.#core = core;
  }

  /** The SIMD instruction set the core was compiled for (e.g. "sse4.1" = wasm SIMD128). */
  get simdArch() {
    return this.#core.simdArch();
  }

  /**
   * The core's documented limits, one table (README, "Limits"; the fields are Limits in
   * attnlab.d.ts): { traceTokens, traceScores, attentionTokens, flashScores, … }.
   */
  limits() {
    return this.#core.limits();
  }

  /** The core's step ids, in trace order (what STEP_IDS mirrors). */
  stepIds() {
    return this.#core.stepIds();
  }

  /** The core's error codes (what ERROR_CODES mirrors). */
  errorCodes() {
    return this.#core.errorCodes();
  }

  /**
   * One head of attention with every intermediate: request { Q, K, V, causal?, keyPadding?,
   * mask?, scale?, temperature? }. Returns { scores, scale, temperature, factor, scaled,
   * logits, rowMax, rowSum, exponentials, weights, output, fullyMaskedRows }, matrices as
   * number[][]; `scale` excludes the temperature, `factor` = scale / temperature is applied.
   */
  attention(request) {
    return fromCore(unwrap(this.#core.attention(attentionRequest(request))));
  }

  /**
   * The gradients of attention(): request { Q, K, V, dO, ...options }, where dO = ∂L/∂O is
   * (n_q, d_v). Returns { dQ, dK, dV } = ∂L/∂Q, ∂L/∂K, ∂L/∂V as number[][]; masked cells
   * and fully masked rows pass no gradient.
   */
  attentionBackward(request) {
    return fromCore(unwrap(this.#core.attentionBackward(attentionBackwardRequest(request))));
  }

  /**
   * Multi-head attention step by step: request { X, Wq, Wk, Wv } or { Q, K, V }, with Wo?,
   * heads?, positional?, tokens? and the attention options. Returns { steps, groups, output,
   * fullyMaskedRows, tokens? } (see Trace in attnlab.d.ts).
   */
  trace(request) {
    const { coreRequest, tokens } = traceRequest(request);
    const out = traceFromCore(unwrap(this.#core.trace(coreRequest)));
    if (tokens) out.tokens = tokens;
    return out;
  }

  /**
   * Traces tokens X as given and reordered (new row i = token order[i]), to show that without
   * positions self-attention only reorders its output rows. request: as for trace(), with X,
   * plus order. Returns { original, permuted, predicted, maxDifference, tolerance,
   * reorderedOnly, order, tokens? }. The older form permutationCheck(request, order) works too.
   */
  permutationCheck(request, order) {
    const { coreRequest, tokens, order: tokenOrder } = permutationRequest(request, order);
    // Whether order is a permutation of the tokens (length, range, repeats), and that there
    // are tokens X to reorder, is the core's check.
    const r = unwrap(this.#core.permutationCheck(coreRequest, tokenOrder));
    const out = { ...fromCore(r), order: tokenOrder };
    if (tokens) out.tokens = tokens;
    return out;
  }

  /**
   * The flash kernel (tiled, FlashAttention-style) for long sequences: O(n·d) memory, no
   * weights. request { Q, K, V, causal?, heads?, scale? }. Returns { output, fullyMaskedRows }
   * with the output flat, as { rows, cols, data: Float32Array }.
   */
  flashAttention(request) {
    return this.#longSequence('flashAttention', request);
  }

  /** The same result through the naive kernel, which forms each n×n score matrix. */
  naiveAttention(request) {
    return this.#longSequence('naiveAttention', request);
  }

  /**
   * Checks a long-sequence request as flashAttention would, without computing it (so without
   * the work limits flashScores and flashMultiplyAdds, which bound the wasm kernel's time);
   * returns it with its matrices as { rows, cols, data: Float32Array }. For backends that run
   * the flash pass elsewhere, such as the WebGPU shader. Throws AttnLabError.
   */
  checkFlashAttention(request) {
    const checked = longRequest('checkFlashAttention', request);
    unwrap(this.#core.checkFlashAttention(checked));
    return checked;
  }

  /**
   * Exact weights of one head for chosen query rows and key columns of a long sequence,
   * each row normalised over all its keys: request { Q, K, causal, heads, head, rows, cols }.
   * Returns number[][] (rows.length × cols.length).
   */
  sampledWeights(request) {
    return fromCore(unwrap(this.#core.sampledWeights(sampledWeightsRequest(request))));
  }

  /**
   * The FlashAttention tile walk of a small problem, one tile visit at a time: request
   * { Q, K, V, causal?, scale?, queryRows? (Br, default 2), keyRows? (Bc, default 2) }.
   * Returns { events, output, tileFloats, matrixFloats }; each event { kind: 'tile' |
   * 'finish', queryBlock, keyBlock, firstQuery, firstKey, queries, keys, scores, oldMax,
   * newMax, rescale, sum, acc, output? } (matrices as number[][]).
   */
  flashWalk(request) {
    return fromCore(unwrap(this.#core.flashWalk(flashWalkRequest(request))));
  }

  /**
   * The tile plan shared by the flash kernel and the WGSL shader: request { headWidth }.
   * Returns { queryRows, keyRows, headWidth, cpuKeyRows, workgroupStorageBytes }, or null
   * beyond the supported widths. The older form tilePlan(headWidth) works too.
   */
  tilePlan(request) {
    return this.#core.tilePlan(tilePlanRequest(request)) ?? null;
  }

  #longSequence(kernel, request) {
    const { output, ...rest } = unwrap(this.#core[kernel](longRequest(kernel, request)));
    return { output, ...fromCore(rest) };
  }

  /**
   * The sinusoidal positional encoding: request { tokens, width }, each 1 … 2048 (the core's
   * limit). Returns number[][] (tokens × width). The older form (tokens, width) works too.
   */
  sinusoidalEncoding(request, width) {
    const { tokens, width: columns } = sinusoidalRequest(request, width);
    return fromCore(unwrap(this.#core.sinusoidalEncoding(tokens, columns)));
  }

  /**
   * Softmax of one row, stage by stage (÷ temperature, − max, exp, Σ, ÷ sum), and the same
   * row without subtracting the max, in real float32: its Infinity and NaN are the point.
   * request { scores, temperature = 1 }. Returns { temperature, scaled, max, shifted,
   * exponentials, sum, weights, withoutMax: { exponentials, sum, weights, overflowed,
   * termOverflowed, underflowed } }. The older form (scores, temperature) works too.
   */
  softmaxBreakdown(request, temperature) {
    const r = softmaxRequest(request, temperature);
    return fromCore(unwrap(this.#core.softmaxBreakdown(r.scores, r.temperature)));
  }

  /**
   * Why 1/√d_k: for each d_k in dims, `samples` queries against `keys` keys with N(0, 1)
   * entries (a seeded generator in the core), the spread of q·k and the softmax rows with
   * and without scaling. request { dims, keys = 16, samples = 256, seed = 1 }; returns
   * { keys, samples, maxEntropy, points } (see ScalingStudy in attnlab.d.ts).
   */
  scalingStudy(request) {
    return fromCore(unwrap(this.#core.scalingStudy(scalingStudyRequest(request))));
  }

  /**
   * A rows × cols matrix of N(0, 1) values from the core's seeded generator (splitmix64 +
   * Box–Muller): the same numbers for the same seed, natively and in every browser.
   * request { rows, cols, seed = 1 }; rows·cols at most 16,777,216.
   * Returns it flat, as { rows, cols, data: Float32Array } (row-major).
   */
  normalMatrix(request) {
    return unwrap(this.#core.normalMatrix(normalMatrixRequest(request)));
  }

  /**
   * Bytes malloc holds and the wasm heap's size (for leak checks), and the bytes the core
   * holds through operator new now and at the peak since resetPeakMemory():
   * { allocatedBytes, heapBytes, trackedBytes, peakTrackedBytes }.
   */
  memoryStats() {
    return this.#core.memoryStats();
  }

  /** Starts a new peak for memoryStats().peakTrackedBytes from what is held now. */
  resetPeakMemory() {
    this.#core.resetPeakMemory();
  }
}

/** Loads the wasm core (once per page or process) and returns an API bound to it. */
export async function createAttnLab() {
  return new AttnLab(await loadModule());
}
