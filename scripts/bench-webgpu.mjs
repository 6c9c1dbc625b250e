// npm run bench:webgpu — the WGSL kernel against the wasm flash kernel on the same inputs,
// in Node on Dawn (npm 'webgpu'). Prints the adapter it ran on: on SwiftShader (a CPU
// implementation, what this project's machines have) the GPU figures mean little; the
// script runs unchanged on a machine with a real GPU. Stores its rows under "webgpu" in
// bench/results.json.
import { performance } from 'node:perf_hooks';

import { create, globals } from 'webgpu';

import { createAttnLab } from '../dist/attnlab.js';
import { createGpuAttention } from '../dist/webgpu.js';
import { normalQKV } from '../tests/support/normal-qkv.js';
import { readResults, writeResults } from './bench-results.mjs';

Object.assign(globalThis, globals);
const SIZES = (process.env.ATTNLAB_BENCH_N ?? '512,1024,2048,4096').split(',').map(Number);
const D = 64;
const REPEAT = 3;

const dawn = create([]); // Dawn's instance lives as long as this object
const adapter = await dawn.requestAdapter({ powerPreference: 'high-performance' });
if (!adapter) throw new Error('bench-webgpu: no WebGPU adapter (on a machine without a GPU, set VK_ICD_FILENAMES to SwiftShader)');
const info = adapter.info ?? {};
const adapterName = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ') || 'unknown adapter';
console.log(`adapter: ${adapterName}`);
const device = await adapter.requestDevice();
const gpu = await createGpuAttention({ device });
const lab = await createAttnLab();

async function median(run) {
  await run(); // warm-up: pipelines, buffers, JIT
  const times = [];
  for (let r = 0; r < REPEAT; r++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(REPEAT / 2)];
}

const rows = [];
console.log('kernel   n      d  causal  ms(median)  GFLOP/s');
for (const causal of [false, true]) {
  for (const n of SIZES) {
    const [Q, K, V] = normalQKV(lab, { n, d: D, seed: n });
    const flops = 4 * n * n * D * (causal ? 0.5 : 1);
    const kernels = {
      webgpu: () => gpu.attention({ Q, K, V, causal }),
      'wasm-flash': async () => lab.flashAttention({ Q, K, V, causal }),
    };
    for (const [kernel, run] of Object.entries(kernels)) {
      const ms = await median(run);
      const row = { kernel, n, d: D, causal, ms_median: +ms.toFixed(3), gflops: +(flops / ms / 1e6).toFixed(2) };
      rows.push(row);
      console.log(
        `${kernel.padEnd(10)} ${String(n).padStart(5)} ${String(D).padStart(4)}  ${String(causal).padEnd(6)} ${ms.toFixed(1).padStart(10)} ${row.gflops.toFixed(2).padStart(8)}`,
      );
    }
  }
}
gpu.destroy();
device.destroy();

const results = await readResults();
results.webgpu = { adapter: adapterName, rows };
await writeResults(results);
console.log('bench: WebGPU figures stored in bench/results.json');
process.exit(0); // Dawn keeps the event loop alive otherwise
