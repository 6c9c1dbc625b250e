// npm run docs: builds the docs site into docs/.vitepress/dist/ from the built package
// (scripts/build.sh package: dist/ and custom-elements.json). It writes the generated
// reference pages, copies the package's files beside the pages (docs/public/pkg/ and the model's
// docs/public/model/, where dist/model.js looks for it: what the live views load) and runs
// VitePress.
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, readdir, rm } from 'node:fs/promises';

const PKG = 'docs/public/pkg';
const MODEL = 'docs/public/model';

execFileSync(process.execPath, ['scripts/docs-reference.mjs'], { stdio: 'inherit' });
for (const dir of [PKG, MODEL]) {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
}
for (const name of await readdir('dist')) {
  if (/\.(js|wasm)$/.test(name)) await copyFile(`dist/${name}`, `${PKG}/${name}`);
}
for (const name of ['model.json', 'tokenizer.json', 'weights.bin']) await copyFile(`model/${name}`, `${MODEL}/${name}`);
execFileSync('node_modules/.bin/vitepress', ['build', 'docs'], { stdio: 'inherit' });
