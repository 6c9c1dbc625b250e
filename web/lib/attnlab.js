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
import { AttnLabError, unwrap } from './errors.js';
import { ownFields } from './fields.js';
import { booleanRows, describe, fromCore, readList, toCoreMatrix } from './matrices.js';
import {
  attentionBackwardRequest,
  checkGradientRequest,
  attentionRequest,
  decodeRequest,
  flashWalkRequest,
  kvCacheRequest,
  labOptions,
  longRequest,
  modelRequest,
  schemaCopy,
  useSchema,
  normalMatrixRequest,
  linearAttentionRequest,
  retentionRequest,
  sparsePatternRequest,
  lowRankRequest,
  permutationRequest,
  sampledWeightsRequest,
  scalingStudyRequest,
  sinusoidalRequest,
  softmaxRequest,
  tilePlanRequest,
  traceCoreRequest,
  useCore,
} from './requests.js';
import { createTrainer, learning, learningAllocatedBytes, loadLearning } from './learning.js';
import { instantiate, isNode, onDemand } from './wasm-module.js';

export { AttnLabError, ERROR_CODES } from './errors.js';
export { LoadError } from './wasm-module.js';
// The package's reader of request objects, public so that attnlab/webgpu (which imports only
// this entry) reads its options the same way and throws the same AttnLabError class.
export { ownFields } from './fields.js';

// The core's step ids in trace order (lab.stepIds()) and the mask's rule bits (lab.schema()),
// generated from the core at build time (scripts/typings.mjs), known before the wasm loads.
export { MASK_RULES, STEP_IDS } from './core-lists.js';

// One promise per core: the single-threaded one, and the one with pthreads (a file of its own
// that only createAttnLab({ threads: true }) downloads).
const modules = {
  core: onDemand("attnlab's core (attnlab-core.wasm)", () =>
    instantiate(createAttnLabModule, new URL(/* @vite-ignore */ './attnlab-core.wasm', import.meta.url)),
  ),
  threads: onDemand("attnlab's threaded core (attnlab-core-threads.js and .wasm)", () => loadThreaded()),
};
async function loadModule(threaded) {
  const core = await modules[threaded ? 'threads' : 'core']();
  useCore(core.limits(), JSON.parse(core.schema())); // the checks of requests.js: the core's fields and ranges
  return core;
}

// The threaded core, loaded on demand: the name is a variable so that bundlers leave the file
// out of the entry. Its loader fetches its wasm and starts its worker threads itself.
const THREADED = './attnlab-core-threads.js';
async function loadThreaded() {
  const url = new URL(THREADED, import.meta.url);
  const { default: create } = await import(/* @vite-ignore */ url.href);
  if (!isNode) return create();
  // Emscripten 3.1.6 writes Node code for CommonJS: the loader reads require and __dirname,
  // which it gets as settings (cpp/bindings/node-host.pre.js), never as globals; its workers'
  // script must run as CommonJS (a .cjs copy of it ships beside it).
  const [{ createRequire }, { fileURLToPath }] = await Promise.all(['node:module', 'node:url'].map((name) => import(/* @vite-ignore */ name)));
  const worker = fileURLToPath(new URL('./attnlab-core-threads.worker.cjs', url));
  const core = await instantiate(create, new URL('./attnlab-core-threads.wasm', url), {
    nodeRequire: createRequire(url),
    nodeDirname: fileURLToPath(new URL('.', url)),
    locateFile: (path, directory) => (path.endsWith('.worker.js') ? worker : directory + path),
  });
  for (const thread of core.PThread.unusedWorkers) thread.unref(); // idle workers keep no process alive
  return core;
}

// Threads need memory shared with workers: in a browser only on a cross-origin-isolated page
// (COOP and COEP headers); Node always has it.
const sharedMemory = () => typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated !== false;

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

// Each method's request and result, field by field, are in attnlab.d.ts.
class AttnLab {
  #core;
  #withModel = false; // this lab has loaded the model module

  constructor(core) {
    this.#core = core;
  }

  /** The most threads one long-sequence call uses: 1 unless createAttnLab({ threads: true }) got the threaded core. */
  get threads() {
    return this.#core.maxThreads();
  }

  /** The SIMD instruction set the core was compiled for (e.g. "sse4.1" = wasm SIMD128). */
  get simdArch() {
    return this.#core.simdArch();
  }

  /** The core's documented limits, one table (README, "Limits"; Limits in attnlab.d.ts). */
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

  /** Every entry's request fields as the core declares them (the model's once this lab's loadModel() or importAttention() has loaded its module), and the mask's blockedBy bits (Schema in attnlab.d.ts). */
  schema() {
    return schemaCopy(this.#withModel);
  }

  /** One head of attention with every intermediate. */
  attention(request) {
    return fromCore(unwrap(this.#core.attention(attentionRequest(request))));
  }

  /** The gradients of attention(). */
  attentionBackward(request) {
    return fromCore(unwrap(this.#core.attentionBackward(attentionBackwardRequest(request))));
  }

  /** Multi-head attention step by step. */
  trace(request) {
    const { coreRequest, tokens } = traceCoreRequest(request);
    // The backward steps, and linear attention's and retention's steps (family), are in the learning module.
    const family = (coreRequest.family ?? 'softmax') !== 'softmax';
    const forward = coreRequest.dOutput === undefined && !family;
    const out = traceFromCore(unwrap(forward ? this.#core.trace(coreRequest) : learning(family ? 'family' : 'dOutput').traceWithBackward(coreRequest)));
    if (tokens) out.tokens = tokens;
    return out;
  }

  /** Causal self-attention token by token with a KV cache, as in generation. */
  decode(request) {
    const { coreRequest, tokens } = decodeRequest(request);
    const out = fromCore(unwrap(this.#core.decode(coreRequest)));
    if (tokens) out.tokens = tokens;
    return out;
  }

  /** Bytes of KV cache per token: K and V of every layer. */
  kvCacheBytes(request) {
    return unwrap(this.#core.kvCacheBytes(kvCacheRequest(request))); // a number, or { error }
  }

  /** One gradient entry of the trace against central finite differences in float64. */
  checkGradient(request, at) {
    const { coreRequest, at: entry } = checkGradientRequest(request, at);
    return unwrap(learning('checkGradient()').checkGradient(coreRequest, entry));
  }

  /** Traces X as given and with its tokens reordered: without positions the outputs only move. */
  permutationCheck(request, order) {
    const { coreRequest, tokens } = permutationRequest(request, order);
    // Whether order is a permutation of the tokens (length, range, repeats), and that there
    // are tokens X to reorder, is the core's check.
    const r = unwrap(this.#core.permutationCheck(coreRequest));
    const out = { ...fromCore(r), order: coreRequest.order };
    if (tokens) out.tokens = tokens;
    return out;
  }

  /** The flash kernel (tiled, FlashAttention-style) for long sequences: O(n·d) memory, no weights. */
  flashAttention(request) {
    return this.#longSequence('flashAttention', request);
  }

  /** The same result through the naive kernel, which forms each n×n score matrix. */
  naiveAttention(request) {
    return this.#longSequence('naiveAttention', request);
  }

  /** Linear attention ('elu', 'relu') as a long kernel: O(n·d·d_v), causal by chunks; the output flat. */
  longLinearAttention(request) {
    return this.#longSequence('longLinearAttention', request);
  }

  /** Retention (decay γ) as a long kernel: causal by chunks, the decayed state carried across; the output flat. */
  longRetention(request) {
    return this.#longSequence('longRetention', request);
  }

  /** How the flash kernel runs the request's heads: head widths, scale, and whether a score could pass float32 (its own bound). */
  flashPlan(request) {
    return unwrap(this.#core.flashPlan(longRequest('flashPlan', request)));
  }

  /** Checks a long-sequence request as flashAttention would, without computing it. */
  checkFlashAttention(request) {
    const checked = longRequest('checkFlashAttention', request);
    unwrap(this.#core.checkFlashAttention(checked));
    return checked;
  }

  /** Exact weights of one head for chosen rows and columns of a long sequence. */
  sampledWeights(request) {
    return this.sampledCells(request).weights;
  }

  /** The same weights, which of their cells the causal rule and the window hide, and how many keys each sampled row sees. */
  sampledCells(request) {
    return fromCore(unwrap(this.#core.sampledWeights(sampledWeightsRequest(request))));
  }

  /** The FlashAttention tile walk of a small problem, one tile visit at a time. */
  flashWalk(request) {
    return fromCore(unwrap(this.#core.flashWalk(flashWalkRequest(request))));
  }

  /** The tile plan shared by the flash kernel and the WGSL shader. */
  tilePlan(request) {
    return this.#core.tilePlan(tilePlanRequest(request)) ?? null;
  }

  #longSequence(kernel, request) {
    const { output, ...rest } = unwrap(this.#core[kernel](longRequest(kernel, request)));
    return { output, ...fromCore(rest) };
  }

  /** The sinusoidal positional encoding. */
  sinusoidalEncoding(request, width) {
    return fromCore(unwrap(this.#core.sinusoidalEncoding(sinusoidalRequest(request, width))));
  }

  /** Softmax of one row, stage by stage, and the same row without subtracting the max. */
  softmaxBreakdown(request, temperature) {
    return fromCore(unwrap(this.#core.softmaxBreakdown(softmaxRequest(request, temperature))));
  }

  /** Why 1/√d_k: the spread of q·k and the softmax's sharpness for each d_k in dims. */
  scalingStudy(request) {
    return fromCore(unwrap(this.#core.scalingStudy(scalingStudyRequest(request))));
  }

  /** Linear attention: φ(q)ᵀφ(k) in place of exp(q·k), parallel or recurrent, with its implied weights. */
  linearAttention(request) {
    return fromCore(unwrap(this.#core.linearAttention(linearAttentionRequest(request))));
  }

  /** Retention (RetNet): (Q·Kᵀ ⊙ D)·V with D_ij = decay^(i−j), parallel or recurrent. */
  retention(request) {
    return fromCore(unwrap(this.#core.retention(retentionRequest(request))));
  }

  /** Low-rank attention: A's best rank-k approximation from its SVD, or Linformer's projections, beside exact attention. */
  lowRankAttention(request) {
    return fromCore(unwrap(this.#core.lowRankAttention(lowRankRequest(request))));
  }

  /** A sparse attention pattern (BigBird's window, global and random keys; the Sparse Transformer's stride) as attention()'s mask, with its counts. */
  sparsePattern(request) {
    const { mask, ...rest } = unwrap(this.#core.sparsePattern(sparsePatternRequest(request)));
    return { mask: booleanRows(mask), ...fromCore(rest) };
  }

  /** A rows × cols matrix of N(0, 1) values from the core's seeded generator. */
  normalMatrix(request) {
    return unwrap(this.#core.normalMatrix(normalMatrixRequest(request)));
  }

  /** Loads the learning module (the backward steps, checkGradient, the trainer) once. */
  async loadLearning() {
    await loadLearning();
  }

  /** A tiny attention-only transformer trained step by step (the learning module, loaded on the first call); delete() frees it. */
  trainer(config) {
    return createTrainer(config);
  }

  /** The little language model from its files { model, tokenizer, weights }, or without them the package's own model/ (the model module and files, loaded on the first call); delete() frees it. */
  async loadModel(files) {
    // The wrapper is imported on demand, as its wasm module is, and given the entry's helpers
    // (the same AttnLabError class), so the core's download neither grows nor splits.
    const { loadModel } = await import('./model.js');
    return loadModel(files, this.#modelHelpers());
  }

  /** A real model's attention in the Hugging Face layout, checked by the core (the model module, loaded on the first call): { tokens, attention, scores }. */
  async importAttention(json) {
    const { importAttention } = await import('./model.js');
    return importAttention(json, this.#modelHelpers());
  }

  // What the model module's chunk uses of the entry (it imports none of it itself);
  // modelLoaded: this lab has loaded the model module, so its schema() lists the model's requests.
  #modelHelpers() {
    const modelLoaded = () => (this.#withModel = true);
    return {
      AttnLabError,
      unwrap,
      describe,
      fromCore,
      instantiate,
      isNode,
      onDemand,
      ownFields,
      readList,
      toCoreMatrix,
      modelRequest,
      useSchema,
      modelLoaded,
      limits: this.#core.limits(),
    };
  }

  /** Bytes malloc holds, the wasm heap's size, the bytes the core holds, and the learning module's (for leak checks). */
  memoryStats() {
    return { ...this.#core.memoryStats(), learningAllocatedBytes: learningAllocatedBytes() };
  }

  /** Starts a new peak for memoryStats().peakTrackedBytes from what is held now. */
  resetPeakMemory() {
    this.#core.resetPeakMemory();
  }
}

/**
 * Loads the wasm core (once per page or process) and returns an API bound to it. With
 * { threads: true }, the core with pthreads where memory can be shared (Node, or a
 * cross-origin-isolated page), the single-threaded core elsewhere; lab.threads says which.
 */
export async function createAttnLab(options) {
  const { threads } = labOptions(options);
  return new AttnLab(await loadModule(threads && sharedMemory()));
}
