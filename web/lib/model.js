// The model module, attnlab-model: the little language model trained by `npm run train-model`
// (model/README.md), its tokenizer and head scores, a wasm module of its own loaded by
// lab.loadModel(files). The files are model.json and tokenizer.json (parsed) and weights.bin
// (bytes); they are checked here for shape and type, the core checks the rest. The methods'
// requests are the core's (lab.schema(), declared in cpp/bindings/model_requests.hpp): their
// fields are checked by the entry's modelRequest, their ranges on this model here. Without files,
// the package's own model/ (beside dist/) is read, on the first such call only. Results are
// plain values; delete() frees the core's model, after which every method throws.
// It imports only its chunk's older-names.js: lab.loadModel() and lab.importAttention() hand
// it the entry's helpers (attnlab.js).
import { importRequest } from './attention-import.js';
import { modelFiles, modelWeights } from './model-files.js';
import { withOlderName } from './older-names.js';

let AttnLabError, unwrap, describe, fromCore, instantiate, isNode, onDemand, ownFields, readList, toCoreMatrix, modelRequest, useSchema, limits;

// The package's model: each file named with a literal new URL(…, import.meta.url), so that a
// bundler copies it as it copies the wasm files.
const PACKAGED = [
  new URL(/* @vite-ignore */ '../model/model.json', import.meta.url),
  new URL(/* @vite-ignore */ '../model/tokenizer.json', import.meta.url),
  new URL(/* @vite-ignore */ '../model/weights.bin', import.meta.url),
];

// Node reads the files; a browser fetches them.
async function readPackaged(url) {
  if (isNode) {
    const fs = 'node:fs/promises'; // a variable, so browser bundlers leave it alone
    const { readFile } = await import(/* @vite-ignore */ fs);
    return new Uint8Array(await readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname.split('/').pop()}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// The package's files and the model module, each loaded once by the entry's onDemand (a
// LoadError naming the part after its tries); the loaders are made on the first call, when
// the entry has handed over onDemand.
let packaged, moduleLoader;
function packagedFiles() {
  packaged ??= onDemand("attnlab's model (model/model.json, tokenizer.json and weights.bin)", async () => {
    const [model, tokenizer, weights] = await Promise.all(PACKAGED.map(readPackaged));
    const json = (bytes) => JSON.parse(new TextDecoder().decode(bytes));
    return { model: json(model), tokenizer: json(tokenizer), weights };
  });
  return packaged();
}

// loaded: the calling lab's, told that it has the module (its schema() then lists the model's requests).
async function loadModule(loaded) {
  moduleLoader ??= onDemand("attnlab's model module (attnlab-model.js and attnlab-model.wasm)", () =>
    import('./attnlab-model.js')
      .then(({ default: createModelModule }) => instantiate(createModelModule, new URL(/* @vite-ignore */ './attnlab-model.wasm', import.meta.url)))
      .then((module) => {
        const schema = JSON.parse(module.schema());
        useSchema(schema, { layers, heads }); // its requests, declared in model_requests.hpp, checked from now on
        FAMILY_OPTIONS = familyOptions(schema);
        return module;
      }),
  );
  const module = await moduleLoader();
  loaded();
  return module;
}

const invalid = (message) => new AttnLabError('invalid-argument', message);

// forward()'s and loss()'s ablations, in the order of the core's ablation_names (model.hpp).
const ABLATIONS = ['zero', 'mean'];

// forward()'s and loss()'s replace: each family and the options it takes, from the model's
// schema (its replace<Family> entries, model_requests.hpp); softmax, the head as trained, none.
let FAMILY_OPTIONS;
function familyOptions({ requests, groups }) {
  const out = { softmax: [] };
  for (const [entry, names] of Object.entries(requests)) {
    const family = /^replace(\w)(\w*)$/.exec(entry);
    if (family) out[family[1].toLowerCase() + family[2]] = names.flatMap((group) => groups[group].map((field) => field.name));
  }
  return out;
}
const familyEntry = (family) => `replace${family[0].toUpperCase()}${family.slice(1)}`;

// The readers of an imported attention's matrices (the Hugging Face layout), kinds of the
// model's requests alone: one layer's heads, each [query][key], read as the one layer of the
// core's [layer][head]; or every layer's, [layer][batch][head] with a batch of one sequence.
const headsOf = (list, name) => readList(name, list, (matrix, at, h) => toCoreMatrix(`${at}[${h}]`, matrix), 'an array of heads, each [query][key]');
const heads = (value, name) => [headsOf(value, name)];
function layers(value, name) {
  return readList(
    name,
    value,
    (batch, where, l) => {
      const sequences = readList(`${where}[${l}]`, batch, (sequence) => sequence, `an array: the batch of layer ${l + 1}`);
      if (sequences.length !== 1)
        throw new AttnLabError('shape-mismatch', `${where}[${l}] holds a batch of ${sequences.length} sequences: export one sequence (batch size 1)`);
      return headsOf(sequences[0], `${where}[${l}][0]`);
    },
    'an array of layers, each [batch][head][query][key]',
  );
}

function wholeNumber(name, value, lo, hi = Number.MAX_SAFE_INTEGER) {
  if (!Number.isInteger(value) || value < lo || value > hi)
    throw invalid(`${name} must be a whole number from ${lo} to ${hi}, got ${typeof value === 'number' ? value : describe(value)}`);
  return value;
}

// A method's options object (absent: none) for its request: own fields only, each read once,
// every one a field of the method's options (`names`, the request's fields less the argument
// given first, which the options may not give again: generate(ids, { prompt }) is refused).
function optionsOf(method, options, names, first) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw invalid(`${method}()'s options must be an object, got ${describe(options)}`);
  let repeated;
  try {
    repeated = Object.hasOwn(options, first);
  } catch (error) {
    throw invalid(`${method}()'s options could not be read (${error.message})`);
  }
  if (repeated) throw invalid(`${method}()'s options have no field "${first}": ${first} is its first argument`);
  return ownFields(options, names, { owner: `${method}()'s options` });
}

// Text as the browser's TextEncoder reads it: a lone surrogate (half of a UTF-16 pair, without
// its other half) is U+FFFD. Embind's UTF-8 conversion pairs a high surrogate with whatever
// code unit follows, so '\uD800A' reached the tokenizer as U+10041 and the "A" was lost.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const wellFormed = (text) => (typeof text.toWellFormed === 'function' ? text.toWellFormed() : text.replace(LONE_SURROGATE, '\uFFFD'));

/**
 * Loads the model module once and a model from its files (the package's when undefined); the
 * model's methods are synchronous. The files' fields are read first, the module then gives the
 * parameter count their config needs, and only then are the weights converted (model-files.js).
 * helpers: the entry's.
 */
export async function loadModel(files, helpers) {
  ({ AttnLabError, unwrap, describe, fromCore, instantiate, isNode, onDemand, ownFields, readList, toCoreMatrix, modelRequest, useSchema, limits } = helpers);
  const given = files === undefined ? await packagedFiles() : files;
  const read = guarded('loadModel', () => modelFiles(given, helpers));
  const core = await loadModule(helpers.modelLoaded);
  // The core's words for the config, the field named as model.json spells it.
  const counted = core.parameterCount(read.config);
  if (counted.error) throw new AttnLabError(counted.error.code, `model.config.${counted.error.message.replace(/^model\.config\./, '')}`);
  const parameters = counted;
  const request = guarded('loadModel', () => modelWeights(read, parameters, helpers));
  return new Model(unwrap(core.loadModel(request)), request.config);
}

/**
 * A real model's attention in the Hugging Face `output_attentions` layout, { tokens, attentions:
 * [layer][batch][head][query][key] } (a batch of one sequence) or { tokens, attention:
 * [head][query][key] }, its fields declared in model_requests.hpp. Every size is checked before
 * a cell is converted (attention-import.js); the core checks the rest (weights in 0 … 1, rows
 * summing to 1) and scores every head: { tokens, attention: [layer][head] (n × n), scores:
 * [layer][head] }.
 */
export async function importAttention(json, helpers) {
  ({ AttnLabError, unwrap, describe, fromCore, instantiate, isNode, onDemand, ownFields, readList, toCoreMatrix, modelRequest, useSchema, limits } = helpers);
  const { tokens, layers } = guarded('importAttention', () => importRequest(json, helpers));
  const core = await loadModule(helpers.modelLoaded);
  const scores = fromCore(unwrap(core.checkAttention(Object.assign(Object.create(null), { tokens, attentions: layers }))));
  return { tokens, attention: layers.map((layer) => layer.map((matrix) => fromCore(matrix))), scores };
}

// Whatever a hostile argument throws on the way (a getter, a Proxy's trap, a detached buffer)
// as an AttnLabError naming the call, never a raw TypeError.
function guarded(method, read) {
  try {
    return read();
  } catch (error) {
    if (error instanceof AttnLabError) throw error;
    throw invalid(`${method}(): the argument could not be read (${error.message})`);
  }
}

class Model {
  #handle;
  #decoder = new TextDecoder();

  constructor(handle, config) {
    this.#handle = handle;
    this.config = Object.freeze(withOlderName({ ...config }, 'context', 'contextLength'));
  }

  #core() {
    if (!this.#handle) throw invalid('this model was deleted; load it again with lab.loadModel()');
    return this.#handle;
  }

  /** The text's token ids and each token's text (a piece of UTF-8 that splits a character shows U+FFFD). */
  tokenize(text) {
    if (typeof text !== 'string') throw invalid(`tokenize() takes a string, got ${describe(text)}`);
    // A UTF-16 code unit is at least a byte of UTF-8: a text longer than the limit is refused
    // before it is copied into the module's heap.
    if (text.length > limits.tokenizeBytes)
      throw new AttnLabError(
        'too-large',
        `the text has ${text.length} characters, so at least as many bytes of UTF-8: tokenize() takes at most ${limits.tokenizeBytes}`,
      );
    const tokenIds = fromCore(unwrap(this.#core().tokenize(wellFormed(text))));
    return withOlderName({ tokenIds, pieces: this.pieces(tokenIds) }, 'tokens', 'tokenIds');
  }

  /** Each token id's text, as tokenize() gives it (generated tokens, say). */
  pieces(tokenIds) {
    // One call into the core per token: bounded as tokenize() is (a token has at least a byte).
    if (tokenIds?.length > limits.tokenizeBytes)
      throw new AttnLabError('too-large', `pieces() takes at most ${limits.tokenizeBytes} token ids (limits().tokenizeBytes), got ${tokenIds.length}`);
    return modelRequest('forward', { tokenIds }).tokenIds.map((token) => this.#decoder.decode(unwrap(this.#core().tokenBytes(token))));
  }

  /**
   * The forward pass: { logits (n × vocab), blocks: [{ input, norm1, attention: [head] (n × n), attentionOutput, norm2, mlpOutput, output }] };
   * options.ablate: heads [{ layer, head }] whose output is replaced before W_O, by zeros or by its mean over the text's positions (options.ablation);
   * options.replace: { family, heads, …its options }, heads computed by a cheaper attention (linear, retention, lowRank, sparse) from their own Q, K, V;
   * options.blocks: false leaves the blocks out (blocks: []), the logits alone copied out of the module.
   */
  forward(tokenIds, options) {
    const { heads, ablation, replace, given } = this.#interventions('forward', options, ['blocks']);
    this.#withinContext(tokenIds);
    const request = modelRequest('forward', { tokenIds, blocks: given.blocks });
    return fromCore(unwrap(this.#core().forward(request, heads, ablation, replace)));
  }

  /** The loss of each next token in nats: entry i is −log p(tokenIds[i + 1] | tokenIds[0 … i]), n − 1 numbers; options as forward()'s. */
  loss(tokenIds, options) {
    const { heads, ablation, replace } = this.#interventions('loss', options);
    this.#withinContext(tokenIds);
    const request = modelRequest('forward', { tokenIds });
    if (request.tokenIds.length < 2)
      throw invalid(
        `tokenIds has ${request.tokenIds.length} token id${request.tokenIds.length === 1 ? '' : 's'}: loss() scores each next token, so it needs at least 2`,
      );
    return fromCore(unwrap(this.#core().tokenLosses(request, heads, ablation, replace)));
  }

  /** Attention rollout (Abnar & Zuidema 2020) after each layer: [layer] (n × n), row i how much each input token reaches position i; rows sum to 1. */
  rollout(tokenIds) {
    this.#withinContext(tokenIds);
    return fromCore(unwrap(this.#core().rollout(modelRequest('forward', { tokenIds }))));
  }

  // forward()'s and loss()'s options: { ablate: [{ layer, head }], ablation: 'zero' | 'mean',
  // replace }, as the core takes them: pairs [layer, head, …], the ablation's index and the
  // checked replacement; `given`, every field read, the method's own `more` among them.
  #interventions(method, options, more = []) {
    const given = optionsOf(method, options, ['ablate', 'ablation', 'replace', ...more], 'tokenIds');
    const ablation = given.ablation ?? 'zero';
    if (!ABLATIONS.includes(ablation))
      throw invalid(`ablation must be 'zero' or 'mean', got ${typeof ablation === 'string' ? `'${ablation}'` : describe(ablation)}`);
    return {
      heads: this.#headPairs('ablate', given.ablate === undefined ? [] : given.ablate),
      ablation: ABLATIONS.indexOf(ablation),
      replace: given.replace === undefined ? undefined : this.#replacement(given.replace),
      given,
    };
  }

  // A list of { layer, head } within this model, as pairs [layer, head, …].
  #headPairs(name, list) {
    const pairs = [];
    readList(
      name,
      list,
      (entry, where, i) => {
        if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
          throw invalid(`${where}[${i}] must be { layer, head }, got ${describe(entry)}`);
        const { layer, head } = ownFields(entry, ['layer', 'head'], { owner: `${where}[${i}]`, prefix: `${where}[${i}].` });
        pairs.push(wholeNumber(`${where}[${i}].layer`, layer, 0, this.config.layers - 1), wholeNumber(`${where}[${i}].head`, head, 0, this.config.heads - 1));
      },
      'an array of { layer, head }',
    );
    return Int32Array.from(pairs);
  }

  // replace: { family, heads: [{ layer, head }] | 'all', …that family's options }.
  #replacement(replace) {
    if (replace === null || typeof replace !== 'object' || Array.isArray(replace))
      throw invalid(`replace must be { family, heads, …the family's options }, got ${describe(replace)}`);
    const families = Object.keys(FAMILY_OPTIONS);
    const known = [...new Set(Object.values(FAMILY_OPTIONS).flat())];
    const { family, heads, ...options } = ownFields(replace, ['family', 'heads', ...known], { owner: 'replace', prefix: 'replace.' });
    if (!families.includes(family))
      throw invalid(
        `replace.family must be ${families.map((name) => `'${name}'`).join(', ')}, got ${typeof family === 'string' ? `'${family}'` : describe(family)}`,
      );
    for (const name of Object.keys(options))
      if (!FAMILY_OPTIONS[family].includes(name))
        throw invalid(`replace.${name} is not an option of '${family}' (it takes ${FAMILY_OPTIONS[family].join(', ') || 'none'})`);
    if (heads === undefined) throw invalid("replace.heads is missing: the heads to replace, [{ layer, head }], or 'all'");
    const all = heads === 'all';
    return {
      family,
      all,
      heads: all ? new Int32Array(0) : this.#headPairs('replace.heads', heads),
      options: family === 'softmax' ? {} : modelRequest(familyEntry(family), options),
    };
  }

  /** `count` token ids after the prompt, drawn through the KV cache (temperature 0: the likeliest; topK 0: all). */
  generate(prompt, options) {
    const given = optionsOf('generate', options, ['count', 'temperature', 'topK', 'seed'], 'prompt');
    wholeNumber('count', given.count, 1, this.config.contextLength);
    this.#sampling(given);
    this.#withinContext(prompt);
    const request = modelRequest('generate', { ...given, prompt });
    if (request.prompt.length === 0) throw invalid('prompt is empty: generate() continues a prompt of at least one token id');
    return fromCore(unwrap(this.#core().generate(request)));
  }

  // A list of token ids longer than the context is refused from its length, in the core's
  // words, before its ids are read and copied (a million ids took a second before).
  #withinContext(list) {
    let length;
    try {
      length = Array.isArray(list) || ArrayBuffer.isView(list) ? list.length : undefined;
    } catch {
      return; // a Proxy's trap: the request's reader names the field
    }
    if (length > this.config.contextLength)
      throw new AttnLabError('too-large', `${length} tokens are more than the model's context length of ${this.config.contextLength}`);
  }

  // The sampling options' ranges on this model; modelRequest then checks the fields.
  #sampling({ temperature = 1, topK = 0 }) {
    if (!Number.isFinite(temperature) || temperature < 0) throw invalid(`temperature must be 0 or a finite number above 0, got ${temperature}`);
    wholeNumber('topK', topK, 0, this.config.vocab);
  }

  /** The distribution generate() draws the next token from, given one row of logits (vocab): { tokenIds, probabilities }, likeliest first, over the top k (temperature 0: the likeliest alone). */
  nextTokenDistribution(logits, options) {
    if ((!Array.isArray(logits) && !ArrayBuffer.isView(logits)) || logits.length !== this.config.vocab)
      throw invalid(`logits must be one row of ${this.config.vocab} numbers (the model's vocab), got ${describe(logits)}`);
    const given = optionsOf('nextTokenDistribution', options, ['temperature', 'topK'], 'logits');
    this.#sampling(given);
    const request = modelRequest('nextTokenDistribution', { ...given, logits });
    return withOlderName(fromCore(unwrap(this.#core().nextTokenDistribution(request))), 'tokens', 'tokenIds');
  }

  /** Every layer × head's scores on the tokens: [layer][head] { previousToken, firstToken, duplicateToken?, induction? (the last two with a period), role, roleScore }. */
  headScores(tokenIds, period) {
    if (period !== undefined) wholeNumber('period', period, 0, this.config.contextLength);
    this.#withinContext(tokenIds);
    const request = modelRequest('headScores', { tokenIds, period });
    return fromCore(unwrap(this.#core().headScores(request)));
  }

  /** One head's W_Q, W_K and W_V columns (d_model × d_head each): with forward()'s blocks[layer].norm1 as X, the stepper's inputs for that head (0-based layer and head). */
  headWeights(layer, head) {
    wholeNumber('layer', layer, 0, this.config.layers - 1);
    wholeNumber('head', head, 0, this.config.heads - 1);
    const request = modelRequest('headWeights', { layer, head });
    return fromCore(unwrap(this.#core().headWeights(request)));
  }

  /** The induction probe: `period` random tokens drawn from the seed, then the same again (score it with headScores(tokenIds, period)). */
  inductionProbe(period, seed) {
    wholeNumber('period', period, 1, Math.floor(this.config.contextLength / 2));
    const request = modelRequest('inductionProbe', { period, seed });
    return fromCore(unwrap(this.#core().inductionProbe(request)));
  }

  /** Frees the core's model; a second call does nothing. */
  delete() {
    this.#handle?.delete();
    this.#handle = null;
  }
}
