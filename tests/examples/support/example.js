// Builds an example of web/examples/ as a user would: from a copy inside the scratch project
// that scripts/pack-consumer.sh installed the packed attnlab into, so `attnlab` resolves to
// the tarball's files. The tools (vite, vitepress, tsc) and react come from the repository's
// node_modules, further up.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import { consumerDir, packageDir } from '../../js/support/package.js';

const BIN = resolve('node_modules/.bin');

/** The folder example `name` is copied into and built in. */
export const exampleDir = (name) => join(consumerDir, name);

/** Copies web/examples/NAME (without build output) into exampleDir(name), afresh. */
export async function copyExample(name) {
  const dir = exampleDir(name);
  await rm(dir, { recursive: true, force: true });
  const skip = /[/\\](node_modules|dist|cache)$/;
  await cp(`web/examples/${name}`, dir, { recursive: true, filter: (path) => !skip.test(path) });
  // The point of the copy: the example gets attnlab from the tarball, not from web/.
  const element = createRequire(join(dir, 'package.json')).resolve('attnlab/element');
  assert.ok(element.startsWith(packageDir), `attnlab/element resolves to ${element}, not into ${packageDir}`);
}

/** Runs `name` from node_modules/.bin in `dir`; a failure carries the tool's output. */
export async function tool(dir, name, args) {
  try {
    return await promisify(execFile)(join(BIN, name), args, { cwd: dir, maxBuffer: 16 << 20 });
  } catch (error) {
    throw new Error(`${name} ${args.join(' ')} failed in ${dir}:\n${error.stdout ?? ''}${error.stderr ?? error.message}`, { cause: error });
  }
}
