// npm run bench — the standard native sweep: n = 256 … 16,384, d = 64, 8 heads, causal and
// not, for the naive, flash and OpenBLAS kernels. Stores the rows under "native" in
// bench/results.json and draws bench/results.svg (time and GFLOP/s against n).
import { writeFile } from 'node:fs/promises';

import { readResults, writeResults } from './bench-results.mjs';
import { plot } from './bench-plot.mjs';
import { benchRows } from './native-bench.mjs';

const SIZES = (process.env.ATTNLAB_BENCH_N ?? '256,512,1024,2048,4096,8192,16384').split(',');
// Fewer repeats where one run already takes seconds.
const repeats = (n) => (n <= 2048 ? 5 : n <= 4096 ? 3 : 1);

const rows = [];
for (const n of SIZES)
  rows.push(
    ...benchRows(
      ['--n', n, '--d', '64', '--heads', '8', '--causal', '0,1', '--kernel', 'naive,flash,blas', '--repeat', repeats(Number(n))],
      (row) =>
        `${row.kernel.padEnd(6)} ${row.simd.padEnd(9)} n=${String(row.n).padStart(5)} causal=${String(row.causal).padEnd(5)} ${row.ms_median.toFixed(1).padStart(9)} ms ${row.gflops.toFixed(1).padStart(7)} GFLOP/s ${row.pct_peak.toFixed(1).padStart(5)}% of peak  err ${row.max_abs_err.toExponential(1)}  RSS ${row.peak_rss_mb.toFixed(0)} MB`,
    ),
  );

const results = await readResults();
results.native = { rows };
await writeResults(results);
await writeFile(new URL('../bench/results.svg', import.meta.url), plot(rows));
console.log('bench: native figures stored in bench/results.json, plot in bench/results.svg');
