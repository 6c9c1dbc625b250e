// npm run bench:wasm — the wasm kernels in Node against the peer a web developer would pick:
// tfjs-backend-wasm (matMul → softmax → matMul). n = 512 … 4096, d = 64, one head; a kernel
// is skipped at a size beyond its limits (the naive one stops at 2048).
// Prints a table and stores its rows under "wasm" in bench/results.json.
import { performance } from 'node:perf_hooks';

import { createAttnLab } from '../dist/attnlab.js';
import { normalQKV } from '../tests/support/normal-qkv.js';
import { readResults, writeResults } from './bench-results.mjs';
import { sampledError } from './peers/check.mjs';
import { tfjsWasm } from './peers/wasm.mjs';

const SIZES = (process.env.ATTNLAB_BENCH_N ?? '512,1024,2048,4096').split(',').map(Number);
const D = 64;
const REPEAT = 3;

const { tf, attention: tfjsAttention } = await tfjsWasm();

const lab = await createAttnLab();

const kernels = {
  flash: (Q, K, V, causal) => lab.flashAttention({ Q, K, V, causal }).output.data,
  naive: (Q, K, V, causal) => lab.naiveAttention({ Q, K, V, causal }).output.data,
  'tfjs-wasm': tfjsAttention,
};

const rows = [];
console.log('kernel     n      d  causal  ms(median)  GFLOP/s  max|err|');
for (const causal of [false, true]) {
  for (const n of SIZES) {
    const [Q, K, V] = normalQKV(lab, { n, d: D, seed: n }); // the same inputs for every kernel
    for (const [kernel, run] of Object.entries(kernels)) {
      process.stderr.write(`${kernel} n=${n} causal=${causal}\n`);
      try {
        run(Q, K, V, causal); // warm-up: compiles, allocates
      } catch (error) {
        if (error.code !== 'too-large') throw error;
        console.log(`${kernel.padEnd(10)} ${String(n).padStart(5)}  beyond the wasm build's limits (README, Limits): ${error.message}`);
        continue;
      }
      const times = [];
      let output;
      for (let r = 0; r < REPEAT; r++) {
        const start = performance.now();
        output = run(Q, K, V, causal);
        times.push(performance.now() - start);
      }
      const ms = times.sort((a, b) => a - b)[Math.floor(REPEAT / 2)];
      const flops = 4 * n * n * D * (causal ? 0.5 : 1);
      const row = {
        kernel,
        n,
        d: D,
        heads: 1,
        causal,
        threads: 1,
        ms_median: +ms.toFixed(3),
        gflops: +(flops / ms / 1e6).toFixed(2),
        max_abs_err: +sampledError(Q, K, V, output, { causal }).toPrecision(3),
      };
      rows.push(row);
      console.log(
        `${kernel.padEnd(10)} ${String(n).padStart(5)} ${String(D).padStart(4)}  ${String(causal).padEnd(6)} ${row.ms_median.toFixed(1).padStart(10)} ${row.gflops.toFixed(2).padStart(8)}  ${row.max_abs_err}`,
      );
    }
  }
}

const results = await readResults();
results.wasm = { runtime: `Node ${process.version}, attnlab SIMD: ${lab.simdArch} (wasm SIMD128), tfjs-backend-wasm ${tf.version_core}`, rows };
await writeResults(results);
console.log('bench: wasm figures stored in bench/results.json');
