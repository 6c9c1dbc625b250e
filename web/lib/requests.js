// Request checking: what the package's entry points take, checked for type and turned into
// the core's request objects (matrices as { rows, cols, data }). Ranges and sizes are the
// core's to judge; what is checked here is only what must survive the trip to C++ unchanged.
// Each entry's fields are declared once, in REQUESTS, each with its reader: a request is read
// through that table (own fields only, each read once), so a field it lacks is refused with
// the closest known name, never ignored.
import { AttnLabError } from './errors.js';
import { fail, ownFields } from './fields.js';
import { describe, readList, toCoreFlags, toCoreMask, toCoreMatrix, toCoreRow } from './matrices.js';

// The largest values that reach the core unchanged: a 32-bit size_t and a 32-bit int.
const SIZE_MAX = 0xffffffff;
const INT_MAX = 2 ** 31 - 1;

// The core's limits (lab.limits()), set when the core has loaded, so a message quotes the
// real range of a field rather than the range of its C++ type.
let limits = null;
export function useLimits(table) {
  limits = table;
}

// A whole number that survives the trip to the core's type (0 … max) unchanged. `range`,
// given the core's limits, is the field's documented [lo, hi]: the core checks it, and a
// value that could not even make the trip is refused here in the core's words. Without a
// range (an index, a seed), the bounds are the core's to check against the request.
function wholeNumber(name, value, { max = SIZE_MAX, range } = {}) {
  if (Number.isInteger(value) && value >= 0 && value <= max) return value;
  const got = typeof value === 'number' ? String(value) : describe(value);
  const [lo, hi] = (limits && range?.(limits)) ?? [];
  if (hi !== undefined) fail(`${name} must be a whole number from ${lo} to ${hi}, got ${got}`);
  if (Number.isInteger(value) && value > max) fail(`${name} must be at most ${max}, got ${got}`);
  fail(`${name} must be a whole number of at least 0, got ${got}`);
}

// ---- Readers: (value, name) → the value for the core; called for fields that are present ----

// null is "no matrix" (Wo: null, mask: null), as if the field were absent.
const matrix = (value, name) => (value === null ? undefined : toCoreMatrix(name, value));
const mask = (value, name) => (value === null ? undefined : toCoreMask(name, value));
const flags = (value, name) => (value === null ? undefined : toCoreFlags(name, value));
const row = (value, name) => toCoreRow(name, value);
const whole = (value, name) => wholeNumber(name, value);
// A whole number in a documented range (limits.hpp, through lab.limits()).
const within = (range, max = SIZE_MAX) => (value, name) => wholeNumber(name, value, { range, max });
const wholes = (range) => (value, name) => readList(name, value, (cell, where, i) => wholeNumber(`${where}[${i}]`, cell, { range }), 'an array of whole numbers');
const indices = wholes();
// The number of heads: 1 … limits.maxHeads in a trace; in the long-sequence kernels any
// count that divides the widths (the core checks it).
const traceHeads = within((l) => [1, l.maxHeads], INT_MAX);
const kernelHeads = within(undefined, INT_MAX);
const tokenCount = within((l) => [1, l.sinusoidalMax]);
const normalSide = within((l) => [1, l.normalValues]);
const walkTile = within((l) => [1, l.walkTile]);
// KV heads: 0 (as many as the heads) … limits.maxHeads; the core checks that they divide the heads.
const kvHeads = within((l) => [0, l.maxHeads], INT_MAX);
const seed32 = within(undefined, 0xffffffff);
const cacheSize = (key) => within((l) => [1, l[key]]);

// The trainer's tasks: the core's TrainingTask names.
export const TRAINING_TASKS = Object.freeze(['previous-token', 'copy-first', 'reverse', 'induction', 'induction-anywhere']);

function task(value, name) {
  if (!TRAINING_TASKS.includes(value)) {
    fail(`${name} must be one of ${TRAINING_TASKS.map((t) => `'${t}'`).join(', ')}, got ${typeof value === 'string' ? JSON.stringify(value) : describe(value)}`);
  }
  return value;
}

function boolean(value, name) {
  if (typeof value !== 'boolean') fail(`${name} must be true or false, got ${describe(value)}`);
  return value;
}

// The core computes in float32: a number it would see as 0 or as Infinity is refused here, in
// the words of the number as written (the core could only quote its rounding).
const ROUNDS = ", which float32 (the core's number type) rounds to";
function number(value, name) {
  if (typeof value !== 'number') fail(`${name} must be a number, got ${describe(value)}`);
  const single = Math.fround(value);
  if (Number.isFinite(value) && single !== value && (single === 0 || !Number.isFinite(single))) fail(`${name} is ${value}${ROUNDS} ${single}`);
  return value; // range checks (finite, > 0) are the core's
}

// A probability below 1 that float32 rounds up to 1: the core's range, quoting the number as
// written.
function probability(value, name) {
  if (number(value, name) < 1 && Math.fround(value) >= 1) fail(`${name} must be a probability from 0 up to (not including) 1, got ${value}${ROUNDS} 1`);
  return value;
}

function positional(value, name) {
  if (value !== 'none' && value !== 'sinusoidal') {
    fail(`${name} must be 'none' or 'sinusoidal', got ${typeof value === 'string' ? JSON.stringify(value) : describe(value)}`);
  }
  return value;
}

// The queries' places among the keys, for the causal rule and the window (the core's
// CausalAlignment).
export const CAUSAL_ALIGNMENTS = Object.freeze(['top-left', 'bottom-right']);

function causalAlignment(value, name) {
  if (!CAUSAL_ALIGNMENTS.includes(value)) {
    fail(`${name} must be 'top-left' or 'bottom-right', got ${typeof value === 'string' ? JSON.stringify(value) : describe(value)}`);
  }
  return value;
}

// A sliding window: a whole number w (|i − j| < w; 0 = off), or { left?, right? } (keys
// i − left … i + right; a side left out does not limit).
function window(value, name) {
  if (typeof value === 'number') return wholeNumber(name, value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    fail(`${name} must be a whole number or { left, right }, got ${describe(value)}`);
  }
  const sides = ownFields(value, ['left', 'right'], { owner: name, prefix: `${name}.` });
  const out = {};
  for (const side of ['left', 'right']) if (sides[side] !== undefined) out[side] = wholeNumber(`${name}.${side}`, sides[side]);
  return out;
}

function labels(value, name) {
  const text = (cell, where, i) => (typeof cell === 'string' ? cell : fail(`${where}[${i}] is ${describe(cell)}, not a string`));
  return readList(name, value, text, 'an array of strings');
}

// ---- Every entry's fields, declared once ----

const OPTIONS = { causal: boolean, causalAlignment, keyPadding: flags, mask, scale: number, temperature: number, softcap: number, bias: matrix, window, globalTokens: indices, pastKey: matrix, pastValue: matrix };
// The long-sequence kernels' attention options: the causal rule, the window, grouped K/V heads.
const LONG_OPTIONS = { causal: boolean, causalAlignment, window, heads: kernelHeads, kvHeads: kernelHeads, scale: number };
// The flash and naive kernels also take the score rules beyond the band.
const LONG = { Q: matrix, K: matrix, V: matrix, ...LONG_OPTIONS, threads: within(undefined, INT_MAX), keyPadding: flags, softcap: number, bias: matrix, alibi: boolean };
const TRACE = {
  X: matrix, Wq: matrix, Wk: matrix, Wv: matrix, Q: matrix, K: matrix, V: matrix, Wo: matrix, context: matrix,
  heads: traceHeads, positional, tokens: labels, ...OPTIONS,
  rope: boolean, ropeBase: number, alibi: boolean, kvHeads, dropout: probability, dropoutSeed: seed32,
};

// trace() and checkGradient() also take the backward pass's fields.
const BACKWARD_TRACE = { ...TRACE, dOutput: matrix, jacobianRow: whole };

const REQUESTS = {
  attention: { Q: matrix, K: matrix, V: matrix, ...OPTIONS },
  attentionBackward: { Q: matrix, K: matrix, V: matrix, dO: matrix, ...OPTIONS },
  trace: BACKWARD_TRACE,
  checkGradient: BACKWARD_TRACE,
  permutationCheck: { ...TRACE, order: indices },
  decode: TRACE,
  kvCacheBytes: { layers: cacheSize('cacheLayers'), kvHeads: cacheSize('cacheKvHeads'), headDim: cacheSize('cacheHeadDim'), bytesPerValue: cacheSize('cacheValueBytes') },
  flashAttention: LONG,
  naiveAttention: LONG,
  checkFlashAttention: LONG,
  sampledWeights: { Q: matrix, K: matrix, ...LONG_OPTIONS, head: within(undefined, INT_MAX), rows: indices, cols: indices },
  sinusoidalEncoding: { tokens: tokenCount, width: tokenCount },
  flashWalk: { Q: matrix, K: matrix, V: matrix, causal: boolean, scale: number, queryRows: walkTile, keyRows: walkTile },
  softmaxBreakdown: { scores: row, temperature: number },
  tilePlan: { headWidth: within((l) => [1, l.maxHeadWidth]) },
  scalingStudy: {
    dims: wholes((l) => [1, l.scalingMaxDk]),
    keys: within((l) => [l.scalingMinKeys, l.scalingMaxKeys]),
    samples: within((l) => [1, l.scalingMaxSamples]),
    seed: whole,
  },
  normalMatrix: { rows: normalSide, cols: normalSide, seed: whole },
  trainer: {
    task,
    layers: within((l) => [1, l.trainLayers], INT_MAX),
    heads: within((l) => [1, l.trainHeads], INT_MAX),
    dModel: within((l) => [1, l.trainDModel]),
    context: within((l) => [4, l.trainContext]),
    vocab: within((l) => [2, l.trainVocab]),
    batch: within((l) => [1, l.trainBatch]),
    learningRate: number,
    seed: whole,
  },
  step: { count: within((l) => [1, l.trainSteps]) },
  createAttnLab: { threads: boolean },
};

// The request's fields through the readers of `fields`: { name: value } for those present.
function read(entry, request, fields = REQUESTS[entry]) {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    fail(`${entry}() takes an object, got ${describe(request)}`);
  }
  const names = Object.keys(fields);
  const given = ownFields(request, names, { owner: `${entry}()` });
  const out = Object.create(null); // `out.causal` must not find a polluted Object.prototype.causal
  for (const name of names) {
    if (given[name] === undefined) continue;
    try {
      const value = fields[name](given[name], name);
      if (value !== undefined) out[name] = value;
    } catch (error) {
      if (error instanceof AttnLabError) throw error;
      fail(`${name} could not be read (${error.message})`); // a Proxy's trap, a getter inside
    }
  }
  return out;
}

// A required field: its value, or the reader's own complaint about `undefined`.
const need = (r, name, reader) => r[name] ?? reader(undefined, name);

function present(r, names) {
  for (const name of names) if (r[name] === undefined) fail(`${name} is missing`);
}

// Builders throw only AttnLabError: whatever a hostile request throws on the way (a revoked
// Proxy passed where a list belongs) becomes 'invalid-argument'.
function guarded(entry, build) {
  return (...args) => {
    try {
      return build(...args);
    } catch (error) {
      if (error instanceof AttnLabError) throw error;
      return fail(`${entry}(): the request could not be read (${error.message})`);
    }
  };
}

/** attention(): { Q, K, V, ...options } for the core. */
export const attentionRequest = guarded('attention', (request) => {
  const r = read('attention', request);
  present(r, ['Q', 'K', 'V']);
  return { ...r, causal: r.causal ?? false };
});

/** attentionBackward(): { Q, K, V, dO, ...options } for the core. */
export const attentionBackwardRequest = guarded('attentionBackward', (request) => {
  const r = read('attentionBackward', request);
  present(r, ['Q', 'K', 'V', 'dO']);
  return { ...r, causal: r.causal ?? false };
});

const SOURCES = { projected: ['X', 'Wq', 'Wk', 'Wv'], direct: ['Q', 'K', 'V'] };

// The core request of trace() and permutationCheck() from read fields, and the token labels.
function traceParts(entry, r) {
  const [used, other] = r.X !== undefined ? [SOURCES.projected, SOURCES.direct] : [SOURCES.direct, [...SOURCES.projected, 'context']];
  const stray = other.find((name) => r[name] !== undefined);
  if (stray) fail(`${stray}: ${entry}() takes X, Wq, Wk, Wv or Q, K, V, not a mix (got ${used[0]} and ${stray})`);
  present(r, used);
  const { tokens, order, ...core } = r;
  const tokenCount = r[used[0]].rows;
  if (tokens && tokens.length !== tokenCount) {
    throw new AttnLabError('shape-mismatch', `tokens has ${tokens.length} labels but there are ${tokenCount} tokens`);
  }
  const coreRequest = {
    ...core,
    causal: r.causal ?? false,
    heads: r.heads ?? 1,
    positional: r.positional ?? 'none',
    rope: r.rope ?? false,
    alibi: r.alibi ?? false,
    kvHeads: r.kvHeads ?? 0,
    dropout: r.dropout ?? 0,
    dropoutSeed: r.dropoutSeed ?? 0,
  };
  return { coreRequest, tokens };
}

/** trace(): the checked core request and the token labels. */
export const traceRequest = guarded('trace', (request) => traceParts('trace', read('trace', request)));

/** decode(): the trace's request (causal implied), checked the same way. */
export const decodeRequest = guarded('decode', (request) => traceParts('decode', read('decode', request)));

/** kvCacheBytes(): { layers, kvHeads, headDim, bytesPerValue }, each required. */
export const kvCacheRequest = guarded('kvCacheBytes', (request) => {
  const r = read('kvCacheBytes', request);
  const fields = REQUESTS.kvCacheBytes;
  return Object.fromEntries(Object.keys(fields).map((name) => [name, need(r, name, fields[name])]));
});

function text(value, name) {
  if (typeof value !== 'string') fail(`${name} must be a string, got ${describe(value)}`);
  return value; // which names are parameters is the core's to say
}

const GRADIENT_AT = { parameter: text, row: whole, col: whole };

/** checkGradient(): the trace's core request (with dOutput) and { parameter, row, col }. */
export const checkGradientRequest = guarded('checkGradient', (request, at) => {
  const { coreRequest } = traceParts('checkGradient', read('checkGradient', request));
  if (coreRequest.dOutput === undefined) fail('dOutput is missing: checkGradient() needs ∂L/∂Y, the gradient of the loss at the output');
  if (at === null || typeof at !== 'object' || Array.isArray(at)) fail(`checkGradient()'s second argument takes { parameter, row, col }, got ${describe(at)}`);
  const r = read('checkGradient', at, GRADIENT_AT);
  present(r, Object.keys(GRADIENT_AT));
  return { coreRequest, ...r };
});

/**
 * permutationCheck():  { ...traceRequest, order }, or the older (traceRequest, order).
 * Returns { coreRequest, tokens, order }.
 */
export const permutationRequest = guarded('permutationCheck', (request, order) => {
  const older = order !== undefined;
  const r = read('permutationCheck', request, older ? TRACE : REQUESTS.permutationCheck);
  return { ...traceParts('permutationCheck', r), order: older ? indices(order, 'order') : need(r, 'order', indices) };
});

/** A long-sequence request (flashAttention, naiveAttention, checkFlashAttention). */
export function longRequest(entry, request) {
  return guarded(entry, () => {
    const r = read(entry, request);
    present(r, ['Q', 'K', 'V']);
    return { ...r, causal: r.causal ?? false, heads: r.heads ?? 1 };
  })();
}

/** sampledWeights(): Q, K, the long options, the head and the chosen rows and columns. */
export const sampledWeightsRequest = guarded('sampledWeights', (request) => {
  const r = read('sampledWeights', request);
  present(r, ['Q', 'K']); // no V needed
  return { ...r, causal: r.causal ?? false, heads: r.heads ?? 1, head: r.head ?? 0, rows: need(r, 'rows', indices), cols: need(r, 'cols', indices) };
});

/** flashWalk(): { Q, K, V, causal = false, scale?, queryRows = 2, keyRows = 2 } checked for type. */
export const flashWalkRequest = guarded('flashWalk', (request) => {
  const r = read('flashWalk', request);
  present(r, ['Q', 'K', 'V']);
  return { ...r, causal: r.causal ?? false, queryRows: r.queryRows ?? 2, keyRows: r.keyRows ?? 2 };
});

// ---- One argument style: request objects, with the older positional forms normalised ----

/** { tokens, width }, or the older (tokens, width). */
export const sinusoidalRequest = guarded('sinusoidalEncoding', (request, width) => {
  const older = typeof request === 'number' || width !== undefined;
  const r = read('sinusoidalEncoding', older ? { tokens: request, width } : request);
  return { tokens: need(r, 'tokens', tokenCount), width: need(r, 'width', tokenCount) };
});

const isRow = (value) => Array.isArray(value) || ArrayBuffer.isView(value);

/** { scores, temperature = 1 }, or the older (scores, temperature = 1). */
export const softmaxRequest = guarded('softmaxBreakdown', (request, temperature) => {
  const isRequest = request !== null && typeof request === 'object' && !isRow(request);
  const r = read('softmaxBreakdown', isRequest ? request : { scores: request, temperature });
  return { scores: need(r, 'scores', row), temperature: r.temperature ?? 1 };
});

/** { headWidth }, or the older (headWidth). */
export const tilePlanRequest = guarded('tilePlan', (request) => {
  const r = read('tilePlan', typeof request === 'number' ? { headWidth: request } : request);
  return need(r, 'headWidth', REQUESTS.tilePlan.headWidth);
});

/** scalingStudy(): { dims, keys = 16, samples = 256, seed = 1 } checked for type. */
export const scalingStudyRequest = guarded('scalingStudy', (request) => {
  const r = read('scalingStudy', request);
  return { dims: need(r, 'dims', REQUESTS.scalingStudy.dims), keys: r.keys ?? 16, samples: r.samples ?? 256, seed: r.seed ?? 1 };
});

/** normalMatrix(): { rows, cols, seed = 1 } checked for type. */
export const normalMatrixRequest = guarded('normalMatrix', (request) => {
  const r = read('normalMatrix', request);
  return { rows: need(r, 'rows', normalSide), cols: need(r, 'cols', normalSide), seed: r.seed ?? 1 };
});

/** trainer(): the fields given, checked for type (the core fills the rest with its defaults). */
export const trainerRequest = guarded('trainer', (request = {}) => ({ ...read('trainer', request) }));

/** A trainer's step(count = 1): the count, checked for type. */
export const stepRequest = guarded('step', (count = 1, ...extra) => {
  if (extra.length) fail(`step() takes one argument, the number of steps; got ${extra.length + 1}`);
  return read('step', { count }).count;
});

/** createAttnLab's options: { threads }. */
export const labOptions = guarded('createAttnLab', (options = {}) => ({ threads: read('createAttnLab', options).threads ?? false }));
