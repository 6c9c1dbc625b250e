// The cases both WebGPU test runs (Chromium and Node) check against the wasm flash kernel.
import { normalQKV } from './normal-qkv.js';

export const GPU_TOLERANCE = 1e-4;

/**
 * n ∈ {1, 7, 64, 1000, 2048} × d ∈ {32, 64} × causal and not, one head; plus two heads; plus
 * the key bands and grouped K/V heads (keys: n_k when not n): bottom-right with more keys than
 * queries and with fewer (its first rows fully masked), a window of two sides, a symmetric one;
 * and softcap with ALiBi on top of those.
 */
export const GPU_CASES = [
  ...[1, 7, 64, 1000, 2048].flatMap((n) => [32, 64].flatMap((d) => [false, true].map((causal) => ({ n, d, heads: 1, causal })))),
  { n: 300, d: 32, heads: 2, causal: true },
  { n: 300, keys: 364, d: 32, heads: 4, kvHeads: 2, causal: true, causalAlignment: 'bottom-right', window: { left: 40, right: 3 } },
  { n: 200, keys: 130, d: 32, heads: 2, kvHeads: 1, causal: true, causalAlignment: 'bottom-right' },
  { n: 1000, d: 64, heads: 1, causal: false, window: 64 },
  { n: 300, keys: 364, d: 32, heads: 4, kvHeads: 2, causal: true, causalAlignment: 'bottom-right', window: { left: 40, right: 3 }, softcap: 2, alibi: true },
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
  for (const { n, keys = n, d, heads, causal, kvHeads, ...band } of cases) {
    const kv = kvHeads ?? heads;
    const [Q] = normalQKV(lab, { n, d: d * heads, seed: 1000 * n + d });
    const [, K, V] = normalQKV(lab, { n: keys, d: d * kv, seed: 1000 * n + d + 1 });
    const request = { Q, K, V, causal, heads, ...(kvHeads ? { kvHeads } : {}), ...band };
    const expected = lab.flashAttention(request);
    const got = await gpu.attention(request);
    // A row listed as fully masked differently counts as a difference.
    const listed = JSON.stringify(got.fullyMaskedRows) === JSON.stringify(expected.fullyMaskedRows) ? 0 : Infinity;
    const name = `n ${n}, keys ${keys}, d ${d}, heads ${heads}, kvHeads ${kv}, causal ${causal} ${JSON.stringify(band)}`;
    results.push({ name, diff: Math.max(listed, maxAbsDiffFlat(got.output.data, expected.output.data)) });
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
