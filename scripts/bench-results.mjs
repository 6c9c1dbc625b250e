// bench/results.json: the latest benchmark figures, one section per benchmark, with the
// machine they came from.
import { execFileSync } from 'node:child_process';
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

/** `lscpu`'s model name and its AVX, FMA and SSE4 flags: the machine a figure names. */
export function lscpuMachine() {
  const lscpu = execFileSync('lscpu', { encoding: 'utf8' });
  // The model name alone ("AMD EPYC") does not tell one generation from the next; the family does.
  const name = lscpu.match(/Model name:\s*(.+)/)?.[1] ?? 'unknown CPU';
  const family = lscpu.match(/CPU family:\s*(\d+)/)?.[1];
  const cpu = family ? `${name} (family ${family})` : name;
  const flags = (lscpu.match(/Flags:\s*(.+)/)?.[1] ?? '')
    .split(' ')
    .filter((f) => /^(avx|fma|sse4)/.test(f))
    .join(' ');
  return { cpu, flags };
}

/** Replaces what lies between `<!-- name:begin -->` and `<!-- name:end -->` in the file at `url`. */
export async function replaceBetweenMarkers(url, name, block) {
  const [begin, end] = [`<!-- ${name}:begin -->`, `<!-- ${name}:end -->`];
  const text = await readFile(url, 'utf8');
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${url.pathname} has no ${begin} … ${end} markers`);
  await writeFile(url, `${text.slice(0, from + begin.length)}\n${block}\n${text.slice(to)}`);
}
