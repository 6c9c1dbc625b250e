// Runs build/native/attnlab-bench (cpp/apps/bench) with the given arguments and --json: one
// JSON row per kernel × causal, each printed by `describe` as it comes. For the bench scripts.
import { spawnSync } from 'node:child_process';

export const BENCH = 'build/native/attnlab-bench';

export function benchRows(args, describe) {
  const run = spawnSync(BENCH, [...args.map(String), '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) throw new Error(`${BENCH} ${args.join(' ')} failed (exit ${run.status})`);
  return run.stdout
    .trim()
    .split('\n')
    .map((line) => {
      const row = JSON.parse(line);
      console.log(describe(row));
      return row;
    });
}
