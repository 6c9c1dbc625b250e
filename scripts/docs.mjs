// npm run docs: builds the docs site into docs/.vitepress/dist/ from the built package
// (scripts/build.sh package: dist/ and custom-elements.json). It writes the generated
// reference pages, copies the package's files beside the pages (docs/public/pkg/, what the
// live views load) and runs VitePress.
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, readdir, rm } from 'node:fs/promises';

const PKG = 'docs/public/pkg';

execFileSync(process.execPath, ['scripts/docs-reference.mjs'], { stdio: 'inherit' });
await rm(PKG, { recursive: true, force: true });
await mkdir(PKG, { recursive: true });
for (const name of await readdir('dist')) {
  if (/\.(js|wasm)$/.test(name)) await copyFile(`dist/${name}`, `${PKG}/${name}`);
}
execFileSync('node_modules/.bin/vitepress', ['build', 'docs'], { stdio: 'inherit' });
