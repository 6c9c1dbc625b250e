// A seeded fuzz of the model module's entries with hostile inputs (issue 29): the little
// model's tokenize (empty, huge, any Unicode, lone surrogates, not a string), forward,
// generate, nextTokenDistribution, headScores, headWeights, inductionProbe and (issue 38)
// forward and loss with heads ablated and rollout (token ids out of
// range or not whole, empty and over-long lists, temperatures from 1e-45 to Infinity, top-k
// beyond the vocabulary), lab.importAttention() with malformed Hugging Face JSON, and
// lab.loadModel() with damaged files; and (issue 39) imports past importValues, getters and
// Proxies that throw, detached buffers, inherited fields and options a method does not take. Properties of every call: it returns, or throws
// (rejects with) AttnLabError with a code of ERROR_CODES and a message; a result holds no NaN
// or ±Infinity; token ids are in the vocabulary; a distribution is sorted, sums to 1 and, on
// moderate logits, is softmax(logits / temperature) over the top k in float64; byte-level BPE
// gives ASCII text back from its pieces; an accepted import keeps its weights; and after it
// all the model gives the same logits for a fixed sentence as before (its last good state).
// ATTNLAB_FUZZ_SEED=<seed> replays a run; ATTNLAB_FUZZ_SECONDS sets the time (10).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';

import { random } from './support/fuzz-requests.js';
import { fuzzRun } from './support/fuzz-seed.js';
import { attnlab, packageDir } from './support/package.js';

const lab = await attnlab.createAttnLab();
const model = await lab.loadModel();
const { vocab, contextLength: context, layers, heads } = model.config;
const { AttnLabError, ERROR_CODES } = attnlab;
const { SEED, SECONDS } = fuzzRun('fuzz-model', 10);

const ODD = [-1, 1.5, NaN, Infinity, -Infinity, '3', null, undefined, {}, [], 2 ** 31, 2 ** 53, -0, 1e300];
const allFinite = (value) =>
  typeof value === 'number'
    ? Number.isFinite(value)
    : Array.isArray(value) || ArrayBuffer.isView(value)
      ? Array.prototype.every.call(value, allFinite)
      : value && typeof value === 'object'
        ? Object.values(value).every(allFinite)
        : true;

/** The call's result, or its AttnLabError (anything else fails the test). */
async function outcome(what, call) {
  try {
    const result = await call();
    assert.ok(allFinite(result), `${what}: a non-finite number in the result`);
    return { result };
  } catch (error) {
    if (!(error instanceof AttnLabError)) throw new Error(`${what} threw ${error?.name}: ${error?.message}`, { cause: error });
    assert.ok(ERROR_CODES.includes(error.code) && error.message.length > 0, `${what}: ${error.code}`);
    return { error };
  }
}

// Text: ASCII, any code point (astral, controls, NUL), lone surrogates, empty, long.
function text(r) {
  const kind = r.int(0, 5);
  if (kind === 0) return '';
  const length = kind === 5 ? r.int(1000, 5000) : r.int(1, 60);
  const char = () => {
    if (kind <= 2) return String.fromCharCode(r.int(32, 126));
    if (kind === 3) return String.fromCodePoint(r.chance(0.8) ? r.int(0, 0xd7ff) : r.int(0x10000, 0x10ffff));
    return String.fromCharCode(r.int(0xd800, 0xdfff)); // lone surrogates
  };
  return Array.from({ length }, char).join('');
}
const tokens = (r, hostile) => {
  const list = Array.from({ length: r.int(hostile ? 0 : 1, hostile && r.chance(0.3) ? context + 3 : 12) }, () => r.int(0, vocab - 1));
  if (hostile && list.length && r.chance(0.7)) list[r.int(0, list.length - 1)] = r.pick([vocab, -1, ...ODD]);
  return hostile && r.chance(0.1) ? r.pick(ODD) : r.chance(0.2) ? Int32Array.from(list.filter(Number.isInteger)) : list;
};
const temperature = (r, hostile) => (hostile ? r.pick([0, 1e-45, 1e-30, 1e39, -1, NaN, Infinity, '1']) : r.pick([0, 0.3, 1, 2]));
const topK = (r, hostile) => (hostile ? r.pick([-1, vocab + 1, 1.5, NaN, '2']) : r.pick([0, 1, 5, vocab]));

// softmax(logits / T) over the k largest in float64: what the distribution must be. The core
// ranks the logits it receives, float32 ones: two that differ in float64 may tie there (ties go
// to the smaller id), so the ranking is of the rounded values.
function expectedDistribution(given, T, k) {
  const logits = given.map(Math.fround);
  const order = [...logits.keys()].sort((a, b) => logits[b] - logits[a]).slice(0, k || logits.length);
  if (T === 0) return new Map([[order[0], 1]]);
  const max = logits[order[0]] / T;
  const e = order.map((t) => Math.exp(logits[t] / T - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return new Map(order.map((t, i) => [t, e[i] / sum]));
}

async function modelCase(r) {
  const hostile = r.chance(0.5);
  const entry = r.pick(['tokenize', 'forward', 'generate', 'distribution', 'headScores', 'headWeights', 'inductionProbe', 'interventions']);
  if (entry === 'tokenize') {
    const t = hostile && r.chance(0.2) ? r.pick(ODD) : text(r);
    const { result } = await outcome('tokenize', () => model.tokenize(t));
    if (typeof t === 'string') assert.ok(result, 'tokenize refused a string');
    if (!result) return entry;
    assert.ok(result.tokenIds.every((id) => Number.isInteger(id) && id >= 0 && id < vocab) && result.pieces.length === result.tokenIds.length);
    if (/^[\x20-\x7e]*$/.test(t)) assert.equal(result.pieces.join(''), t, 'ASCII text back from its pieces');
    // UTF-16 read as TextEncoder reads it: a lone surrogate is U+FFFD (issue 39).
    assert.deepEqual(result.tokenIds, model.tokenize(t.toWellFormed()).tokenIds, 'lone surrogates as U+FFFD');
  } else if (entry === 'forward') {
    const list = tokens(r, hostile);
    const { result } = await outcome('forward', () => model.forward(list));
    if (result) assert.equal(result.logits.length * result.logits[0].length, list.length * vocab);
  } else if (entry === 'generate') {
    const options = {
      count: hostile && r.chance(0.3) ? r.pick([0, context + 1, ...ODD]) : r.int(1, 4),
      temperature: temperature(r, hostile && r.chance(0.5)),
      topK: topK(r, hostile && r.chance(0.3)),
      seed: r.int(0, 1000),
    };
    const stray = hostile && r.chance(0.2) ? r.pick(['prompt', 'tokenIds', 'topk']) : undefined; // a field the options do not take (issue 39)
    if (stray) options[stray] = [1];
    const { result } = await outcome('generate', () => model.generate(tokens(r, hostile && r.chance(0.5)), options));
    if (stray) assert.ok(!result, `generate() took options with ${stray}`);
    if (result) assert.ok(result.length === options.count && result.every((id) => Number.isInteger(id) && id >= 0 && id < vocab), JSON.stringify(result));
  } else if (entry === 'distribution') {
    const moderate = !hostile || r.chance(0.5);
    const logits = Array.from({ length: vocab }, () =>
      moderate ? 20 * r.float() - 10 : r.chance(0.9) ? 1e4 * r.float() : r.pick([3e38, -3e38, 1e-45, NaN, Infinity, -Infinity]),
    );
    const [T, k] = [temperature(r, !moderate && r.chance(0.5)), topK(r, hostile && r.chance(0.3))];
    const input = hostile && r.chance(0.1) ? logits.slice(1) : logits;
    const { result } = await outcome('nextTokenDistribution', () => model.nextTokenDistribution(input, { temperature: T, topK: k }));
    if (!result) return entry;
    const { tokenIds: ids, probabilities: p } = result;
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.every((id) => Number.isInteger(id) && id >= 0 && id < vocab));
    assert.ok(
      p.every((x, i) => x >= 0 && x <= 1 && (i === 0 || x <= p[i - 1])),
      'probabilities in 0…1, likeliest first',
    );
    assert.ok(Math.abs(p.reduce((a, b) => a + b, 0) - 1) <= 1e-5, `the probabilities sum to ${p.reduce((a, b) => a + b, 0)}`);
    if (moderate && typeof T === 'number' && T >= 0.3) {
      const want = expectedDistribution(logits, T, k);
      assert.equal(ids.length, want.size);
      ids.forEach((id, i) => assert.ok(Math.abs(p[i] - (want.get(id) ?? -1)) <= 1e-5, `token ${id}: ${p[i]} vs ${want.get(id)}`));
    }
  } else if (entry === 'headScores') {
    const { result } = await outcome('headScores', () => model.headScores(tokens(r, hostile), hostile ? r.pick([context, -1, ...ODD]) : r.int(0, 3)));
    if (result) assert.ok(result.length === layers && result.every((row) => row.length === heads));
  } else if (entry === 'headWeights') {
    const pick = (n) => (hostile && r.chance(0.5) ? r.pick([n, -1, ...ODD]) : r.int(0, n - 1));
    await outcome('headWeights', () => model.headWeights(pick(layers), pick(heads)));
  } else if (entry === 'interventions') {
    // Issue 38: forward() and loss() with heads ablated, rollout(); hostile heads and ablations.
    const head = () =>
      hostile && r.chance(0.3)
        ? r.pick([{ layer: layers, head: 0 }, { layer: 0, head: heads }, { layer: 0 }, [0, 0], ...ODD])
        : { layer: r.int(0, layers - 1), head: r.int(0, heads - 1) };
    const options = {
      ablate: Array.from({ length: r.int(0, 3) }, head),
      ablation: hostile && r.chance(0.3) ? r.pick(['random', ...ODD]) : r.pick(['zero', 'mean']),
    };
    const given = hostile && r.chance(0.1) ? r.pick(ODD) : options;
    const list = tokens(r, hostile);
    const method = r.pick(['forward', 'loss', 'rollout']);
    const { result } = await outcome(method, () => (method === 'rollout' ? model.rollout(list) : model[method](list, given)));
    if (result && method === 'loss') assert.equal(result.length, list.length - 1);
    if (result && method === 'rollout')
      for (const layer of result) for (const row of layer) assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) <= 1e-5, 'a rollout row sums to 1');
    if (result && method === 'forward' && options.ablate.length === 0 && given === options)
      assert.deepEqual(result, model.forward(list), 'ablate: [] is the plain pass');
  } else {
    const period = hostile ? r.pick([0, context / 2 + 1, ...ODD]) : r.int(1, context / 2);
    const { result } = await outcome('inductionProbe', () => model.inductionProbe(period, hostile ? r.pick([-1, 0.5, NaN]) : r.int(0, 99)));
    if (result) assert.deepEqual(result.slice(period), result.slice(0, period));
  }
  return entry;
}

// A Hugging Face export: [layer][batch of 1][head][query][key] rows that sum to 1, then one
// thing broken now and then.
function importJson(r) {
  const n = r.int(2, 6),
    L = r.int(1, 3),
    H = r.int(1, 3); // head scores need two tokens
  const row = () => {
    const e = Array.from({ length: n }, () => r.float() + 0.01);
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / sum);
  };
  const attentions = Array.from({ length: L }, () => [Array.from({ length: H }, () => Array.from({ length: n }, row))]);
  const json = { tokens: Array.from({ length: n }, (_, i) => `t${i}`), attentions };
  if (!r.chance(0.5)) return { json, valid: true };
  const [l, h, i, j] = [r.int(0, L - 1), r.int(0, H - 1), r.int(0, n - 1), r.int(0, n - 1)];
  const broken = r.pick([
    () => (attentions[l][0][h][i][j] = r.pick([NaN, Infinity, -0.5, 2, '0.1', null])),
    () => (attentions[l][0][h][i][j] += 0.2),
    () => attentions[l][0][h][i].pop(),
    () => attentions[l][0].push(attentions[l][0][0].slice(1)),
    () => json.tokens.push('extra'),
    () => (json.tokens[0] = r.pick([7, null, {}])),
    () => delete json.tokens,
    () => (json.attentions = r.pick([null, 'x', [], [[]], [[[[[[0.5]]]]]], {}])),
    () => (json.attention = attentions[0][0]),
    () => (json.attentions = Array.from({ length: 129 }, () => [[[[1]]]])),
    // Issue 39: past importValues with every dimension within its limit (rows shared, so cheap
    // to build), a getter or a Proxy that throws, inherited fields.
    () =>
      (json.attentions = new Array(r.int(4, 128)).fill([new Array(64).fill(new Array(512).fill(new Array(512).fill(1 / 512)))])) &&
      (json.tokens = Array.from({ length: 512 }, (_, k) => `t${k}`)),
    () =>
      Object.defineProperty(json, 'attentions', {
        get: () => {
          throw new Error('a getter');
        },
      }),
    () =>
      (json.attentions = new Proxy(attentions, {
        get: (target, key) =>
          key === String(l)
            ? r.pick([
                () => {
                  throw new Error('a trap');
                },
                () => null,
              ])()
            : target[key],
      })),
    () =>
      (attentions[l][0] = new Proxy(attentions[l][0], {
        get: () => {
          throw new Error('a trap');
        },
      })),
  ]);
  if (r.chance(0.05)) return { json: Object.create(json), valid: false }; // only own fields are read
  broken();
  return { json: r.chance(0.05) ? r.pick(ODD) : json, valid: false };
}

async function importCase(r) {
  const { json, valid } = importJson(r);
  const cpu = process.cpuUsage();
  const { result, error } = await outcome('importAttention', () => lab.importAttention(json));
  if (error?.code === 'too-large') {
    const { user, system } = process.cpuUsage(cpu);
    assert.ok(user + system < 100_000, `a too-large import took ${(user + system) / 1000} ms of CPU time`); // sizes before copies (issue 39)
  }
  if (valid) assert.ok(result, `a valid import was refused: ${error?.message}`);
  if (!result || !valid) return;
  json.attentions.forEach((layer, l) =>
    layer[0].forEach((head, h) =>
      head.forEach((row, i) => row.forEach((w, j) => assert.ok(Math.abs(result.attention[l][h][i][j] - w) <= 1e-7, `weight ${l},${h},${i},${j}`))),
    ),
  );
}

// The package's own files, damaged one way: refused, or a model whose forward is finite.
const files = {
  model: JSON.parse(await readFile(join(packageDir, 'model/model.json'), 'utf8')),
  tokenizer: JSON.parse(await readFile(join(packageDir, 'model/tokenizer.json'), 'utf8')),
  weights: new Uint8Array(await readFile(join(packageDir, 'model/weights.bin'))),
};
async function loadCase(r) {
  const copy = structuredClone(files);
  const field = r.pick(['vocab', 'context', 'd_model', 'layers', 'heads', 'd_mlp']);
  r.pick([
    () => (copy.model.config[field] = r.pick([0, 1, 2 * copy.model.config[field], 1e9, ...ODD])),
    () => (copy.tokenizer.merges[r.int(0, copy.tokenizer.merges.length - 1)] = r.pick([[vocab + 5, 1], [1], [-1, 2], 'ab', [0.5, 1]])),
    () => copy.tokenizer.merges.push(...copy.tokenizer.merges.slice(0, r.int(1, 50))),
    () => (copy.weights = copy.weights.subarray(0, copy.weights.length - 2 * r.int(1, 100))),
    () => (copy.model.weights.count += r.int(-3, 3)),
    () => copy.weights.set([0x00, r.pick([0x7c, 0xfc, 0x7e])], 2 * r.int(0, copy.model.weights.count - 1)), // ±Infinity, NaN in float16
    () => (copy.model.tensors[r.int(0, copy.model.tensors.length - 1)].offset = r.pick([-1, 1e9, 3.5])),
    () => (copy.model.format = 'attnlab-model-2'),
    // Issue 39: weights past what the config needs, a throwing getter, a detached buffer.
    () => ((copy.weights = new Uint8Array(2 * 4_000_000)), (copy.model.weights.count = 4_000_000)),
    () =>
      Object.defineProperty(copy.model.config, field, {
        get: () => {
          throw new Error('a getter');
        },
      }),
    () => structuredClone(copy.weights.buffer, { transfer: [copy.weights.buffer] }),
    () => (copy.model.config.context = 2 ** 40),
  ])();
  const { result: loaded } = await outcome('loadModel', () => lab.loadModel(copy));
  if (!loaded) return;
  try {
    await outcome('forward of a loaded model', () => loaded.forward([0, 1, 2]));
  } finally {
    loaded.delete();
  }
}

test(`fuzz: the model module's entries, importAttention and loadModel with hostile inputs for ${SECONDS} s`, async () => {
  const sentence = model.tokenize('We are blessed with peace at home.').tokenIds;
  const before = model.forward(sentence).logits;
  const counts = {};
  const end = Date.now() + SECONDS * 1000;
  let cases = 0;
  for (; Date.now() < end; cases++) {
    const r = random((SEED + Math.imul(cases + 1, 0x9e3779b9)) >>> 0);
    try {
      const kind = r.chance(0.7) ? await modelCase(r) : r.chance(0.85) ? (await importCase(r), 'importAttention') : (await loadCase(r), 'loadModel');
      counts[kind] = (counts[kind] ?? 0) + 1;
    } catch (error) {
      error.message = `case ${cases} of seed ${SEED}: ${error.message}`;
      throw error;
    }
  }
  console.log(`fuzz-model: ${cases} cases: ${JSON.stringify(counts)}`);
  assert.deepEqual(model.forward(sentence).logits, before, 'the model gives the same logits after it all');
  assert.ok(cases >= 10, `${cases} cases`);
});
