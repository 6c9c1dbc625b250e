// The cases both WebGPU test runs (Chromium and Node) check against the wasm flash kernel.
import { normalQKV } from './normal-qkv.js';

export const GPU_TOLERANCE = 1e-4;

/** n ∈ {1, 7, 64, 1000, 2048} × d ∈ {32, 64} × causal and not, one head; plus two heads. */
export const GPU_CASES = [
  ...[1, 7, 64, 1000, 2048].flatMap((n) =>
    [32, 64].flatMap((d) => [false, true].map((causal) => ({ n, d, heads: 1, causal }))),
  ),
  { n: 300, d: 32, heads: 2, causal: true },
];

/** Max |a − b| over two flat float32 arrays of one length; Infinity otherwise or on NaN. */
function maxAbsDiffFlat(a, b) {
  if (a.length !== b.length) return Infinity;
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return Number.isNaN(max) ? Infinity : max;
}

/**
 * Runs every case through `gpu` and `lab`; returns [{ name, diff }].
 * Works in Node and, passed in through page.evaluate, in the browser.
 */
export async function compareWithWasm(lab, gpu, cases) {
  const results = [];
  for (const { n, d, heads, causal } of cases) {
    const [Q, K, V] = normalQKV(lab, { n, d: d * heads, seed: 1000 * n + d });
    const expected = lab.flashAttention({ Q, K, V, causal, heads }).output.data;
    const got = (await gpu.attention({ Q, K, V, causal, heads })).output.data;
    results.push({ name: `n ${n}, d ${d}, heads ${heads}, causal ${causal}`, diff: maxAbsDiffFlat(got, expected) });
  }
  return results;
}
