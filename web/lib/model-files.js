// lab.loadModel(files)'s files read into the model module's request, every size checked before
// anything is converted. The core checks the config and the parameter count (layout.cpp), but
// only once the weights are in its heap: a weights.bin of any length was copied there (as
// float16, then again as float32) before the refusal, and the heap never shrinks. So the files
// are read in two steps: modelFiles() reads their fields (own ones, each once) and checks their
// types, converting nothing; modelWeights(), given the parameter count the core derives from the
// config (before any weight is copied), checks the weights' length and the tokenizer's size,
// and only then converts them.
//
// A getter, a Proxy or a detached buffer becomes an AttnLabError naming the field. The chunk's
// helpers (AttnLabError, describe) come from the entry, as model.js's do.

// The config's numbers reach the core as C++ ints and size_ts: what they hold unchanged. A
// larger one (a context of 2^40) is refused here, quoted as written, never wrapped to 0 on
// the way.
const INT_MAX = 2 ** 31 - 1;

// The config's fields in model.json, and the core's names for them.
const CONFIG_FIELDS = [
  ['vocab', 'vocab'],
  ['context', 'contextLength'],
  ['d_model', 'dModel'],
  ['layers', 'layers'],
  ['heads', 'heads'],
];

/** { config, merges, bytes, where }: the files' fields read and typed, nothing converted. `h`: the entry's helpers. */
export function modelFiles(files, h) {
  const { AttnLabError, describe } = h;
  const invalid = (message) => new AttnLabError('invalid-argument', message);
  // An own field, read once; an inherited one is absent.
  const own = (object, key, where) => {
    if (object === null || typeof object !== 'object') return undefined;
    try {
      return Object.hasOwn(object, key) ? object[key] : undefined;
    } catch (error) {
      throw invalid(`${where} could not be read (${error.message})`);
    }
  };
  const whole = (name, value, lo, hi = INT_MAX) => {
    if (!Number.isInteger(value) || value < lo || value > hi)
      throw invalid(`${name} must be a whole number from ${lo} to ${hi}, got ${typeof value === 'number' ? value : describe(value)}`);
    return value;
  };

  if (files === null || typeof files !== 'object' || Array.isArray(files))
    throw invalid(`loadModel() takes { model, tokenizer, weights }, got ${describe(files)}`);
  const model = own(files, 'model', 'model');
  const tokenizer = own(files, 'tokenizer', 'tokenizer');
  const weights = own(files, 'weights', 'weights');
  const format = own(model, 'format', 'model.format');
  if (format !== 'attnlab-model-1')
    throw invalid(`model must be model.json as npm run train-model writes it (format "attnlab-model-1"), got ${describe(format)}`);
  const given = own(model, 'config', 'model.config') ?? {};
  const config = {};
  for (const [key, name] of CONFIG_FIELDS) config[name] = whole(`model.config.${key}`, own(given, key, `model.config.${key}`), 1);
  const count = whole('model.weights.count', own(own(model, 'weights', 'model.weights'), 'count', 'model.weights.count'), 1, Number.MAX_SAFE_INTEGER);
  const merges = own(tokenizer, 'merges', 'tokenizer.merges');
  if (!Array.isArray(merges)) throw invalid(`tokenizer must be tokenizer.json as npm run train-model writes it (with merges), got ${describe(tokenizer)}`);
  return { config, count, merges, bytes: bytesOf(weights, h) };
}

// The bytes of weights.bin as a Uint8Array over the caller's buffer (nothing copied yet).
function bytesOf(weights, { AttnLabError, describe }) {
  const detached = () =>
    new AttnLabError(
      'invalid-argument',
      'weights could not be read: its ArrayBuffer is detached (transferred to a worker or resized away); pass the bytes of weights.bin',
    );
  try {
    if (weights instanceof ArrayBuffer) {
      if (weights.detached || (weights.byteLength === 0 && isDetached(weights))) throw detached();
      return new Uint8Array(weights);
    }
    if (ArrayBuffer.isView(weights)) {
      if (weights.buffer.detached || (weights.byteLength === 0 && isDetached(weights.buffer))) throw detached();
      return new Uint8Array(weights.buffer, weights.byteOffset, weights.byteLength);
    }
  } catch (error) {
    if (error instanceof AttnLabError) throw error;
    throw new AttnLabError('invalid-argument', `weights could not be read (${error.message})`);
  }
  throw new AttnLabError('invalid-argument', `weights must be the bytes of weights.bin (an ArrayBuffer or Uint8Array), got ${describe(weights)}`);
}

// Where ArrayBuffer.prototype.detached is missing (before Chrome 114, Node 21): a detached
// buffer is the one that cannot be viewed.
function isDetached(buffer) {
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/**
 * { config, weights: Uint16Array (float16), merges } as the model module's loadModel takes it,
 * once `parameters` (the count the core derives from the config) is known: the weights' length
 * and the tokenizer's size are checked before either is converted.
 */
export function modelWeights({ config, count, merges, bytes }, parameters, { AttnLabError, describe }) {
  const mismatch = (message) => new AttnLabError('shape-mismatch', message);
  if (count !== parameters) throw mismatch(`model.weights.count is ${count} but the model's config needs ${parameters} parameters`);
  if (bytes.byteLength !== 2 * count) throw mismatch(`weights has ${bytes.byteLength} bytes but model.json gives ${count} float16 values (${2 * count} bytes)`);
  // A byte-level tokenizer: 256 byte tokens, then one token a merge. More merges than the
  // vocab has room for are refused before any is read (fewer: the core says which is wrong).
  if (256 + merges.length > config.vocab) throw mismatch(`the tokenizer has ${256 + merges.length} tokens but the model's vocab is ${config.vocab}`);
  const pairs = merges.map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2)
      throw new AttnLabError('invalid-argument', `tokenizer.merges[${i}] must be a pair of token ids, got ${describe(pair)}`);
    return pair.map((token, j) => {
      if (!Number.isInteger(token) || token < 0 || token > INT_MAX)
        throw new AttnLabError(
          'invalid-argument',
          `tokenizer.merges[${i}][${j}] must be a whole number from 0 to ${INT_MAX}, got ${typeof token === 'number' ? token : describe(token)}`,
        );
      return token;
    });
  });
  const halves = new Uint16Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < count; i++) halves[i] = view.getUint16(2 * i, true); // little-endian, on any host
  return { config, weights: halves, merges: pairs };
}
