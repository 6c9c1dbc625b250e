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

/**
 * `count` requests of different lengths, widths, head counts and seeds, all in flight at once
 * through `gpu` (started before any settles); each result against lab.flashAttention on the
 * same request. Returns [{ name, diff }] in request order.
 */
export async function compareConcurrently(lab, gpu, count) {
  const requests = Array.from({ length: count }, (_, i) => {
    const n = 1 + ((i * 97) % 700);
    const heads = 1 + (i % 2);
    const [Q, K, V] = normalQKV(lab, { n, d: (i % 3 === 2 ? 64 : 32) * heads, seed: 7000 + i });
    return { Q, K, V, causal: i % 4 < 2, heads };
  });
  const results = await Promise.all(requests.map((request) => gpu.attention(request)));
  return results.map(({ output }, i) => {
    const { Q, causal, heads } = requests[i];
    const name = `call ${i + 1} of ${count}: n ${Q.rows}, width ${Q.cols}, heads ${heads}, causal ${causal}`;
    return { name, diff: maxAbsDiffFlat(output.data, lab.flashAttention(requests[i]).output.data) };
  });
}
