// The model module's inputs at and past their limits (issue 39, items 1, 6 and 7): an import
// or a model file too large is refused before a cell is converted (in milliseconds, the model
// module's heap not grown); text with lone surrogates is read as TextEncoder reads it; a getter,
// a Proxy or a detached buffer is an AttnLabError naming the field; only own fields are read
// and unknown ones are refused.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { attnlab } from './support/package.js';
import { DOCUMENTED_LIMITS } from './support/documented-limits.js';

const lab = await attnlab.createAttnLab();
const files = {
  model: JSON.parse(await readFile('model/model.json', 'utf8')),
  tokenizer: JSON.parse(await readFile('model/tokenizer.json', 'utf8')),
  weights: await readFile('model/weights.bin'),
};
const model = await lab.loadModel(files); // the model module is loaded from here on

// A call's AttnLabError, the CPU time it took and how many times any wasm heap grew meanwhile
// (the model module's is the only one an import or a load touches).
async function refusal(call) {
  const grow = WebAssembly.Memory.prototype.grow;
  let grown = 0;
  WebAssembly.Memory.prototype.grow = function (...pages) {
    grown++;
    return grow.apply(this, pages);
  };
  const cpu = process.cpuUsage();
  let error;
  try {
    await call();
  } catch (e) {
    error = e;
  } finally {
    WebAssembly.Memory.prototype.grow = grow;
  }
  const { user, system } = process.cpuUsage(cpu);
  assert.ok(error instanceof attnlab.AttnLabError, `expected an AttnLabError, got ${error}`);
  return { error, ms: (user + system) / 1000, grown };
}

// A head of n × n weights, every row the same array (the test builds no n² cells of its own).
const uniformHead = (n) => new Array(n).fill(new Array(n).fill(1 / n));
const labels = (n) => Array.from({ length: n }, (_, i) => `t${i}`);

test('an import within every dimension but past importValues is refused in milliseconds, the heap as it was', async () => {
  const { traceTokens: n, maxHeads, importLayers, importValues } = DOCUMENTED_LIMITS;
  const head = uniformHead(n);
  const heads = new Array(maxHeads).fill(head);
  // 4 and 128 layers of 64 heads × 512 tokens (3.2 s and 87 s before, the heap grown to 2 GiB).
  for (const layers of [4, importLayers]) {
    const { error, ms, grown } = await refusal(() => lab.importAttention({ tokens: labels(n), attentions: new Array(layers).fill([heads]) }));
    assert.equal(error.code, 'too-large');
    assert.equal(error.message, `${layers} layers × ${maxHeads} heads × ${n} × ${n} tokens are more than ${importValues} weights (lab.limits().importValues)`);
    assert.ok(ms < 100, `${layers} layers refused after ${ms.toFixed(1)} ms of CPU time`);
    assert.equal(grown, 0, 'the model module grew its heap for a refused import');
    console.log(`importAttention, ${layers} layers × ${maxHeads} heads × ${n} tokens: refused in ${ms.toFixed(2)} ms of CPU time`);
  }
  // One head in the [head][query][key] form: 64 heads of 512 tokens.
  const one = await refusal(() => lab.importAttention({ tokens: labels(n), attention: heads }));
  assert.equal(one.error.code, 'too-large');
  assert.ok(one.ms < 100 && one.grown === 0, `${one.ms} ms, ${one.grown} growths`);
  // A million tiny layers (4 s before): refused by the length of the list.
  const tiny = await refusal(() =>
    lab.importAttention({
      tokens: ['a', 'b'],
      attentions: new Array(1e6).fill([
        [
          [
            [1, 0],
            [0.5, 0.5],
          ],
        ],
      ]),
    }),
  );
  assert.equal(tiny.error.code, 'too-large');
  assert.match(tiny.error.message, new RegExp(`^layers must be a whole number from 1 to ${importLayers}, got 1000000`));
  assert.ok(tiny.ms < 100 && tiny.grown === 0, `${tiny.ms} ms, ${tiny.grown} growths`);
  console.log(`importAttention, a million layers of 2 tokens: refused in ${tiny.ms.toFixed(2)} ms of CPU time`);
  // Flat heads whose data is longer than their declared shape: refused by its length.
  const flat = { rows: 2, cols: 2, data: new Float32Array(1 << 24).fill(0.5) };
  const long = await refusal(() => lab.importAttention({ tokens: ['a', 'b'], attention: [flat] }));
  assert.equal(long.error.code, 'shape-mismatch');
  assert.match(long.error.message, /^attention\[0\]\.data has 16777216 values but attention\[0\] is 2×2/);
  assert.ok(long.ms < 100 && long.grown === 0, `${long.ms} ms, ${long.grown} growths`);
});

test('weights.bin past what the config needs is refused before it is converted, the heap as it was', async () => {
  const count = 30_000_000; // 60 MB of float16: 180 MB in the heap before, then refused
  const bytes = new Uint8Array(2 * count);
  const { error, ms, grown } = await refusal(() => lab.loadModel({ ...files, model: { ...files.model, weights: { count } }, weights: bytes }));
  assert.equal(error.code, 'shape-mismatch');
  assert.equal(error.message, `model.weights.count is ${count} but the model's config needs ${files.model.weights.count} parameters`);
  assert.ok(ms < 100, `refused after ${ms.toFixed(1)} ms of CPU time`);
  assert.equal(grown, 0, 'the model module grew its heap for refused weights');
  console.log(`loadModel, ${count} weights for a model of ${files.model.weights.count}: refused in ${ms.toFixed(2)} ms of CPU time`);
  // More merges than the vocab has room for: refused before they are read.
  const merges = new Array(1e6).fill([0, 1]);
  const many = await refusal(() => lab.loadModel({ ...files, tokenizer: { merges } }));
  assert.equal(many.error.code, 'shape-mismatch');
  assert.equal(many.error.message, `the tokenizer has ${256 + 1e6} tokens but the model's vocab is ${files.model.config.vocab}`);
  assert.ok(many.ms < 100 && many.grown === 0, `${many.ms} ms, ${many.grown} growths`);
});

test('a config number past what the core holds is quoted as written, never wrapped to 0', async () => {
  const context = 2 ** 40;
  const { error } = await refusal(() => lab.loadModel({ ...files, model: { ...files.model, config: { ...files.model.config, context } } }));
  assert.equal(error.code, 'invalid-argument');
  assert.equal(error.message, `model.config.context must be a whole number from 1 to 2147483647, got ${context}`);
  // Within what the trip holds, the core's own limit, the field named as model.json names it.
  const large = await refusal(() => lab.loadModel({ ...files, model: { ...files.model, config: { ...files.model.config, context: 100_000 } } }));
  assert.equal(large.error.code, 'too-large');
  assert.match(large.error.message, /^model\.config\.context must be a whole number from 1 to 512, got 100000/);
});

test('lone surrogates are read as TextEncoder reads them: U+FFFD, the next character kept', () => {
  for (const [given, read] of [
    ['\uD800A', '\uFFFDA'],
    ['end\uD800', 'end\uFFFD'],
    ['\uDC00x', '\uFFFDx'],
    ['a\uDBFF\uDBFFb', 'a\uFFFD\uFFFDb'],
    ['ok \uD83D\uDE00 pair', 'ok \uD83D\uDE00 pair'], // a real pair stays one character
  ]) {
    assert.deepEqual(model.tokenize(given).tokenIds, model.tokenize(read).tokenIds, JSON.stringify(given));
    assert.equal(new TextDecoder().decode(new TextEncoder().encode(given)), read); // what TextEncoder makes of it
  }
});

test('a throwing getter, a Proxy or a detached buffer is an AttnLabError naming the field', async () => {
  const tokens = ['a', 'b'];
  const attention = [
    [
      [1, 0],
      [0.5, 0.5],
    ],
  ];
  const boom = () => {
    throw new Error('boom');
  };
  const imports = [
    [
      {
        tokens,
        get attention() {
          return boom();
        },
      },
      /^attention could not be read \(boom\)/,
    ],
    [new Proxy({ tokens, attention }, { get: boom }), /could not be read \(boom\)/],
    [new Proxy({ tokens, attention }, { getOwnPropertyDescriptor: boom }), /could not be read \(boom\)/],
    [{ tokens, attention: new Proxy(attention, { get: (t, k) => (k === 'length' ? boom() : t[k]) }) }, /^attention\.length could not be read \(boom\)/],
    [{ tokens, attention: [new Proxy(attention[0], { get: (t, k) => (k === '1' ? boom() : t[k]) })] }, /attention\[0\]\[1\] could not be read \(boom\)/],
    [{ tokens, attentions: [new Proxy([attention], { get: boom })] }, /attentions\[0\].*could not be read \(boom\)/],
  ];
  for (const [json, words] of imports) {
    const { error } = await refusal(() => lab.importAttention(json));
    assert.equal(error.code, 'invalid-argument');
    assert.match(error.message, words);
  }
  const config = files.model.config;
  const loads = [
    [
      {
        ...files,
        get model() {
          return boom();
        },
      },
      /^model could not be read \(boom\)/,
    ],
    [new Proxy(files, { get: boom }), /could not be read \(boom\)/],
    [
      {
        ...files,
        model: {
          ...files.model,
          config: {
            ...config,
            get context() {
              return boom();
            },
          },
        },
      },
      /^model\.config\.context could not be read \(boom\)/,
    ],
    [{ ...files, tokenizer: new Proxy(files.tokenizer, { get: boom }) }, /^tokenizer\.merges could not be read \(boom\)/],
  ];
  for (const [given, words] of loads) {
    const { error } = await refusal(() => lab.loadModel(given));
    assert.equal(error.code, 'invalid-argument');
    assert.match(error.message, words);
  }
  // A transferred buffer, alone or under a view.
  for (const view of [false, true]) {
    const buffer = files.weights.buffer.slice(files.weights.byteOffset, files.weights.byteOffset + files.weights.byteLength);
    const weights = view ? new Uint8Array(buffer) : buffer;
    structuredClone(buffer, { transfer: [buffer] });
    const { error } = await refusal(() => lab.loadModel({ ...files, weights }));
    assert.equal(error.code, 'invalid-argument');
    assert.match(error.message, /^weights could not be read: its ArrayBuffer is detached/);
  }
});

test('only own fields are read, and a field a method does not take is refused', async () => {
  const own = {
    tokens: ['a', 'b'],
    attention: [
      [
        [1, 0],
        [0.5, 0.5],
      ],
    ],
  };
  assert.equal((await lab.importAttention(own)).scores.length, 1);
  const inherited = await refusal(() => lab.importAttention(Object.create(own)));
  assert.equal(inherited.error.code, 'invalid-argument');
  assert.match(inherited.error.message, /give either attentions/);
  const inheritedFiles = await refusal(() => lab.loadModel(Object.create(files)));
  assert.match(inheritedFiles.error.message, /^model must be model\.json/);

  const prompt = model.tokenize('The Union').tokenIds;
  const twice = await refusal(() => model.generate(prompt, { count: 2, prompt: [1] }));
  assert.equal(twice.error.code, 'invalid-argument');
  assert.match(twice.error.message, /^generate\(\)'s options have no field "prompt"/);
  const unknown = await refusal(() => model.generate(prompt, { count: 2, temprature: 0.5 }));
  assert.match(unknown.error.message, /no field "temprature"/);
  const getter = await refusal(() =>
    model.generate(prompt, {
      get count() {
        throw new Error('boom');
      },
    }),
  );
  assert.match(getter.error.message, /^count could not be read \(boom\)/);
  const empty = await refusal(() => model.generate([], { count: 1 }));
  assert.equal(empty.error.code, 'invalid-argument');
  assert.match(empty.error.message, /^prompt is empty/);
  assert.equal(model.generate(prompt, { count: 2, temperature: 0 }).length, 2); // the options it takes still work
});

test('a text or a list of token ids past its limit is refused from its length, before it is copied', async () => {
  const { tokenizeBytes } = lab.limits();
  const context = model.config.contextLength;
  const cases = [
    [
      () => model.tokenize('a'.repeat(20_000_000)),
      `the text has 20000000 characters, so at least as many bytes of UTF-8: tokenize() takes at most ${tokenizeBytes}`,
    ],
    [() => model.forward(new Array(5_000_000).fill(1)), `5000000 tokens are more than the model's context length of ${context}`],
    [() => model.headScores(new Array(5_000_000).fill(1)), `5000000 tokens are more than the model's context length of ${context}`],
    [() => model.generate(new Array(5_000_000).fill(1), { count: 1 }), `5000000 tokens are more than the model's context length of ${context}`],
  ];
  for (const [call, message] of cases) {
    const { error, ms, grown } = await refusal(call);
    assert.equal(error.code, 'too-large');
    assert.equal(error.message, message);
    assert.ok(ms < 100 && grown === 0, `${message}: ${ms.toFixed(1)} ms, ${grown} growths`);
  }
});
