// The packed package as a user receives it: one typed ES entry, the wasm beside it,
// and small downloads.
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';

import { attnlab, packageDir } from './support/package.js';

const manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8'));

test('package.json: ES module, exports map with types first, files whitelist', () => {
  assert.equal(manifest.type, 'module');
  const root = manifest.exports['.'];
  assert.deepEqual(Object.keys(root)[0], 'types');
  assert.ok(Array.isArray(manifest.files));
});

test('the tarball holds the entry, its types and the wasm, and nothing from the source tree', async () => {
  const files = (await readdir(packageDir, { recursive: true })).sort();
  for (const needed of ['dist/attnlab.js', 'dist/attnlab.d.ts', 'dist/attnlab-core.wasm']) {
    assert.ok(files.includes(needed), `${needed} missing from the package`);
  }
  assert.ok(!files.some((f) => f.startsWith('cpp') || f.startsWith('tests') || f.startsWith('build')), files.join(', '));
  const types = await readFile(join(packageDir, manifest.exports['.'].types), 'utf8');
  assert.match(types, /export declare function createAttnLab\(options\?: AttnLabOptions\): Promise<AttnLab>/);
});

test('the public API is the documented one', () => {
  assert.equal(typeof attnlab.createAttnLab, 'function');
  assert.equal(typeof attnlab.AttnLabError, 'function');
  assert.deepEqual(attnlab.ERROR_CODES, ['shape-mismatch', 'non-finite', 'empty', 'too-large', 'invalid-argument', 'out-of-memory']);
  assert.ok(attnlab.STEP_IDS.includes('output-projection'));
});

test('createAttnLab loads the wasm once and uses SIMD', async () => {
  const [a, b] = await Promise.all([attnlab.createAttnLab(), attnlab.createAttnLab()]);
  assert.equal(a.simdArch, 'sse4.1'); // SSE4.1 intrinsics mapped onto wasm SIMD128
  assert.deepEqual(a.attention({ Q: [[1]], K: [[1]], V: [[2]] }).output, b.attention({ Q: [[1]], K: [[1]], V: [[2]] }).output);
});

// What `import 'attnlab'` downloads: the entry (the wrapper with the Emscripten loader in it)
// and the wasm. Every other .js file of dist/ belongs to the element or the WebGPU module.
// 116.4 KB on 2026-12-01 with the cheaper attentions in the core (linear attention and
// retention, FAVOR+, low rank with its SVD, sparse patterns: about 12 KB together) and the
// checks of every input's shape and rules; 118.5 KB (121,360 B) with linear attention and
// retention as long kernels (about 4.8 KB: the chunked kernels, their two entries and the
// blocked matrix product), so 119 KB. No more: the next family, or these grown,
// go to a module loaded on demand, as the learning module is (the cheaper attentions first).
// trace()'s families (issue 37, item 7) keep their steps in the learning module; the core holds
// only their request fields and the refusal that points there (about 0.3 KB), so 120 KB.
test('download size: the entry and its wasm, gzipped, at most 120 KB', async () => {
  const gz = async (name) => gzipSync(await readFile(join(packageDir, 'dist', name)), { level: 9 }).length;
  const sizes = { wasm: await gz('attnlab-core.wasm'), entry: await gz('attnlab.js') };
  const total = sizes.wasm + sizes.entry;
  const learning = (await gz('attnlab-learn.wasm')) + (await gz('attnlab-learn.js'));
  console.log(
    `gzipped sizes: wasm ${sizes.wasm} B, entry (wrapper + loader) ${sizes.entry} B, total ${total} B; the learning module, loaded on demand: ${learning} B`,
  );
  assert.ok(total <= 120 * 1024, `total ${total} B`);
});

// What the first lab.loadModel() without files downloads besides: the model module and the
// model's own files (issue 24: about 2 MB at most, gzipped), none of it in the core's budget.
test('download size: the packaged model, gzipped, at most 2 MB, fetched on its own', async () => {
  const gz = async (path) => gzipSync(await readFile(join(packageDir, path)), { level: 9 }).length;
  const module = (await gz('dist/attnlab-model.wasm')) + (await gz('dist/attnlab-model.js')) + (await gz('dist/model.js'));
  let files = 0;
  for (const name of ['model.json', 'tokenizer.json', 'weights.bin']) files += await gz(`model/${name}`);
  console.log(`gzipped: the model module ${module} B, the model's files ${files} B, total ${module + files} B`);
  assert.ok(module + files <= 2 * 1024 * 1024, `${module + files} B`);
  const entry = await readFile(join(packageDir, 'dist', 'attnlab.js'), 'utf8');
  assert.ok(!entry.includes('weights.bin'), 'the entry itself names no model file: they load with dist/model.js');
});
