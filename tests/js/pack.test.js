// The npm package is complete (issue 18): `npm pack --dry-run` lists exactly what a user
// needs (the built entries, their types, the wasm, the manifest, the LICENSE and every file
// the README links to) and nothing from the sources, tests or builds; and every relative
// link or image in the packed README points at a file inside the package.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { test } from 'node:test';

const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
const files = new Set(pack.files.map((f) => f.path));
const MODEL_FILES = ['model/model.json', 'model/tokenizer.json', 'model/weights.bin'];

test('the tarball holds the entries, their types, the wasm, the manifest and the LICENSE', () => {
  const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
  const required = ['package.json', 'README.md', 'LICENSE', 'custom-elements.json', 'dist/attnlab-core.wasm', 'dist/attnlab.js'];
  // The threaded core (createAttnLab({ threads: true })): its loader and its workers' script,
  // as a browser and as Node load it.
  required.push('dist/attnlab-core-threads.js', 'dist/attnlab-core-threads.worker.js', 'dist/attnlab-core-threads.worker.cjs');
  // The little language model that lab.loadModel() reads when given no files.
  required.push(...MODEL_FILES);
  // Every file an export condition names.
  for (const conditions of Object.values(manifest.exports)) {
    for (const target of typeof conditions === 'string' ? [conditions] : Object.values(conditions)) required.push(target.replace(/^\.\//, ''));
  }
  for (const path of required) assert.ok(files.has(path), `${path} is missing from the tarball`);
  assert.match(readFileSync('LICENSE', 'utf8'), new RegExp(`^${manifest.license} License`));
});

test('nothing from the sources, tests, builds or tooling is packed', () => {
  const allowed =
    /^(package\.json|README\.md|LICENSE|custom-elements\.json|dist\/[^/]+\.(js|cjs|d\.ts|wasm)|model\/(model\.json|tokenizer\.json|weights\.bin)|docs\/(screenshot|train|notebooks-light|notebooks-dark)\.png|docs\/views\/(geometry|model)\.jpg|docs\/[a-z-]+\.md|web\/element\/README\.md|web\/examples\/tutorial\.(html|css)|web\/examples\/react\/(index\.html|package\.json|tsconfig\.json|src\/[A-Za-z]+\.tsx)|web\/examples\/vitepress\/(index\.md|package\.json|\.vitepress\/config\.mjs))$/;
  const stray = [...files].filter((path) => !allowed.test(path));
  assert.deepEqual(stray, []);
  assert.ok(![...files].some((path) => path.endsWith('.map')), 'no source maps');
});

// The README, and the docs pages it links to (packaged so that its links work on npm): every
// relative link and image in them is a file in the package.
test('every relative link and image in the packed README and docs pages is a file in the package', () => {
  const pages = ['README.md', ...[...files].filter((path) => /^docs\/[a-z-]+\.md$/.test(path))];
  assert.ok(pages.length > 1, 'the docs pages are packaged');
  // A link to a folder (ending in /) needs a file inside it.
  const packed = (path) => (path.endsWith('/') ? [...files].some((file) => file.startsWith(path)) : files.has(path));
  for (const page of pages) {
    const text = readFileSync(page, 'utf8');
    const targets = [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]).filter((href) => !/^(https?:|#|mailto:)/.test(href));
    if (page === 'README.md') assert.ok(targets.length > 0, 'the README links to files');
    const base = posix.dirname(page);
    // docs/reference/ is what the docs site's build generates from the typings and the manifest,
    // which the package ships as dist/*.d.ts and custom-elements.json.
    const missing = targets
      .map((href) => posix.normalize(posix.join(base, href.split('#')[0])))
      .filter((path) => !packed(path) && !path.startsWith('docs/reference/'));
    assert.deepEqual(missing, [], `${page}'s links`);
  }
});

// Two budgets: the little language model's own files (issue 24 allows it about 2 MB), and
// everything else, which keeps the budget it had before the model shipped.
test("the package stays small: the model at most 2 MB, the rest under 3 MB unpacked (the README's screenshots are most of it)", () => {
  const model = pack.files.filter((f) => MODEL_FILES.includes(f.path)).reduce((sum, f) => sum + f.size, 0);
  const rest = pack.unpackedSize - model;
  console.log(`npm pack: ${pack.files.length} files, ${pack.size} B packed, ${pack.unpackedSize} B unpacked: the model's files ${model} B, the rest ${rest} B`);
  assert.ok(model > 0 && model <= 2 * 1024 * 1024, `the model's files: ${model} B`);
  assert.ok(rest < 3 * 1024 * 1024, `the rest: ${rest} B unpacked`);
});
