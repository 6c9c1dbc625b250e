// The model module, attnlab-model: the little language model trained by `npm run train-model`
// (model/README.md), its tokenizer and head scores, a wasm module of its own loaded by
// lab.loadModel(files). The files are model.json and tokenizer.json (parsed) and weights.bin
// (bytes); they are checked here for shape and type, the core checks the rest. Results are
// plain values; delete() frees the core's model, after which every method throws.
// It imports nothing: lab.loadModel() hands it the entry's helpers (attnlab.js).
let AttnLabError, unwrap, describe, fromCore, instantiate;

let loading;
function loadModule() {
  loading ??= import('./attnlab-model.js')
    .then(({ default: createModelModule }) => instantiate(createModelModule, new URL(/* @vite-ignore */ './attnlab-model.wasm', import.meta.url)))
    .catch((error) => {
      loading = undefined; // let a later call try again
      throw error;
    });
  return loading;
}

const invalid = (message) => new AttnLabError('invalid-argument', message);

function wholeNumber(name, value, lo, hi = Number.MAX_SAFE_INTEGER) {
  if (!Number.isInteger(value) || value < lo || value > hi) throw invalid(`${name} must be a whole number from ${lo} to ${hi}, got ${typeof value === 'number' ? value : describe(value)}`);
  return value;
}

function tokenList(name, tokens) {
  if (!Array.isArray(tokens) && !ArrayBuffer.isView(tokens)) throw invalid(`${name} must be an array of token ids, got ${describe(tokens)}`);
  return Array.from(tokens, (token, i) => wholeNumber(`${name}[${i}]`, token, 0, 2 ** 31 - 1));
}

/** { model, tokenizer, weights } as the wasm module takes it: { config, weights: Uint16Array, merges }. */
function loadRequest(files) {
  if (files === null || typeof files !== 'object') throw invalid(`loadModel() takes { model, tokenizer, weights }, got ${describe(files)}`);
  const { model, tokenizer, weights } = files;
  if (model?.format !== 'attnlab-model-1') throw invalid(`model must be model.json as npm run train-model writes it (format "attnlab-model-1"), got ${describe(model?.format)}`);
  const c = model.config ?? {};
  const config = { vocab: wholeNumber('model.config.vocab', c.vocab, 1), context: wholeNumber('model.config.context', c.context, 1), dModel: wholeNumber('model.config.d_model', c.d_model, 1), layers: wholeNumber('model.config.layers', c.layers, 1, 64), heads: wholeNumber('model.config.heads', c.heads, 1, 64) };
  if (!Array.isArray(tokenizer?.merges)) throw invalid(`tokenizer must be tokenizer.json as npm run train-model writes it (with merges), got ${describe(tokenizer)}`);
  const merges = tokenizer.merges.map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2) throw invalid(`tokenizer.merges[${i}] must be a pair of token ids, got ${describe(pair)}`);
    return pair.map((token, j) => wholeNumber(`tokenizer.merges[${i}][${j}]`, token, 0, 2 ** 31 - 1));
  });
  const bytes = weights instanceof ArrayBuffer ? new Uint8Array(weights) : ArrayBuffer.isView(weights) ? new Uint8Array(weights.buffer, weights.byteOffset, weights.byteLength) : null;
  if (!bytes) throw invalid(`weights must be the bytes of weights.bin (an ArrayBuffer or Uint8Array), got ${describe(weights)}`);
  const count = wholeNumber('model.weights.count', model.weights?.count, 1);
  if (bytes.byteLength !== 2 * count) throw new AttnLabError('shape-mismatch', `weights has ${bytes.byteLength} bytes but model.json gives ${count} float16 values (${2 * count} bytes)`);
  const halves = new Uint16Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < count; i++) halves[i] = view.getUint16(2 * i, true); // little-endian, on any host
  return { config, weights: halves, merges };
}

/** Loads the model module once and a model from its files; the model's methods are synchronous. helpers: the entry's. */
export async function loadModel(files, helpers) {
  ({ AttnLabError, unwrap, describe, fromCore, instantiate } = helpers);
  const request = loadRequest(files);
  const core = await loadModule();
  return new Model(unwrap(core.loadModel(request)), request.config);
}

class Model {
  #handle;
  #decoder = new TextDecoder();

  constructor(handle, config) {
    this.#handle = handle;
    this.config = Object.freeze({ ...config });
  }

  #core() {
    if (!this.#handle) throw invalid('this model was deleted; load it again with lab.loadModel()');
    return this.#handle;
  }

  /** The text's token ids and each token's text (a piece of UTF-8 that splits a character shows U+FFFD). */
  tokenize(text) {
    if (typeof text !== 'string') throw invalid(`tokenize() takes a string, got ${describe(text)}`);
    const tokens = fromCore(unwrap(this.#core().tokenize(text)));
    return { tokens, pieces: tokens.map((token) => this.#decoder.decode(unwrap(this.#core().tokenBytes(token)))) };
  }

  /** The forward pass: { logits (n × vocab), blocks: [{ input, norm1, attention: [head] (n × n), attentionOutput, norm2, mlpOutput, output }] }. */
  forward(tokens) {
    return fromCore(unwrap(this.#core().forward(tokenList('tokens', tokens))));
  }

  /** `count` token ids after the prompt, drawn through the KV cache (temperature 0: the likeliest; topK 0: all). */
  generate(prompt, { count, temperature = 1, topK = 0, seed = 1 } = {}) {
    if (typeof temperature !== 'number' || !Number.isFinite(temperature) || temperature < 0) throw invalid(`temperature must be 0 or a finite number above 0, got ${temperature}`);
    const args = [wholeNumber('count', count, 1, this.config.context), temperature, wholeNumber('topK', topK, 0, this.config.vocab), wholeNumber('seed', seed, 0)];
    return fromCore(unwrap(this.#core().generate(tokenList('prompt', prompt), ...args)));
  }

  /** Every layer × head's scores on the tokens: [layer][head] { previousToken, firstToken, duplicateToken?, induction? } (the last two with a period). */
  headScores(tokens, period = 0) {
    return fromCore(unwrap(this.#core().headScores(tokenList('tokens', tokens), wholeNumber('period', period, 0, this.config.context))));
  }

  /** Frees the core's model; a second call does nothing. */
  delete() {
    this.#handle?.delete();
    this.#handle = null;
  }
}
