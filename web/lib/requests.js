// Request checking: what the package's entry points take, checked for type and turned into
// the core's request objects (matrices as { rows, cols, data }). Ranges and sizes are the
// core's to judge; what is checked here is what must survive the trip to C++ unchanged, and
// the documented sizes of the main matrices, before they are converted (checkSize).
// Each entry's fields are the core's (lab.schema(), declared once in cpp/bindings/requests.hpp):
// a request is read through them (own fields only, each read once), each by the reader of its
// kind, so a field it lacks is refused with the closest known name, never ignored.
import { AttnLabError } from './errors.js';
import { fail, ownFields } from './fields.js';
import { boolean, indices, labels, readerOf } from './field-readers.js';
import { describe } from './matrices.js';

// The core's limits (lab.limits()) and request fields (lab.schema()), set when the core has
// loaded, so a message quotes the real range of a field rather than the range of its C++ type.
let limits = null;
let FIELDS = null; // entry → { name: field }, each field with its reader
let CORE = null; // the core's schema
let MODEL = null; // the model module's, once loaded (one module per page, shared by every lab)
let MODEL_READERS; // the readers of the kinds only the model's requests have
export function useCore(limitTable, schema) {
  limits = limitTable;
  CORE = schema;
  FIELDS = { ...fieldsOf(schema), ...(MODEL && fieldsOf(MODEL, MODEL_READERS)) }; // a new lab keeps the model's checks
}

/** The model module's own requests, when it loads, and the readers of its own kinds: checked from then on. */
export function useSchema(schema, readers) {
  [MODEL, MODEL_READERS] = [schema, readers];
  FIELDS = { ...FIELDS, ...fieldsOf(schema, readers) };
}

/** The core's requests, with the model module's when `withModel` (a lab that loaded it). */
export function schemaCopy(withModel) {
  if (!withModel || !MODEL) return structuredClone(CORE);
  return structuredClone({ ...CORE, groups: { ...CORE.groups, ...MODEL.groups }, requests: { ...CORE.requests, ...MODEL.requests } });
}

// ---- Every entry's fields, from the core's schema ----

// The groups the trace's entries take their matrices from, X, Wq, Wk, Wv or Q, K, V (traceParts
// says which are required).
const SOURCES = { projected: ['X', 'Wq', 'Wk', 'Wv'], direct: ['Q', 'K', 'V'] };
const TRACE_ENTRIES = ['trace', 'checkGradient', 'permutationCheck', 'decode'];

function fieldsOf({ groups, requests }, own) {
  const out = {};
  for (const [entry, names] of Object.entries(requests)) {
    const fields = {};
    for (const group of names) for (const field of groups[group]) fields[field.name] = { ...field, group, read: readerOf(field, own, limits) };
    if (TRACE_ENTRIES.includes(entry)) fields.tokens = { name: 'tokens', read: labels };
    out[entry] = fields;
  }
  return out;
}

// The request's fields, each through its reader: { name: value } for those present. A field's
// deprecated older name (aliasOf) is read as the field itself.
function read(entry, request, fields = FIELDS[entry]) {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    fail(`${entry}() takes an object, got ${describe(request)}`);
  }
  const names = Object.keys(fields);
  const given = ownFields(request, names, { owner: `${entry}()` });
  const out = Object.create(null); // `out.causal` must not find a polluted Object.prototype.causal
  for (const name of names) {
    if (given[name] === undefined) continue;
    const { read: reader, aliasOf } = fields[name];
    if (aliasOf && given[aliasOf] !== undefined) fail(`${name} is the older name of ${aliasOf}: give one of them`);
    checkSize(entry, name, given[name]); // before the reader converts it
    try {
      const value = reader(given[name], name);
      if (value !== undefined) out[aliasOf ?? name] = value;
    } catch (error) {
      if (error instanceof AttnLabError) throw error;
      fail(`${name} could not be read (${error.message})`); // a Proxy's trap, a getter inside
    }
  }
  return out;
}

// ---- Sizes before copies ----
// The core refuses a matrix past its entry's limits, but only after the whole of it has been
// converted here and copied into its heap (which never shrinks): a Q of 4,000,000 × 64 for the
// flash kernel took 18 s and left a 1 GiB heap before its refusal. So the matrices whose
// limits an entry documents are measured first, from their lengths alone, and refused in the
// core's words. [most rows, most columns (names in lab.limits()), what the message names];
// the long-sequence kernels also cap each matrix's values (flashValues).
const ATTENTION = ['attentionTokens', 'attentionFeatures', 'attention'];
const FLASH = ['flashTokens', 'flashFeatures', 'the flash kernel'];
const INPUT = ['traceTokens', 'traceFeatures', 'the trace'];
const WEIGHTS = ['traceFeatures', 'traceFeatures', 'the trace'];
const TRACE = { X: INPUT, context: INPUT, Q: INPUT, K: INPUT, V: INPUT, Wq: WEIGHTS, Wk: WEIGHTS, Wv: WEIGHTS, Wo: WEIGHTS };
const BOUNDS = {
  attention: ATTENTION,
  attentionBackward: ATTENTION,
  trace: TRACE,
  checkGradient: TRACE,
  permutationCheck: TRACE,
  flashWalk: ['walkTokens', 'walkFeatures', 'the tile walk'],
};
for (const entry of ['flashAttention', 'naiveAttention', 'checkFlashAttention', 'flashPlan', 'sampledWeights']) BOUNDS[entry] = FLASH;
BOUNDS.linearAttention = ['attentionTokens', 'attentionFeatures', 'linear attention'];
BOUNDS.retention = ['attentionTokens', 'attentionFeatures', 'retention'];
BOUNDS.lowRankAttention = ['attentionTokens', 'attentionFeatures', 'low-rank attention'];
BOUNDS.longLinearAttention = [...FLASH.slice(0, 2), 'long linear attention'];
BOUNDS.longRetention = [...FLASH.slice(0, 2), 'long retention'];

// An own data property, or undefined: a getter is not called (the reader reads each field once).
const dataOf = (object, key) => Object.getOwnPropertyDescriptor(object, key)?.value;

function checkSize(entry, name, value) {
  const table = BOUNDS[entry];
  const bound = Array.isArray(table) ? /^[QKV]$/.test(name) && table : table?.[name];
  if (!bound || value === null || typeof value !== 'object') return;
  // The rows and columns it declares (nested: its length and its first row's); what cannot be
  // read so (a Proxy's trap that throws) is left to its reader.
  let rows, cols;
  try {
    const nested = Array.isArray(value);
    [rows, cols] = [dataOf(value, nested ? 'length' : 'rows'), nested ? dataOf(Object(dataOf(value, 0)), 'length') : dataOf(value, 'cols')];
  } catch {
    return;
  }
  if (typeof rows !== 'number') return;
  cols = typeof cols === 'number' ? cols : 0; // a first row the reader will refuse: the rows alone
  const [most, widest] = [limits[bound[0]], limits[bound[1]]];
  const size = `${name} (${rows}×${cols}) is too large: `;
  if (rows > most || cols > widest) throw new AttnLabError('too-large', `${size}${bound[2]} allows at most ${most} rows and ${widest} columns`);
  if (bound[0] === FLASH[0] && rows * cols > limits.flashValues)
    throw new AttnLabError('too-large', `${size}the long-sequence kernels take at most ${limits.flashValues} values (rows × columns)`);
}

// The fields the core's schema marks required, beyond `skip` (checked first by the caller):
// a missing matrix or name "is missing"; a missing number or list gets its reader's own
// complaint about `undefined`, which says what it must be.
function requireFields(entry, r, skip = []) {
  for (const { name, kind, max, read: reader, required } of Object.values(FIELDS[entry])) {
    if (!required || skip.includes(name) || r[name] !== undefined) continue;
    if (kind === 'matrix' || kind === 'text' || (kind === 'whole' && max === undefined)) {
      const older = Object.values(FIELDS[entry]).find((f) => f.aliasOf === name);
      fail(older ? `${name} is missing; ${older.name} is missing too (its older name)` : `${name} is missing`);
    }
    reader(undefined, name);
  }
  return r;
}

// Core requests have no prototype: the core reads a field by name, and a field a polluted
// Object.prototype holds must not reach it.
const bare = (fields) => Object.assign(Object.create(null), fields);

// The schema's defaults of `entry`'s fields, under the fields given.
const withDefaults = (entry, r) => {
  const out = Object.create(null);
  for (const { name, default: value } of Object.values(FIELDS[entry])) if (value !== undefined) out[name] = value;
  return Object.assign(out, r);
};

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

// An entry whose request is its fields, each checked, the required ones present.
const plain = (entry) => guarded(entry, (request) => requireFields(entry, read(entry, request)));

/** attention(): { Q, K, V, ...options } for the core. */
export const attentionRequest = plain('attention');

/** attentionBackward(): { Q, K, V, dOutput (or its older name dO), ...options } for the core. */
export const attentionBackwardRequest = plain('attentionBackward');

// The core request of the trace's entries from read fields, and the token labels.
function traceParts(entry, r) {
  const [used, other] = r.X !== undefined ? [SOURCES.projected, SOURCES.direct] : [SOURCES.direct, [...SOURCES.projected, 'context']];
  const stray = other.find((name) => r[name] !== undefined);
  if (stray) fail(`${stray}: ${entry}() takes X, Wq, Wk, Wv or Q, K, V, not a mix (got ${used[0]} and ${stray})`);
  for (const name of used) if (r[name] === undefined) fail(`${name} is missing`);
  requireFields(entry, r, [...SOURCES.projected, ...SOURCES.direct]);
  const { tokens, ...fields } = r;
  const coreRequest = bare(fields);
  const tokenCount = r[used[0]].rows;
  if (tokens && tokens.length !== tokenCount) {
    throw new AttnLabError('shape-mismatch', `tokens has ${tokens.length} labels but there are ${tokenCount} tokens`);
  }
  return { coreRequest, tokens };
}

/** trace(): the checked core request and the token labels. */
export const traceCoreRequest = guarded('trace', (request) => traceParts('trace', read('trace', request)));

/** decode(): the trace's request (causal implied), checked the same way. */
// decode() generates token by token, each query seeing the keys before it: a request that asks
// for anything else is refused, not computed causally anyway.
export const decodeRequest = guarded('decode', (request) => {
  const fields = read('decode', request);
  if (fields.causal === false) fail('causal is false, but decode() generates token by token and is causal: leave causal out or set it to true');
  return traceParts('decode', fields);
});

/** kvCacheBytes(): { layers, kvHeads, headDim, bytesPerValue }, each required. */
export const kvCacheRequest = plain('kvCacheBytes');

/** checkGradient(): the trace's core request (with dOutput) and { parameter, row, col }. */
export const checkGradientRequest = guarded('checkGradient', (request, at) => {
  const { coreRequest } = traceParts('checkGradient', read('checkGradient', request));
  if (coreRequest.dOutput === undefined) fail('dOutput is missing: checkGradient() needs ∂L/∂Y, the gradient of the loss at the output');
  if (at === null || typeof at !== 'object' || Array.isArray(at)) fail(`checkGradient()'s second argument takes { parameter, row, col }, got ${describe(at)}`);
  return { coreRequest, at: requireFields('gradientAt', read('checkGradient', at, FIELDS.gradientAt)) };
});

/**
 * permutationCheck():  { ...traceRequest, order }, or the older (traceRequest, order).
 * Returns the core request (order in it) and the token labels.
 */
export const permutationRequest = guarded('permutationCheck', (request, order) => {
  const older = order !== undefined;
  const { order: _, ...traceFields } = FIELDS.permutationCheck;
  const r = read('permutationCheck', request, older ? traceFields : FIELDS.permutationCheck);
  if (older) r.order = indices(order, 'order');
  return traceParts('permutationCheck', r);
});

/** A long-sequence request (flashAttention, naiveAttention, checkFlashAttention, longLinearAttention, longRetention), its defaults filled in. */
export function longRequest(entry, request) {
  return guarded(entry, () => withDefaults(entry, requireFields(entry, read(entry, request))))();
}

/** sampledWeights(): Q, K, the long options, the head and the chosen rows and columns. */
export const sampledWeightsRequest = plain('sampledWeights');

/** flashWalk(): { Q, K, V, causal?, scale?, queryRows?, keyRows? } checked for type. */
export const flashWalkRequest = plain('flashWalk');

// ---- One argument style: request objects, with the older positional forms normalised ----

/** { positions, width } (positions' older name: tokens), or the older (positions, width). */
export const sinusoidalRequest = guarded('sinusoidalEncoding', (request, width) => {
  const older = typeof request === 'number' || width !== undefined;
  return requireFields('sinusoidalEncoding', read('sinusoidalEncoding', older ? { positions: request, width } : request));
});

const isRow = (value) => Array.isArray(value) || ArrayBuffer.isView(value);

/** { scores, temperature? }, or the older (scores, temperature?). */
export const softmaxRequest = guarded('softmaxBreakdown', (request, temperature) => {
  const isRequest = request !== null && typeof request === 'object' && !isRow(request);
  return requireFields('softmaxBreakdown', read('softmaxBreakdown', isRequest ? request : { scores: request, temperature }));
});

/** { headWidth }, or the older (headWidth). */
export const tilePlanRequest = guarded('tilePlan', (request) =>
  requireFields('tilePlan', read('tilePlan', typeof request === 'number' ? { headWidth: request } : request)),
);

/** scalingStudy(): { dims, keys?, samples?, seed? } checked for type. */
export const scalingStudyRequest = plain('scalingStudy');

/** linearAttention(): { Q, K, V, featureMap?, causal?, form?, scale?, features?, seed? } checked for type. */
export const linearAttentionRequest = plain('linearAttention');

/** retention(): { Q, K, V, decay, form? } checked for type. */
export const retentionRequest = plain('retention');

/** lowRankAttention(): { Q, K, V, rank, method?, causal?, scale?, seed?, E?, F? } checked for type. */
export const lowRankRequest = plain('lowRankAttention');

/** sparsePattern(): { queries, keys?, window?, globalTokens?, random?, blockSize?, stride?, seed?, headWidth? } checked for type. */
export const sparsePatternRequest = plain('sparsePattern');

/** normalMatrix(): { rows, cols, seed? } checked for type. */
export const normalMatrixRequest = plain('normalMatrix');

/** trainer(): the fields given, checked for type (the core fills the rest with its defaults). */
export const trainerRequest = guarded('trainer', (request = {}) => read('trainer', request));

/** A trainer's step(count = 1): { count }, checked for type. */
export const stepRequest = guarded('step', (count = 1, ...extra) => {
  if (extra.length) fail(`step() takes one argument, the number of steps; got ${extra.length + 1}`);
  return read('step', { count });
});

/** A model method's request (web/lib/model.js), its fields checked; its ranges on the model are the model's. */
export const modelRequest = (entry, request) => guarded(entry, () => requireFields(entry, read(entry, request)))();

/** createAttnLab's options: { threads } (the package's own: which core to load). */
export const labOptions = guarded('createAttnLab', (options = {}) => ({
  threads: read('createAttnLab', options, { threads: { read: boolean } }).threads ?? false,
}));
