// lab.loadModel() from JavaScript (issue 24): the shipped model (model/) in the model module
// against a float64 forward written here from model/README.md, a byte-pair encoder written
// here, the stepper's trace() on a block's LayerNorm output, greedy decoding by the reference's
// argmax and the native trainer's sample; bad files are AttnLabErrors; delete() ends the model.
// loadModel() without files reads the packaged model/; headWeights() are the float16 tensors'
// columns and, with norm1, the stepper's head; each head's role follows the rule written here.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { DOCUMENTED_LIMITS } from './support/documented-limits.js';
import { attnlab, errorOf } from './support/package.js';
import { maxAbsDiff } from '../support/compare.js';

const lab = await attnlab.createAttnLab();
const files = {
  model: JSON.parse(await readFile('model/model.json', 'utf8')),
  tokenizer: JSON.parse(await readFile('model/tokenizer.json', 'utf8')),
  weights: await readFile('model/weights.bin'),
};
const model = await lab.loadModel(files);
const text = 'Fellow-Citizens of the Senate and House of Representatives: the Union is strong.';

// ---- The reference, in float64 -------------------------------------------------------------

function half(h) {
  const e = (h >> 10) & 31,
    m = h & 1023,
    sign = h & 0x8000 ? -1 : 1;
  return sign * (e === 0 ? m * 2 ** -24 : (1 + m / 1024) * 2 ** (e - 15));
}
const w = Array.from({ length: files.model.weights.count }, (_, i) => half(files.weights.readUInt16LE(2 * i)));
const tensor = Object.fromEntries(files.model.tensors.map((t) => [t.name, (r, c) => w[t.offset + r * t.cols + c]]));
const { vocab, d_model: d, layers, heads } = files.model.config;

const matmul = (x, name, cols) => x.map((row) => Array.from({ length: cols }, (_, j) => row.reduce((s, v, k) => s + v * tensor[name](k, j), 0)));
const add = (a, b) => a.map((row, i) => row.map((v, j) => v + b[i][j]));
function norm(x, prefix) {
  return x.map((row) => {
    const mean = row.reduce((s, v) => s + v, 0) / d;
    const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / d;
    return row.map((v, j) => ((v - mean) / Math.sqrt(variance + 1e-5)) * tensor[`${prefix}.gain`](0, j) + tensor[`${prefix}.bias`](0, j));
  });
}
const gelu = (u) => 0.5 * u * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (u + 0.044715 * u ** 3)));

function reference(tokens) {
  const n = tokens.length,
    dh = d / heads;
  let x = tokens.map((t, i) => Array.from({ length: d }, (_, j) => tensor.embedding(t, j) + tensor.positions(i, j)));
  const attention = [];
  for (let l = 0; l < layers; l++) {
    const p = `layers.${l}.`;
    const h = norm(x, `${p}ln1`);
    const [q, k, v] = ['w_q', 'w_k', 'w_v'].map((name) => matmul(h, p + name, d));
    const concat = x.map(() => new Array(d).fill(0));
    attention.push([]);
    for (let head = 0; head < heads; head++) {
      const cols = [head * dh, (head + 1) * dh];
      const a = q.map((qi, i) => {
        const s = k.slice(0, i + 1).map((kj) => qi.slice(...cols).reduce((acc, qv, c) => acc + qv * kj[cols[0] + c], 0) / Math.sqrt(dh));
        const top = Math.max(...s);
        const e = s.map((v) => Math.exp(v - top));
        const total = e.reduce((acc, v) => acc + v, 0);
        return Array.from({ length: n }, (_, j) => (j <= i ? e[j] / total : 0));
      });
      attention[l].push(a);
      for (let i = 0; i < n; i++) for (let c = cols[0]; c < cols[1]; c++) concat[i][c] = a[i].reduce((acc, aij, j) => acc + aij * v[j][c], 0);
    }
    x = add(x, matmul(concat, `${p}w_o`, d));
    const hidden = matmul(norm(x, `${p}ln2`), `${p}w_fc`, 4 * d).map((row) => row.map((u, j) => gelu(u + tensor[`${p}b_fc`](0, j))));
    x = add(
      x,
      matmul(hidden, `${p}w_proj`, d).map((row) => row.map((u, j) => u + tensor[`${p}b_proj`](0, j))),
    );
  }
  return { logits: matmul(norm(x, 'final'), 'unembedding', vocab), attention };
}

// Byte-pair encoding as model/README.md describes it: chunks, then the merges in order.
function encode(s) {
  const bytes = [...Buffer.from(s, 'utf8')];
  const letter = (b) => (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b >= 128;
  const digit = (b) => b >= 48 && b <= 57;
  const out = [];
  for (let i = 0; i < bytes.length;) {
    let end = i + 1;
    if (bytes[i] === 32 && end < bytes.length && letter(bytes[end])) end++;
    if (letter(bytes[end - 1])) while (end < bytes.length && letter(bytes[end])) end++;
    else if (digit(bytes[i])) while (end < bytes.length && digit(bytes[end])) end++;
    let word = bytes.slice(i, end);
    files.tokenizer.merges.forEach(([a, b], m) => {
      const next = [];
      for (let j = 0; j < word.length; j++) {
        if (word[j] === a && word[j + 1] === b) (next.push(256 + m), j++);
        else next.push(word[j]);
      }
      word = next;
    });
    out.push(...word);
    i = end;
  }
  return out;
}

// ---- The tests -----------------------------------------------------------------------------

test('tokenize is the byte-pair encoding, and its pieces spell the text', () => {
  const { tokenIds: tokens, pieces } = model.tokenize(text);
  assert.deepEqual(tokens, encode(text));
  assert.ok(tokens.length < Buffer.byteLength(text), 'merges were used');
  assert.equal(pieces.join(''), text);
  assert.equal(pieces.length, tokens.length);
});

test("forward: logits and every head's weights match a float64 forward", () => {
  const tokens = model.tokenize(text).tokenIds.slice(0, 24);
  const got = model.forward(tokens);
  const want = reference(tokens);
  assert.equal(got.logits.length, tokens.length);
  assert.equal(got.logits[0].length, vocab);
  assert.ok(maxAbsDiff(got.logits, want.logits) <= 1e-4, `logits ${maxAbsDiff(got.logits, want.logits)}`);
  for (let l = 0; l < layers; l++)
    for (let h = 0; h < heads; h++) {
      const gap = maxAbsDiff(got.blocks[l].attention[h], want.attention[l][h]);
      assert.ok(gap <= 1e-5, `layer ${l} head ${h}: ${gap}`);
    }
  // The benchmark: one forward over a full context, in wasm on one thread (the time
  // includes copying every block's matrices out to JavaScript).
  const full = Array.from({ length: files.model.config.context }, (_, i) => tokens[i % tokens.length]);
  model.forward(full);
  const start = performance.now();
  for (let i = 0; i < 5; i++) assert.equal(model.forward(full).logits.length, full.length);
  console.log(
    `forward over ${full.length} tokens in wasm: ${((performance.now() - start) / 5).toFixed(1)} ms (mean of 5); ${files.weights.length} B of float16 weights`,
  );
});

// blocks: false runs the heads through the flash kernel, the full pass through attention(): the
// same logits but for the order of float sums.
test('forward(…, { blocks: false }): the same logits within 1e-4, no blocks; blocks must be true or false', () => {
  const tokens = model.tokenize(text).tokenIds.slice(0, 24);
  const full = model.forward(tokens);
  const lean = model.forward(tokens, { blocks: false });
  const near = (a, b) => {
    let gap = 0;
    a.forEach((row, i) => row.forEach((v, j) => (gap = Math.max(gap, Math.abs(v - b[i][j])))));
    assert.ok(gap <= 1e-4, `logits differ by ${gap}`);
  };
  assert.deepEqual(lean.blocks, []);
  near(lean.logits, full.logits);
  assert.deepEqual(model.forward(tokens, { blocks: true }), full);
  const ablated = { ablate: [{ layer: 0, head: 1 }], ablation: 'mean' };
  near(model.forward(tokens, { ...ablated, blocks: false }).logits, model.forward(tokens, ablated).logits);
  const refused = (call, pattern) =>
    assert.throws(call, (error) => error instanceof attnlab.AttnLabError && error.code === 'invalid-argument' && pattern.test(error.message));
  refused(() => model.forward(tokens, { blocks: 0 }), /blocks must be true or false, got number/);
  refused(() => model.loss(tokens, { blocks: false }), /blocks/);
});

test("a block's heads are the stepper's: trace() on its LayerNorm output and weights", () => {
  const tokens = model.tokenize(text).tokenIds.slice(0, 16);
  const block = model.forward(tokens).blocks[1];
  const matrix = (name) => Array.from({ length: d }, (_, r) => Array.from({ length: d }, (_, c) => Math.fround(tensor[`layers.1.${name}`](r, c))));
  const trace = lab.trace({ X: block.norm1, Wq: matrix('w_q'), Wk: matrix('w_k'), Wv: matrix('w_v'), Wo: matrix('w_o'), heads, causal: true });
  const softmax = trace.steps.filter((s) => s.id === 'softmax');
  assert.equal(softmax.length, heads);
  softmax.forEach((s, h) => assert.deepEqual(s.values, block.attention[h]));
  assert.deepEqual(trace.output, block.attentionOutput);
});

test('generate: the same seed gives the same tokens; temperature 0 follows the reference argmax', () => {
  const prompt = model.tokenize('The Congress').tokenIds;
  const sampled = model.generate(prompt, { count: 8, temperature: 0.8, topK: 20, seed: 7 });
  assert.equal(sampled.length, 8);
  assert.deepEqual(model.generate(prompt, { count: 8, temperature: 0.8, topK: 20, seed: 7 }), sampled);
  const greedy = model.generate(prompt, { count: 4, temperature: 0 });
  const chain = [...prompt];
  for (let i = 0; i < 4; i++) {
    const last = reference(chain).logits.at(-1);
    chain.push(last.indexOf(Math.max(...last)));
  }
  assert.deepEqual(greedy, chain.slice(prompt.length));
});

test('generate repeats the native sample of the training log, token for token', async () => {
  const { sample } = JSON.parse(await readFile('model/train-log.json', 'utf8'));
  const prompt = model.tokenize(sample.prompt).tokenIds;
  const options = { count: sample.tokens.length, temperature: sample.temperature, topK: sample.top_k, seed: sample.seed };
  assert.equal(sample.tokens.length, 32);
  assert.deepEqual(model.generate(prompt, options), sample.tokens);
});

test('headScores are the mean weights on the previous, first, earlier-copy and next-after-copy tokens', () => {
  const half = model.tokenize(' the people of the United States').tokenIds;
  const tokens = [...half, ...half];
  const period = half.length;
  const scores = model.headScores(tokens, period);
  const { blocks } = model.forward(tokens);
  const mean = (values) => values.reduce((s, v) => s + v, 0) / values.length;
  const rows = (from, to) => Array.from({ length: to - from }, (_, i) => from + i);
  for (let l = 0; l < layers; l++)
    for (let h = 0; h < heads; h++) {
      const a = blocks[l].attention[h];
      const s = scores[l][h];
      assert.ok(Math.abs(s.previousToken - mean(rows(1, tokens.length).map((i) => a[i][i - 1]))) <= 1e-6);
      assert.ok(Math.abs(s.firstToken - mean(rows(1, tokens.length).map((i) => a[i][0]))) <= 1e-6);
      assert.ok(Math.abs(s.duplicateToken - mean(rows(period, 2 * period).map((i) => a[i][i - period]))) <= 1e-6);
      assert.ok(Math.abs(s.induction - mean(rows(period, 2 * period).map((i) => a[i][i - period + 1]))) <= 1e-6);
    }
  assert.equal(model.headScores(tokens)[0][0].induction, undefined);
});

test('bad files and bad calls are AttnLabErrors naming what is wrong', async () => {
  const cases = [
    [{ ...files, model: { ...files.model, format: 'gpt2' } }, 'invalid-argument', 'format "attnlab-model-1"'],
    [{ ...files, weights: files.weights.subarray(2) }, 'shape-mismatch', 'float16 values'],
    [
      {
        ...files,
        tokenizer: {
          merges: [
            [1, 2],
            [300, 1],
          ],
        },
      },
      'invalid-argument',
      'merge 1 joins tokens 300 and 1',
    ],
    [{ ...files, weights: 'weights.bin' }, 'invalid-argument', 'weights must be the bytes of weights.bin'],
  ];
  for (const [bad, code, words] of cases) {
    const error = await lab.loadModel(bad).then(
      () => null,
      (e) => e,
    );
    assert.equal(error?.code, code, String(error));
    assert.ok(error.message.includes(words), error.message);
  }
  assert.equal(errorOf(() => model.forward([vocab])).code, 'invalid-argument');
  const long = errorOf(() => model.forward(new Array(files.model.config.context + 1).fill(1)));
  assert.equal(long.code, 'too-large');
  assert.equal(long.message, `${files.model.config.context + 1} tokens are more than the model's context length of ${files.model.config.context}`);
  assert.equal(errorOf(() => model.generate([1], { count: 2, temperature: -1 })).code, 'invalid-argument');
  const doomed = await lab.loadModel(files);
  doomed.delete();
  assert.match(errorOf(() => doomed.tokenize('a')).message, /deleted/);
});

test('model.config names the most tokens contextLength, its older name context still read', () => {
  const { d_model, ...file } = files.model.config;
  assert.deepEqual({ ...model.config }, { vocab: file.vocab, contextLength: file.context, dModel: d_model, layers: file.layers, heads: file.heads });
  assert.equal(model.config.context, model.config.contextLength);
});

test('token ids are tokenIds in every result; their older name tokens still reads, unlisted', () => {
  const tokenized = model.tokenize('The Union');
  assert.deepEqual(Object.keys(tokenized), ['tokenIds', 'pieces']);
  assert.deepEqual(tokenized.tokenIds, encode('The Union'));
  assert.equal(tokenized.tokens, tokenized.tokenIds);
  const next = model.nextTokenDistribution(model.forward(tokenized.tokenIds).logits.at(-1), { topK: 3 });
  assert.deepEqual(Object.keys(next), ['tokenIds', 'probabilities']);
  assert.equal(next.tokenIds.length, 3);
  assert.equal(next.tokens, next.tokenIds);
});

test('loadModel() without files reads the packaged model/: the same model as its files give', async () => {
  const packaged = await lab.loadModel();
  try {
    assert.deepEqual(packaged.config, model.config);
    const { tokenIds: tokens } = packaged.tokenize(text);
    assert.deepEqual(tokens, encode(text));
    assert.deepEqual(packaged.forward(tokens.slice(0, 12)).logits, model.forward(tokens.slice(0, 12)).logits);
  } finally {
    packaged.delete();
  }
});

test("headWeights: a head's columns of W_Q, W_K, W_V; with norm1 as X the stepper gives the block's weights", () => {
  const tokens = model.tokenize(text).tokenIds.slice(0, 14);
  const { blocks } = model.forward(tokens);
  const dh = d / heads;
  for (const [l, h] of [
    [0, 0],
    [1, 3],
    [2, 1],
  ]) {
    const w = model.headWeights(l, h);
    for (const [key, name] of [
      ['Wq', 'w_q'],
      ['Wk', 'w_k'],
      ['Wv', 'w_v'],
    ]) {
      assert.equal(w[key].length, d);
      assert.equal(w[key][0].length, dh);
      for (let r = 0; r < d; r++) for (let c = 0; c < dh; c++) assert.equal(w[key][r][c], Math.fround(tensor[`layers.${l}.${name}`](r, h * dh + c)));
    }
    const trace = lab.trace({ X: blocks[l].norm1, ...w, causal: true });
    const gap = maxAbsDiff(trace.steps.find((s) => s.id === 'softmax').values, blocks[l].attention[h]);
    assert.ok(gap <= 1e-6, `layer ${l} head ${h}: ${gap}`);
  }
  assert.equal(errorOf(() => model.headWeights(layers, 0)).code, 'invalid-argument');
  assert.equal(errorOf(() => model.headWeights(0, 1.5)).code, 'invalid-argument');
});

test("each head's role: the score furthest above uniform attention's, named when at least twice it", () => {
  const probe = model.inductionProbe(20, 3);
  assert.equal(probe.length, 40);
  assert.deepEqual(probe.slice(20), probe.slice(0, 20));
  // Uniform causal attention gives each key 1/(i + 1) at query i: averaged over the queries scored.
  const uniform = (from, to) => Array.from({ length: to - from }, (_, i) => 1 / (from + i + 1)).reduce((s, v) => s + v, 0) / (to - from);
  for (const [tokens, period] of [
    [model.tokenize(text).tokenIds, 0],
    [probe, 20],
  ]) {
    const roles = new Set();
    model
      .headScores(tokens, period)
      .flat()
      .forEach((s) => {
        const all = uniform(1, tokens.length),
          repeat = period ? uniform(period, 2 * period) : 0;
        const candidates = [
          ['previous-token', s.previousToken, all],
          ['first-token', s.firstToken, all],
        ];
        if (period) candidates.push(['duplicate-token', s.duplicateToken, repeat], ['induction', s.induction, repeat]);
        const [name, score, base] = candidates.reduce((best, c) => (c[1] / c[2] > best[1] / best[2] ? c : best));
        assert.equal(s.roleScore, score);
        assert.equal(s.role, score >= 2 * base ? name : 'spread');
        roles.add(s.role);
      });
    console.log(`roles on ${period ? 'the induction probe' : 'the text'}: ${[...roles].join(', ')}`);
  }
});

test('nextTokenDistribution refuses logits that are not finite, as non-finite naming the entry (once NaN probabilities)', () => {
  const row = Array.from({ length: vocab }, (_, i) => Math.sin(i));
  for (const [bad, shown] of [
    [NaN, 'NaN'],
    [Infinity, 'Infinity'],
    [1e39, '1e+39'],
    [-Infinity, '-Infinity'],
  ]) {
    const logits = row.map((x, i) => (i === 4 ? bad : x));
    const { code, message } = errorOf(() => model.nextTokenDistribution(logits));
    assert.equal(code, 'non-finite', message);
    assert.match(message, /^logit 5 is /, `${shown}: ${message}`);
  }
  const { code } = errorOf(() =>
    model.nextTokenDistribution(
      row.map(() => -Infinity),
      { temperature: 0 },
    ),
  );
  assert.equal(code, 'non-finite');
});

test('tokenize() takes at most tokenizeBytes bytes of UTF-8 and pieces() as many ids: one more is too-large, refused at once (a million letters took 7 s)', () => {
  const limit = lab.limits().tokenizeBytes;
  assert.equal(limit, DOCUMENTED_LIMITS.tokenizeBytes);
  const atLimit = 'the nation '.repeat(limit / 11 + 1).slice(0, limit);
  assert.equal(model.tokenize(atLimit).pieces.join(''), atLimit);
  const twoBytes = 'é'.repeat(limit / 2); // bytes of UTF-8 are counted, not characters
  assert.ok(model.tokenize(twoBytes).tokenIds.length >= limit / 2);
  for (const text of ['a'.repeat(limit + 1), `${twoBytes}é`, 'a'.repeat(1_000_000)]) {
    const { code, message } = errorOf(() => model.tokenize(text));
    assert.equal(code, 'too-large', message);
    assert.match(message, new RegExp(`at most ${limit}`));
  }
  assert.equal(errorOf(() => model.pieces(new Array(limit + 1).fill(1))).code, 'too-large');
  assert.equal(model.pieces(new Array(limit).fill(101)).length, limit);
});

test("the model's requests are the core's (lab.schema(), model_requests.hpp): a field it lacks is refused with the closest name, never ignored", () => {
  const { requests, groups } = lab.schema();
  for (const entry of ['loadModel', 'forward', 'generate', 'nextTokenDistribution', 'headScores', 'headWeights', 'inductionProbe'])
    assert.ok(requests[entry], entry);
  const names = (entry) => requests[entry].flatMap((g) => groups[g].map((f) => f.name));
  assert.deepEqual(names('generate'), ['prompt', 'count', 'temperature', 'topK', 'seed']);
  assert.deepEqual(names('loadModel'), ['vocab', 'contextLength', 'dModel', 'layers', 'heads']);
  const prompt = model.tokenize('The Union').tokenIds;
  // Before the table, an unknown option was dropped silently and the default used.
  assert.throws(() => model.generate(prompt, { count: 2, topk: 3 }), { code: 'invalid-argument', message: /topk: .*did you mean topK\?/ });
  assert.throws(() => model.nextTokenDistribution(model.forward(prompt).logits.at(-1), { temprature: 0 }), {
    code: 'invalid-argument',
    message: /did you mean temperature\?/,
  });
  assert.throws(() => model.generate(prompt, { count: 2, seed: 'x' }), { code: 'invalid-argument', message: /^seed must be a whole number/ });
  // The schema's defaults are the ones the core draws with.
  const sample = Object.fromEntries(groups.SampleOptions.map((f) => [f.name, f.default]));
  assert.deepEqual(sample, { temperature: 1, topK: 0, seed: 1 });
  assert.deepEqual(model.generate(prompt, { count: 4 }), model.generate(prompt, { count: 4, ...sample }));
  assert.notDeepEqual(
    model.generate(prompt, { count: 4, seed: 2 }),
    model.generate(prompt, { count: 4, ...sample }),
    'the seed changes the draw, so the comparison can fail',
  );
});
