// Request checking: what the package's entry points take, checked for type and turned into
// the core's request objects (matrices as { rows, cols, data }). Ranges and sizes are the
// core's to judge; what is checked here is only what must survive the trip to C++ unchanged.
import { AttnLabError } from './errors.js';
import { describe, toCoreFlags, toCoreMask, toCoreMatrix, toCoreRow } from './matrices.js';

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

export function wholeNumbers(name, list, max = SIZE_MAX) {
  if (!Array.isArray(list)) fail(`${name} must be an array of whole numbers, got ${describe(list)}`);
  return list.map((value, i) => wholeNumber(`${name}[${i}]`, value, max));
}

function requireObject(name, request) {
  if (request === null || typeof request !== 'object') fail(`${name}() takes an object, got ${describe(request)}`);
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

/** attention(): { Q, K, V, ...options } for the core. */
export function attentionRequest(request) {
  requireObject('attention', request);
  return { ...inputs(request, ['Q', 'K', 'V']), ...coreOptions(request) };
}

/** The checked core request of trace() and permutationCheck(), and the token labels. */
export function traceRequest(name, request) {
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

/** A long-sequence request (flashAttention, naiveAttention, checkFlashAttention, sampledWeights). */
export function longRequest(name, request, matrices = ['Q', 'K', 'V']) {
  requireObject(name, request);
  return {
    ...inputs(request, matrices),
    causal: causal(request),
    heads: heads(request.heads),
    scale: optionalNumber('scale', request.scale),
  };
}

/** sampledWeights(): the long request (Q, K only) with the head and the chosen rows and columns. */
export function sampledWeightsRequest(request) {
  return {
    ...longRequest('sampledWeights', request, ['Q', 'K']), // no V needed
    head: wholeNumber('head', request.head ?? 0, INT_MAX),
    rows: wholeNumbers('rows', request.rows),
    cols: wholeNumbers('cols', request.cols),
  };
}

// ---- One argument style: request objects, with the older positional forms normalised ----

const isRow = (value) => Array.isArray(value) || ArrayBuffer.isView(value);

/** { tokens, width }, or the older (tokens, width). */
export function sinusoidalRequest(request, width) {
  const r = typeof request === 'number' || width !== undefined ? { tokens: request, width } : request;
  requireObject('sinusoidalEncoding', r);
  return { tokens: wholeNumber('tokens', r.tokens), width: wholeNumber('width', r.width) };
}

/** { scores, temperature = 1 }, or the older (scores, temperature = 1). */
export function softmaxRequest(request, temperature) {
  const isRequest = request !== null && typeof request === 'object' && !isRow(request);
  const r = isRequest ? request : { scores: request, temperature };
  const t = r.temperature === undefined ? 1 : r.temperature;
  return { scores: toCoreRow('scores', r.scores), temperature: optionalNumber('temperature', t) };
}

/** { ...traceRequest, order }, or the older (traceRequest, order): [trace request, order]. */
export function permutationRequest(request, order) {
  if (order !== undefined || request === null || typeof request !== 'object') return [request, order];
  const { order: own, ...rest } = request;
  return [rest, own];
}

/** { headWidth }, or the older (headWidth). */
export function tilePlanRequest(request) {
  const r = typeof request === 'number' ? { headWidth: request } : request;
  requireObject('tilePlan', r);
  return wholeNumber('headWidth', r.headWidth);
}

/** scalingStudy(): { dims, keys = 16, samples = 256, seed = 1 } checked for type. */
export function scalingStudyRequest(request) {
  requireObject('scalingStudy', request);
  const { dims, keys = 16, samples = 256, seed = 1 } = request;
  return {
    dims: wholeNumbers('dims', dims),
    keys: wholeNumber('keys', keys),
    samples: wholeNumber('samples', samples),
    seed: wholeNumber('seed', seed),
  };
}

/** normalMatrix(): { rows, cols, seed = 1 } checked for type. */
export function normalMatrixRequest(request) {
  requireObject('normalMatrix', request);
  const { rows, cols, seed = 1 } = request;
  return { rows: wholeNumber('rows', rows), cols: wholeNumber('cols', cols), seed: wholeNumber('seed', seed) };
}
