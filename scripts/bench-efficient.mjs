// npm run bench:efficient — the long linear-attention (elu) and retention (γ = 0.99) kernels
// against the exact flash kernel, native (build/native/attnlab-bench), n = 256 … 32,768,
// d = 64, 8 heads, causal and not (retention: causal only), and the crossover n: the smallest
// n of the sweep from which each linear kernel is faster than flash. Prints the machine
// (lscpu's model and SIMD flags) first, since every figure depends on it.
// ATTNLAB_BENCH_N=1024,4096 narrows the sweep; ATTNLAB_BENCH_THREADS sets the threads;
// ATTNLAB_BENCH_FLASH_MAX=16384 times flash only up to that n (on a loaded 2-vCPU machine flash
// at 32,768 takes minutes: its n² work is 4× that of 16,384). Rows print as they come.
import { spawnSync } from 'node:child_process';

import { benchRows } from './native-bench.mjs';

// n = 65,536 with 8 heads of 64 is 33.5 M values per matrix, past limits::flash_values (16.8 M),
// which every long kernel takes: the sweep ends at 32,768 (256 and 512 find the crossover).
const SIZES = (process.env.ATTNLAB_BENCH_N ?? '256,512,1024,2048,4096,8192,16384,32768').split(',').map(Number);
const THREADS = process.env.ATTNLAB_BENCH_THREADS ?? '0';
const FLASH_MAX = Number(process.env.ATTNLAB_BENCH_FLASH_MAX ?? Infinity);
// Fewer repeats where one run already takes seconds (flash at 65,536 takes a minute or more).
const repeats = (n) => (n <= 4096 ? 3 : 1);

const lscpu = spawnSync('lscpu', { encoding: 'utf8' }).stdout ?? '';
const field = (name) => lscpu.match(new RegExp(`^${name}:\\s*(.*)$`, 'm'))?.[1].trim() ?? '?';
const simdFlags = field('Flags')
  .split(' ')
  .filter((flag) => /^(sse4_2|avx|avx2|fma|avx512f|avx512bw)$/.test(flag));
console.log(`machine: ${field('Model name')}, ${field('CPU\\(s\\)')} vCPUs; SIMD flags: ${simdFlags.join(' ')}`);
const load = spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.trim();
console.log(`load average at start: ${load}`);

const rows = [];
for (const n of SIZES)
  rows.push(
    ...benchRows(
      [
        '--n',
        n,
        '--d',
        '64',
        '--heads',
        '8',
        '--causal',
        '0,1',
        '--kernel',
        n <= FLASH_MAX ? 'flash,linear,retention' : 'linear,retention',
        '--repeat',
        repeats(n),
        '--threads',
        THREADS,
      ],
      (row) =>
        `${row.kernel.padEnd(9)} n=${String(row.n).padStart(5)} causal=${String(row.causal).padEnd(5)} ${row.ms_median.toFixed(1).padStart(9)} ms  ${row.gflops.toFixed(1)} GFLOP/s`,
    ),
  );

const time = (kernel, n, causal) => rows.find((r) => r.kernel === kernel && r.n === n && r.causal === causal)?.ms_median;
const cell = (ms) => (ms === undefined ? '—' : ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
console.log(`\nSIMD ${rows[0]?.simd}, ${rows[0]?.threads} threads, d = 64, 8 heads, ms (median)`);
console.log('| n | flash | linear | flash, causal | linear, causal | retention, causal |');
console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
for (const n of SIZES)
  console.log(
    `| ${n.toLocaleString('en-US')} | ${cell(time('flash', n, false))} | ${cell(time('linear', n, false))} | ${cell(time('flash', n, true))} | ${cell(time('linear', n, true))} | ${cell(time('retention', n, true))} |`,
  );

// The crossover: the first n of the sweep from which the kernel stays faster than flash.
const crossover = (kernel, causal) => {
  let from;
  for (const n of [...SIZES].reverse()) {
    const flash = time('flash', n, causal);
    if (flash === undefined) continue; // flash not timed at this n
    if (time(kernel, n, causal) < flash) from = n;
    else break;
  }
  return from === undefined ? 'not within the sweep' : `n = ${from.toLocaleString('en-US')}`;
};
console.log(
  `\ncrossover (faster than flash from): linear ${crossover('linear', false)}; linear causal ${crossover('linear', true)}; retention causal ${crossover('retention', true)}`,
);
