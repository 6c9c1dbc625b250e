// npm run bench:wasm — the wasm kernels in Node against the peer a web developer would pick:
// tfjs-backend-wasm (matMul → softmax → matMul). n = 512 … 4096, d = 64, one head; a kernel
// is skipped at a size beyond its limits (the naive one stops at 2048).
// Prints a table and stores its rows under "wasm" in bench/results.json.
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

import { createAttnLab } from '../dist/attnlab.js';
import { normalQKV } from '../tests/support/normal-qkv.js';
import { readResults, writeResults } from './bench-results.mjs';

const SIZES = (process.env.ATTNLAB_BENCH_N ?? '512,1024,2048,4096').split(',').map(Number);
const D = 64;
const REPEAT = 3;

const require = createRequire(import.meta.url);
const tf = await import('@tensorflow/tfjs-core');
const tfWasm = await import('@tensorflow/tfjs-backend-wasm');
tfWasm.setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`);
await tf.setBackend('wasm');

const lab = await createAttnLab();

// Max abs error against float64 on 16 evenly spaced query rows.
function sampledError(Q, K, V, output, causal) {
  const { rows: n, cols: d } = Q;
  let worst = 0;
  for (let s = 0; s < 16; s++) {
    const i = Math.round((s * (n - 1)) / 15);
    const keys = causal ? i + 1 : n;
    const p = new Float64Array(keys);
    let max = -Infinity;
    for (let j = 0; j < keys; j++) {
      let dot = 0;
      for (let c = 0; c < d; c++) dot += Q.data[i * d + c] * K.data[j * d + c];
      p[j] = dot / Math.sqrt(d);
      max = Math.max(max, p[j]);
    }
    let sum = 0;
    for (let j = 0; j < keys; j++) sum += p[j] = Math.exp(p[j] - max);
    for (let c = 0; c < d; c++) {
      let o = 0;
      for (let j = 0; j < keys; j++) o += (p[j] / sum) * V.data[j * d + c];
      worst = Math.max(worst, Math.abs(o - output[i * d + c]));
    }
  }
  return worst;
}

const kernels = {
  flash: (Q, K, V, causal) => lab.flashAttention({ Q, K, V, causal }).output.data,
  naive: (Q, K, V, causal) => lab.naiveAttention({ Q, K, V, causal }).output.data,
  'tfjs-wasm': (Q, K, V, causal) =>
    tf.tidy(() => {
      const [q, k, v] = [Q, K, V].map((m) => tf.tensor2d(m.data, [m.rows, m.cols]));
      let scores = tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(Q.cols));
      if (causal) scores = tf.add(scores, tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([Q.rows, Q.rows]), -1, 0)), -1e9));
      return tf.matMul(tf.softmax(scores), v).dataSync();
    }),
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
      const row = { kernel, n, d: D, heads: 1, causal, threads: 1, ms_median: +ms.toFixed(3), gflops: +(flops / ms / 1e6).toFixed(2), max_abs_err: +sampledError(Q, K, V, output, causal).toPrecision(3) };
      rows.push(row);
      console.log(`${kernel.padEnd(10)} ${String(n).padStart(5)} ${String(D).padStart(4)}  ${String(causal).padEnd(6)} ${row.ms_median.toFixed(1).padStart(10)} ${row.gflops.toFixed(2).padStart(8)}  ${row.max_abs_err}`);
    }
  }
}

const results = await readResults();
results.wasm = { runtime: `Node ${process.version}, attnlab SIMD: ${lab.simdArch} (wasm SIMD128), tfjs-backend-wasm ${tf.version_core}`, rows };
await writeResults(results);
console.log('bench: wasm figures stored in bench/results.json');
