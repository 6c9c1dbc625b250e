// Loads attnlab from the scratch project that scripts/pack-consumer.sh installed it into,
// so the tests exercise the packed tarball, not the source tree.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const consumerDir = resolve(process.env.ATTNLAB_CONSUMER ?? 'build/js-consumer');
export const packageDir = join(consumerDir, 'node_modules', 'attnlab');

/**
 * Imports `specifier` ('attnlab', 'attnlab/webgpu') as the scratch project would; a `query`
 * ('?again') gives a fresh instance of the module itself.
 */
export function importFromConsumer(specifier, query = '') {
  const entry = createRequire(join(consumerDir, 'package.json')).resolve(specifier);
  return import(pathToFileURL(entry).href + query);
}

export const attnlab = await importFromConsumer('attnlab');

/** The golden cases the native build wrote (see tests/cpp/golden_writer.cpp). */
export async function goldenCases() {
  const golden = JSON.parse(await readFile(join(consumerDir, 'golden.json'), 'utf8'));
  return golden.cases;
}

/** JSON has no infinities: the golden file writes masked logits (-Infinity) as null. */
export function fromGolden(matrix) {
  return matrix.map((row) => row.map((v) => (v === null ? -Infinity : v)));
}

export { maxAbsDiff } from '../../support/compare.js';

/** What call() throws: { code, message } of its AttnLabError, or { code: 'no error' }. */
export function errorOf(call) {
  try {
    call();
  } catch (error) {
    if (!(error instanceof attnlab.AttnLabError)) throw error;
    return { code: error.code, message: error.message };
  }
  return { code: 'no error', message: '' };
}
