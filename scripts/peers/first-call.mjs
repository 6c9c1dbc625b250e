// Issue 15, target 5: how much slower a process's first flashAttention (n = 4,096, d = 64, one
// head) is than its later ones. Run as a fresh process (node scripts/peers/first-call.mjs
// [V8 flags go before the script]); prints { load_ms, first_ms, later_ms } as one JSON line.
// firstCallFigures() runs it in several processes for bench-peers.mjs.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { seededQKV } from './check.mjs';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measureThisProcess() {
  const { createAttnLab } = await import('../../dist/attnlab.js');
  const [Q, K, V] = seededQKV({ n: 4096, d: 64, seed: 1 });
  const start = performance.now();
  const lab = await createAttnLab();
  const load = performance.now() - start;
  const times = [];
  for (let i = 0; i < 4; i++) {
    const t = performance.now();
    lab.flashAttention({ Q, K, V });
    times.push(performance.now() - t);
  }
  return { load_ms: +load.toFixed(1), first_ms: +times[0].toFixed(1), later_ms: +median(times.slice(1)).toFixed(1) };
}

/** Medians over `processes` fresh Node processes, for each list of V8 flags. */
export function firstCallFigures({ processes = 5, variants = [[], ['--liftoff-only'], ['--no-liftoff']] } = {}) {
  return variants.map((flags) => {
    const runs = Array.from({ length: processes }, () =>
      JSON.parse(execFileSync(process.execPath, [...flags, fileURLToPath(import.meta.url)], { encoding: 'utf8' })),
    );
    const pick = (field) => median(runs.map((r) => r[field]));
    return { node_flags: flags.join(' ') || '(default)', processes, load_ms: pick('load_ms'), first_ms: pick('first_ms'), later_ms: pick('later_ms') };
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(await measureThisProcess()));
