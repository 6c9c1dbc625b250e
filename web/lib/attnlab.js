// attnlab: scaled dot-product attention computed by the C++ core compiled to WebAssembly.
//
//   import { createAttnLab } from 'attnlab';
//   const lab = await createAttnLab();
//   const { weights, output } = lab.attention({ Q, K, V, causal: true });
//
// This layer turns friendly JavaScript values into the core's matrices and back, and the
// core's error values into AttnLabError. It does no attention math of its own.
import createAttnLabModule from './attnlab-core.js';
import { AttnLabError } from './errors.js';
import { describe, toCoreFlags, toCoreMask, toCoreMatrix, toCoreRow, toNested } from './matrices.js';

export { AttnLabError, ERROR_CODES } from './errors.js';

/** Step ids in trace order; per-head steps repeat for each head. */
export const STEP_IDS = Object.freeze([
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
  modulePromise ??= instantiate().catch((error) => {
    modulePromise = undefined; // let a later call try again
    throw error;
  });
  return modulePromise;
}

function unwrap(result) {
  if (result.error) throw new AttnLabError(result.error.code, result.error.message);
  return result;
}

function fail(message) {
  throw new AttnLabError('invalid-argument', message);
}

function optionalNumber(name, value) {
  if (value === undefined) return undefined;
  if (typeof value !== 'number') fail(`${name} must be a number, got ${describe(value)}`);
  return value; // range checks (finite, > 0) are the core's
}

// The largest values that reach the core unchanged: a 32-bit size_t and a 32-bit int.
const SIZE_MAX = 0xffffffff;
const INT_MAX = 2 ** 31 - 1;

// A whole number from 0 to max, so it survives the trip to the core's type unchanged; the
// range that makes sense (a count's limits, an index's bounds) is the core's to check.
function wholeNumber(name, value, max = SIZE_MAX) {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    fail(`${name} must be a whole number from 0 to ${max}, got ${typeof value === 'number' ? value : describe(value)}`);
  }
  return value;
}

function wholeNumbers(name, list, max = SIZE_MAX) {
  if (!Array.isArray(list)) fail(`${name} must be an array of whole numbers, got ${describe(list)}`);
  return list.map((value, i) => wholeNumber(`${name}[${i}]`, value, max));
}

// The options every entry shares, checked for type; values are the core's to judge.
function causal(request) {
  if (request.causal !== undefined && typeof request.causal !== 'boolean') {
    fail(`causal must be true or false, got ${describe(request.causal)}`);
  }
  return request.causal === true;
}

function coreOptions(request) {
  const options = { causal: causal(request) };
  if (request.keyPadding != null) options.keyPadding = toCoreFlags('keyPadding', request.keyPadding);
  if (request.mask != null) options.mask = toCoreMask('mask', request.mask);
  const scale = optionalNumber('scale', request.scale);
  if (scale !== undefined) options.scale = scale;
  const temperature = optionalNumber('temperature', request.temperature);
  if (temperature !== undefined) options.temperature = temperature;
  return options;
}

function requireObject(name, request) {
  if (request === null || typeof request !== 'object') fail(`${name}() takes an object, got ${describe(request)}`);
}

function inputs(request, names) {
  const out = {};
  for (const name of names) {
    if (request[name] == null) fail(`${name} is missing`);
    out[name] = toCoreMatrix(name, request[name]);
  }
  return out;
}

// The range (1..64, dividing the widths) is checked by the core.
function heads(value) {
  return value === undefined ? 1 : wholeNumber('heads', value, INT_MAX);
}

function positional(value = 'none') {
  if (value !== 'none' && value !== 'sinusoidal') {
    fail(`positional must be 'none' or 'sinusoidal', got ${JSON.stringify(value)}`);
  }
  return value;
}

function tokenLabels(tokens, count) {
  if (tokens === undefined) return undefined;
  if (!Array.isArray(tokens) || tokens.some((t) => typeof t !== 'string')) {
    fail('tokens must be an array of strings');
  }
  if (tokens.length !== count) {
    throw new AttnLabError('shape-mismatch', `tokens has ${tokens.length} labels but there are ${count} tokens`);
  }
  return [...tokens];
}

// The checked core request of trace() and permutationCheck(), and the token labels.
function traceRequest(name, request) {
  requireObject(name, request);
  const projected = request.X != null;
  const source = inputs(request, projected ? ['X', 'Wq', 'Wk', 'Wv'] : ['Q', 'K', 'V']);
  const tokens = tokenLabels(request.tokens, projected ? source.X.rows : source.Q.rows);
  const coreRequest = {
    ...source,
    ...coreOptions(request),
    heads: heads(request.heads),
    positional: positional(request.positional),
  };
  if (request.Wo != null) coreRequest.Wo = toCoreMatrix('Wo', request.Wo);
  return { coreRequest, tokens };
}

// rowMax, rowSum and exponentials of a softmax: attention() and the trace's softmax step.
function softmaxParts(r) {
  return { rowMax: Array.from(r.rowMax), rowSum: Array.from(r.rowSum), exponentials: toNested(r.exponentials) };
}

function convertStep(step) {
  const out = {
    id: step.id,
    title: step.title,
    formula: step.formula,
    shape: [step.values.rows, step.values.cols],
    values: toNested(step.values),
    rowTotals: Array.from(step.rowTotals),
  };
  if (step.head !== undefined) out.head = step.head;
  if (step.rowMax) Object.assign(out, softmaxParts(step));
  return out;
}

function convertScalingPoint(p) {
  return {
    dk: p.dk,
    scoreStd: p.scoreStd,
    sqrtDk: p.sqrtDk,
    maxWeightScaled: p.maxWeightScaled,
    maxWeightUnscaled: p.maxWeightUnscaled,
    entropyScaled: p.entropyScaled,
    entropyUnscaled: p.entropyUnscaled,
    exampleScores: Array.from(p.exampleScores),
    exampleWeightsScaled: Array.from(p.exampleWeightsScaled),
    exampleWeightsUnscaled: Array.from(p.exampleWeightsUnscaled),
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

  attention(request) {
    requireObject('attention', request);
    const r = unwrap(this.#core.attention({ ...inputs(request, ['Q', 'K', 'V']), ...coreOptions(request) }));
    return {
      scores: toNested(r.scores),
      scale: r.scale,
      scaled: toNested(r.scaled),
      logits: toNested(r.logits),
      ...softmaxParts(r),
      weights: toNested(r.weights),
      output: toNested(r.output),
      fullyMaskedRows: r.fullyMaskedRows,
    };
  }

  trace(request) {
    const { coreRequest, tokens } = traceRequest('trace', request);
    const r = unwrap(this.#core.trace(coreRequest));
    const out = { steps: r.steps.map(convertStep), output: toNested(r.output), fullyMaskedRows: r.fullyMaskedRows };
    if (tokens) out.tokens = tokens;
    return out;
  }

  /**
   * Traces tokens X as given and reordered (new row i = token order[i]), to show that without
   * positions self-attention only reorders its output rows. request: as for trace(), with X.
   */
  permutationCheck(request, order) {
    const { coreRequest, tokens } = traceRequest('permutationCheck', request);
    // Entries must reach the core's size_t unchanged; whether they form a permutation of the
    // tokens (length, range, repeats), and that there are tokens X to reorder, is the core's check.
    const r = unwrap(this.#core.permutationCheck(coreRequest, wholeNumbers('order', order)));
    const out = {
      original: toNested(r.original),
      permuted: toNested(r.permuted),
      predicted: toNested(r.predicted),
      maxDifference: r.maxDifference,
      tolerance: r.tolerance,
      reorderedOnly: r.reorderedOnly,
      order: [...order],
    };
    if (tokens) out.tokens = tokens;
    return out;
  }

  /**
   * Tiled (FlashAttention-style) attention for long sequences: O(n·d) memory, no weights.
   * The output comes back flat, as { rows, cols, data: Float32Array }.
   */
  flashAttention(request) {
    return this.#longAttention('flashAttention', request);
  }

  /** The same result through the naive kernel, which forms each n×n score matrix. */
  naiveAttention(request) {
    return this.#longAttention('naiveAttention', request);
  }

  /**
   * Checks a long-sequence request as flashAttention would, without computing it; returns it
   * with its matrices as { rows, cols, data: Float32Array }. For backends that run the tiled
   * pass elsewhere, such as the WebGPU shader. Throws AttnLabError.
   */
  checkFlashAttention(request) {
    const longRequest = this.#longRequest('checkFlashAttention', request);
    unwrap(this.#core.checkFlashAttention(longRequest));
    return longRequest;
  }

  /**
   * Exact weights of one head for chosen query rows and key columns of a long sequence,
   * each row normalised over all its keys: request { Q, K, causal, heads, head, rows, cols }.
   */
  sampledWeights(request) {
    const longRequest = this.#longRequest('sampledWeights', request, ['Q', 'K']); // no V needed
    const head = wholeNumber('head', request.head ?? 0, INT_MAX);
    const rows = wholeNumbers('rows', request.rows);
    const cols = wholeNumbers('cols', request.cols);
    return toNested(unwrap(this.#core.sampledWeights({ ...longRequest, head, rows, cols })));
  }

  /** The tile plan shared by the tiled kernels and the WGSL shader, for head width d. */
  tilePlan(headWidth) {
    return this.#core.tilePlan(wholeNumber('headWidth', headWidth));
  }

  #longAttention(kernel, request) {
    const r = unwrap(this.#core[kernel](this.#longRequest(kernel, request)));
    return { output: r.output, fullyMaskedRows: r.fullyMaskedRows };
  }

  #longRequest(name, request, matrices = ['Q', 'K', 'V']) {
    requireObject(name, request);
    return {
      ...inputs(request, matrices),
      causal: causal(request),
      heads: heads(request.heads),
      scale: optionalNumber('scale', request.scale),
    };
  }

  sinusoidalEncoding(tokens, width) {
    for (const [name, value] of [['tokens', tokens], ['width', width]]) {
      if (!Number.isInteger(value) || value < 1 || value > 4096) fail(`${name} must be a whole number from 1 to 4096`);
    }
    return toNested(this.#core.sinusoidalEncoding(tokens, width));
  }

  /**
   * Softmax of one row, stage by stage (÷ temperature, − max, exp, Σ, ÷ sum), and the same
   * row without subtracting the max, in real float32: its Infinity and NaN are the point.
   */
  softmaxBreakdown(scores, temperature = 1) {
    const row = toCoreRow('scores', scores);
    const r = unwrap(this.#core.softmaxBreakdown(row, optionalNumber('temperature', temperature)));
    return {
      temperature: r.temperature,
      scaled: Array.from(r.scaled),
      max: r.max,
      shifted: Array.from(r.shifted),
      exponentials: Array.from(r.exponentials),
      sum: r.sum,
      weights: Array.from(r.weights),
      naiveExponentials: Array.from(r.naiveExponentials),
      naiveSum: r.naiveSum,
      naiveWeights: Array.from(r.naiveWeights),
      naiveOverflowed: r.naiveOverflowed,
      naiveTermOverflowed: r.naiveTermOverflowed,
      naiveUnderflowed: r.naiveUnderflowed,
    };
  }

  /**
   * Why 1/√d_k: for each d_k in dims, `samples` queries against `keys` keys with N(0, 1)
   * entries (a seeded generator in the core), the spread of q·k and the softmax rows with
   * and without scaling.
   */
  scalingStudy(request) {
    requireObject('scalingStudy', request);
    const { dims, keys = 16, samples = 256, seed = 1 } = request;
    const r = unwrap(
      this.#core.scalingStudy({
        dims: wholeNumbers('dims', dims),
        keys: wholeNumber('keys', keys),
        samples: wholeNumber('samples', samples),
        seed: wholeNumber('seed', seed),
      }),
    );
    return { keys: r.keys, samples: r.samples, maxEntropy: r.maxEntropy, points: r.points.map(convertScalingPoint) };
  }

  /**
   * A rows × cols matrix of N(0, 1) values from the core's seeded generator (splitmix64 +
   * Box–Muller): the same numbers for the same seed, natively and in every browser.
   * request { rows, cols, seed = 1 }; rows·cols at most 16,777,216.
   * Returns it flat, as { rows, cols, data: Float32Array } (row-major).
   */
  normalMatrix(request) {
    requireObject('normalMatrix', request);
    const { rows, cols, seed = 1 } = request;
    const r = unwrap(
      this.#core.normalMatrix({ rows: wholeNumber('rows', rows), cols: wholeNumber('cols', cols), seed: wholeNumber('seed', seed) }),
    );
    return { rows: r.rows, cols: r.cols, data: r.data };
  }

  /**
   * Bytes malloc holds and the wasm heap's size (for leak checks), and the bytes the core
   * holds through operator new now and at the peak since resetPeakMemory().
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
