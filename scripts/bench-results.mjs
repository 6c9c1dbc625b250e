// bench/results.json: the latest benchmark figures, one section per benchmark, with the
// machine they came from.
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';

export const RESULTS = new URL('../bench/results.json', import.meta.url);

export async function readResults() {
  try {
    return JSON.parse(await readFile(RESULTS, 'utf8'));
  } catch {
    return {};
  }
}

export async function writeResults(results) {
  results.machine = `${cpus()[0].model}, ${cpus().length} CPUs, ${Math.round(totalmem() / 2 ** 30)} GiB`;
  results.updated = new Date().toISOString();
  await writeFile(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
}
