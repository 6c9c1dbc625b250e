// npm run bench:efficient — the long linear-attention (elu) and retention (γ = 0.99) kernels
// against the exact flash kernel, d = 64, 8 heads, causal and not (retention: causal only),
// n = 256 … 32,768: natively (build/native/attnlab-bench) and in wasm (the package's threaded
// core in Node, dist/attnlab.js: lab.flashAttention, lab.longLinearAttention, lab.longRetention
// on lab.threads threads), and the crossover n of each: the smallest n of the sweep from which
// the linear kernel is faster than flash. Prints the machine (lscpu's model and SIMD flags) and
// the load average first, since every figure depends on them; rows print as they come.
// ATTNLAB_BENCH_N=1024,4096 narrows the sweep; ATTNLAB_BENCH_THREADS sets the threads (0: all);
// ATTNLAB_BENCH_TARGETS=native or wasm runs one of the two; ATTNLAB_BENCH_FLASH_MAX=16384 times
// native flash only up to that n (on a loaded 2-vCPU machine flash at 32,768 takes minutes: its
// n² work is 4× that of 16,384). In wasm flash stops at n = 4,096, where one head's n² scores
// reach limits().flashScores (16.8 M).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

import { benchRows } from './native-bench.mjs';

// n = 65,536 with 8 heads of 64 is 33.5 M values per matrix, past limits::flash_values (16.8 M),
// which every long kernel takes, natively and in wasm: the sweep ends at 32,768.
const SIZES = (process.env.ATTNLAB_BENCH_N ?? '256,512,1024,2048,4096,8192,16384,32768').split(',').map(Number);
const THREADS = process.env.ATTNLAB_BENCH_THREADS ?? '0';
const FLASH_MAX = Number(process.env.ATTNLAB_BENCH_FLASH_MAX ?? Infinity);
const TARGETS = (process.env.ATTNLAB_BENCH_TARGETS ?? 'native,wasm').split(',');
const [D, HEADS, DECAY] = [64, 8, 0.99];
// Fewer repeats where one run already takes seconds (flash at 32,768 takes a minute or more).
const repeats = (n) => (n <= 4096 ? 3 : 1);

const lscpu = spawnSync('lscpu', { encoding: 'utf8' }).stdout ?? '';
const field = (name) => lscpu.match(new RegExp(`^${name}:\\s*(.*)$`, 'm'))?.[1].trim() ?? '?';
const simdFlags = field('Flags')
  .split(' ')
  .filter((flag) => /^(sse4_2|avx|avx2|fma|avx512f|avx512bw)$/.test(flag));
console.log(`machine: ${field('Model name')}, ${field('CPU\\(s\\)')} vCPUs; SIMD flags: ${simdFlags.join(' ')}`);
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`load average at start: ${loadAverage()}`);

const describe = (row) =>
  `${row.target.padEnd(6)} ${row.kernel.padEnd(9)} n=${String(row.n).padStart(5)} causal=${String(row.causal).padEnd(5)} ${row.ms_median.toFixed(1).padStart(9)} ms` +
  (row.gflops === undefined ? '' : `  ${row.gflops.toFixed(1)} GFLOP/s`);

/** The native rows, from attnlab-bench. */
function nativeRows() {
  const rows = [];
  for (const n of SIZES) {
    const kernels = n <= FLASH_MAX ? 'flash,linear,retention' : 'linear,retention';
    const args = ['--n', n, '--d', D, '--heads', HEADS, '--causal', '0,1', '--kernel', kernels, '--repeat', repeats(n), '--threads', THREADS];
    rows.push(...benchRows(args, (row) => describe({ ...row, target: 'native' })));
  }
  return { rows, heading: `native, SIMD ${rows[0]?.simd}, ${rows[0]?.threads} threads` };
}

// Flash's 8 heads in wasm as 8 / h calls of h heads each, h the most that limits().flashScores
// (n_q·n_k·heads per call) allows: the same work in pieces, each call on min(h, threads)
// threads (one task per head), so where h = 1 flash runs on one thread and its cell says so.
const headsPerCall = (lab, n) => [8, 4, 2, 1].find((h) => n * n * h <= lab.limits().flashScores);
const columns = (m, first, count) => {
  const data = new Float32Array(m.rows * count);
  for (let i = 0; i < m.rows; i++) data.set(m.data.subarray(i * m.cols + first, i * m.cols + first + count), i * count);
  return { rows: m.rows, cols: count, data };
};

/** The wasm rows: the package's threaded core in Node, each kernel's median of repeats(n) runs (after a warm-up up to 1,024). */
async function wasmRows() {
  const { createAttnLab } = await import('../dist/attnlab.js');
  const lab = await createAttnLab({ threads: true });
  const threads = Number(THREADS) || lab.threads;
  const rows = [];
  const notes = [];
  for (const n of SIZES) {
    const [Q, K, V] = [1, 2, 3].map((seed) => lab.normalMatrix({ rows: n, cols: D * HEADS, seed }));
    const h = headsPerCall(lab, n);
    const pieces =
      h && Array.from({ length: HEADS / h }, (_, c) => ({ Q: columns(Q, c * h * D, h * D), K: columns(K, c * h * D, h * D), V: columns(V, c * h * D, h * D) }));
    const kernels = {
      flash: h && ((causal) => pieces.forEach((m) => lab.flashAttention({ ...m, heads: h, causal, threads }))),
      linear: (causal) => lab.longLinearAttention({ Q, K, V, heads: HEADS, causal, threads }),
      retention: () => lab.longRetention({ Q, K, V, heads: HEADS, decay: DECAY, threads }),
    };
    if (!h)
      notes.push(
        `flash at n = ${n.toLocaleString('en-US')}: one head's n² scores pass limits().flashScores (${lab.limits().flashScores.toLocaleString('en-US')})`,
      );
    else if (h < HEADS)
      notes.push(
        `flash at n = ${n.toLocaleString('en-US')}: ${HEADS / h} calls of ${h} head${h > 1 ? 's' : ''}${h < threads ? ', so on one thread' : ''} (limits().flashScores)`,
      );
    for (const [kernel, run] of Object.entries(kernels))
      for (const causal of kernel === 'retention' ? [true] : [false, true]) {
        if (!run) continue;
        if (n <= 1024) run(causal); // warm-up: compiles, allocates
        const times = [];
        for (let r = 0; r < repeats(n); r++) {
          const start = performance.now();
          run(causal);
          times.push(performance.now() - start);
        }
        const row = { target: 'wasm', kernel, n, causal, ms_median: times.sort((a, b) => a - b)[Math.floor(times.length / 2)] };
        console.log(describe(row));
        rows.push(row);
      }
  }
  return { rows, heading: `wasm in Node ${process.version}, the threaded core (SIMD128, lab.simdArch ${lab.simdArch}), ${threads} threads`, notes };
}

/** The table of one target's rows (ms, median) and its crossovers. */
function report({ rows, heading, notes = [] }) {
  const time = (kernel, n, causal) => rows.find((r) => r.kernel === kernel && r.n === n && r.causal === causal)?.ms_median;
  const cell = (ms) => (ms === undefined ? '—' : ms >= 100 ? Math.round(ms).toLocaleString('en-US') : ms.toFixed(1));
  console.log(`\n${heading}, d = ${D}, ${HEADS} heads, ms (median)`);
  console.log('| n | flash | linear | flash, causal | linear, causal | retention, causal |');
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const n of SIZES) {
    const cells = [time('flash', n, false), time('linear', n, false), time('flash', n, true), time('linear', n, true), time('retention', n, true)];
    console.log(`| ${n.toLocaleString('en-US')} | ${cells.map(cell).join(' | ')} |`);
  }
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
  for (const note of notes) console.log(`(${note})`);
  console.log(
    `crossover (faster than flash from): linear ${crossover('linear', false)}; linear causal ${crossover('linear', true)}; retention causal ${crossover('retention', true)}`,
  );
}

const tables = [];
if (TARGETS.includes('native')) tables.push(nativeRows());
if (TARGETS.includes('wasm')) tables.push(await wasmRows());
tables.forEach(report);
console.log(`\nload average at the end: ${loadAverage()}`);
