// Requests declared once (issue 28, item 1): the core's schema (cpp/bindings/requests.hpp)
// is what requests.js checks and what attnlab.d.ts types. The typings' request interfaces
// must be the ones generated from the packed learning module's schema; the checks must follow
// the schema (a field it has is taken, a field it lacks refused); the defaults it reports are
// what the core computes with.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';

import {
  BEGIN,
  END,
  RESULTS_BEGIN,
  RESULTS_END,
  declaredTwice,
  generate,
  generateResults,
  learningSchema,
  listsModule,
  typingsResults,
} from '../../scripts/typings.mjs';
import { attnlab, errorOf, packageDir } from './support/package.js';

const lab = await attnlab.createAttnLab();
const schema = lab.schema();
const generatedPart = (text) => text.slice(text.indexOf(BEGIN), text.indexOf(END) + END.length);

// The packed learning module's schema (with docs) and the core's step ids.
const tables = { schema: await learningSchema(join(packageDir, 'dist')), stepIds: lab.stepIds() };

test('the request interfaces and step ids of attnlab.d.ts and core-lists.js are generated from the core (not stale)', async () => {
  const expected = generate(tables.schema, tables.stepIds);
  for (const file of ['web/lib/attnlab.d.ts', join(packageDir, 'dist', 'attnlab.d.ts')]) {
    const text = await readFile(file, 'utf8');
    assert.equal(generatedPart(text), expected, `${file} is stale: run node scripts/typings.mjs`);
  }
  assert.equal(
    await readFile('web/lib/core-lists.js', 'utf8'),
    listsModule(lab.stepIds(), schema, lab.limits()),
    'web/lib/core-lists.js is stale: run node scripts/typings.mjs',
  );
});

// The result interfaces come from the typings module the build leaves beside the others
// (attnlab-typings: the core with the docs, not shipped).
test('the result interfaces of attnlab.d.ts are generated from the fields the core registers (not stale), and no name is declared twice', async () => {
  const expected = generateResults(await typingsResults('build/wasm/cpp/bindings'));
  for (const file of ['web/lib/attnlab.d.ts', join(packageDir, 'dist', 'attnlab.d.ts')]) {
    const text = await readFile(file, 'utf8');
    assert.equal(
      text.slice(text.indexOf(RESULTS_BEGIN), text.indexOf(RESULTS_END) + RESULTS_END.length),
      expected,
      `${file} is stale: run node scripts/typings.mjs`,
    );
    assert.deepEqual(declaredTwice(text), [], `${file} declares these twice`);
  }
});

test("the core's schema and the model module's together are the learning module's tables, without docs; the core's alone lacks the model's", async () => {
  const withDocs = tables.schema;
  const strip = (s) => JSON.parse(JSON.stringify(s, (key, value) => (key === 'doc' ? undefined : value)));
  const modelEntries = Object.keys(withDocs.requests).filter((entry) => !(entry in schema.requests));
  assert.ok(modelEntries.includes('generate') && modelEntries.includes('forward'), `the core's download leaves out ${modelEntries}`);
  const fresh = await attnlab.createAttnLab();
  (await fresh.loadModel()).delete();
  assert.deepEqual(fresh.schema(), strip(withDocs), 'lab.schema() once the model module has loaded');
  assert.ok(
    Object.values(withDocs.groups)
      .flat()
      .filter((f) => !f.aliasOf)
      .every((f) => f.doc),
    'every field has a doc',
  );
});

test("the model's requests join the schema of the lab that loaded its module only; a lab made later keeps the model's checks", async () => {
  const first = await attnlab.createAttnLab();
  const model = await first.loadModel();
  assert.ok('headScores' in first.schema().requests && 'importAttention' in first.schema().requests);
  const later = await attnlab.createAttnLab();
  assert.deepEqual(later.schema(), schema, "a lab that has not loaded the model lists the core's requests alone");
  assert.ok('headScores' in first.schema().requests, 'the first lab still lists them');
  // The first lab's model still has its requests checked after another lab was made.
  assert.equal(model.forward(model.tokenize('The Union').tokenIds).logits.length, model.tokenize('The Union').tokenIds.length);
  assert.match(errorOf(() => model.headScores([1, 'a'])).message, /^tokenIds\[1\] must be a whole number/);
  await later.importAttention({
    tokens: ['a', 'b'],
    attention: [
      [
        [1, 0],
        [0.5, 0.5],
      ],
    ],
  });
  assert.ok('importAttention' in later.schema().requests, 'importAttention loads the model module for its lab too');
  model.delete();
});

test("every entry's schema fields are what it takes: each is known, anything else refused", () => {
  // One field per entry that only the schema names (no test request has it), given a value of
  // the wrong type: refused by the field's own check, not as unknown.
  for (const [entry, groups] of Object.entries(schema.requests)) {
    const fields = groups.flatMap((g) => schema.groups[g]);
    assert.ok(fields.length > 0, entry);
    for (const f of fields) assert.equal(typeof f.kind, 'string', `${entry}.${f.name}`);
  }
  assert.match(errorOf(() => lab.attention({ Q: [[1]], K: [[1]], V: [[1]], softcap: 'x' })).message, /^softcap must be a number, got string/);
});

test("the mask's blockedBy bits are the core's: a causal cell is blocked by maskRules.causal, a padded key by maskRules.keyPadding", () => {
  const { maskRules } = schema;
  assert.deepEqual(Object.keys(maskRules), ['causal', 'keyPadding', 'mask', 'window', 'bias']);
  assert.deepEqual({ ...attnlab.MASK_RULES }, maskRules);
  assert.ok(Object.isFrozen(attnlab.MASK_RULES));
  const I = [
    [1, 0],
    [0, 1],
  ];
  const trace = lab.trace({ Q: I, K: I, V: I, causal: true, keyPadding: [false, true] });
  const { blockedBy } = trace.steps.find((s) => s.id === 'mask');
  assert.equal(blockedBy[0][1], maskRules.causal | maskRules.keyPadding);
  assert.equal(blockedBy[1][1], maskRules.keyPadding);
  assert.equal(blockedBy[1][0], 0);
});

test('the defaults the schema reports are the ones the core computes with', () => {
  const fields = Object.fromEntries(schema.groups.TraceOptions.map((f) => [f.name, f]));
  assert.equal(fields.heads.default, 1);
  assert.equal(fields.ropeBase.default, 10000);
  const Q = [
    [1, 0, 0.5, 1],
    [0, 1, 1, 0],
    [1, 1, 0, 0],
  ];
  const request = { Q, K: Q, V: Q, rope: true };
  const omitted = lab.trace(request).output;
  const given = lab.trace({ ...request, heads: fields.heads.default, ropeBase: fields.ropeBase.default }).output;
  assert.deepEqual(omitted, given);
  assert.notDeepEqual(lab.trace({ ...request, ropeBase: 100 }).output, omitted, 'ropeBase changes the output, so the comparison can fail');
  const walk = Object.fromEntries(schema.groups.WalkOptions.map((f) => [f.name, f.default]));
  const events = lab.flashWalk({ Q: Q, K: Q, V: Q }).events.filter((e) => e.kind === 'tile');
  assert.equal(events[0].queries, walk.queryRows);
  assert.equal(events[0].keys, walk.keyRows);
});

test('attentionBackward takes dOutput, the name trace() uses, and still its older name dO', () => {
  const Q = [
    [1, 0],
    [0, 1],
  ];
  const request = {
    Q,
    K: Q,
    V: [
      [1, 2],
      [3, 4],
    ],
  };
  const dOutput = [
    [1, 0],
    [0.5, -1],
  ];
  const now = lab.attentionBackward({ ...request, dOutput });
  assert.deepEqual(lab.attentionBackward({ ...request, dO: dOutput }), now);
  assert.notDeepEqual(
    lab.attentionBackward({
      ...request,
      dOutput: [
        [0, 1],
        [1, 0],
      ],
    }),
    now,
  );
  assert.match(errorOf(() => lab.attentionBackward({ ...request, dO: dOutput, dOutput })).message, /^dO is the older name of dOutput: give one of them/);
});

test('kvCacheBytes takes headWidth, the name tilePlan uses, and still its older name headDim', () => {
  const shape = { layers: 2, kvHeads: 4, bytesPerValue: 2 };
  const bytes = 2 * 2 * 4 * 64 * 2; // K and V, per layer, per K/V head, per number
  assert.equal(lab.kvCacheBytes({ ...shape, headWidth: 64 }), bytes);
  assert.equal(lab.kvCacheBytes({ ...shape, headDim: 64 }), bytes);
  assert.equal(lab.kvCacheBytes({ ...shape, headWidth: 32 }), bytes / 2);
  assert.match(errorOf(() => lab.kvCacheBytes({ ...shape, headDim: 64, headWidth: 64 })).message, /^headDim is the older name of headWidth: give one of them/);
  assert.match(errorOf(() => lab.kvCacheBytes(shape)).message, /^headWidth must be a whole number from 1 to \d+, got undefined/);
});
