// npm run bench:peers — attnlab against the kernels a user would pick instead, on the same
// inputs, interleaved in rounds (issue 15's targets 1 and 2):
//   native (1 and 2 threads; n = 256 … 16,384; d = 64, 128; 8 heads; causal and not):
//     attnlab's flash kernel vs onnxruntime-node (MultiHeadAttention; GroupQueryAttention causal)
//     and PyTorch's CPU scaled_dot_product_attention (is_causal for the causal rows)
//   wasm (1 thread; n = 512 … 4,096; d = 64; one head; causal and not): attnlab's
//     flashAttention vs onnxruntime-web (MultiHeadAttention, opset-23 Attention), tfjs-wasm
// with the measured peaks (FMA natively, SIMD128 in wasm). Every kernel runs once to warm up
// and be checked (max |Δ| against attnlab, attnlab against float64 on sampled rows, ≤ 1e-4),
// then for about ROUND_MS (below) in each round, in BURSTS bursts interleaved with the other
// kernels', in an order that rotates each round and burst. Medians,
// spreads ((max − min) / median) and the targets go to one table, bench/results.json ("peers")
// and bench/peers-native.svg, bench/peers-wasm.svg.
//
// Then the first call (target 5): load, first and later flashAttention in fresh processes.
//
// Native rows run once per instruction set of attnlab's kernels: AVX-512 and forced AVX2 where
// the CPU has AVX-512 (ORT then runs a copy of its library held to AVX2 as well, its rows'
// ort_kernels "avx2"), each row's "% of peak" against the FMA peak of the set it ran; the CPU
// model and its SIMD flags head the table.
//
// Subsets: ATTNLAB_PEERS_QUICK=1 (n ≤ 1,024, d = 64), ATTNLAB_PEERS_SECTIONS=native,wasm,first,
// ATTNLAB_PEERS_N=256,4096 (these sizes only; ATTNLAB_PEERS_D, ATTNLAB_PEERS_THREADS alike),
// ATTNLAB_PEERS_ROUNDS (default 9, issue 41's count; a full run took 74 minutes on 2 vCPUs),
// ATTNLAB_PEERS_SIMD=fma3+avx2 (these instruction sets only), ATTNLAB_PEERS_TORCH=0 (no PyTorch).
// A run of whole sections (ATTNLAB_PEERS_SECTIONS alone) replaces those sections of the stored
// tables and keeps the others, each section with the date it was measured, where the stored
// tables were measured on the same CPU; any other subset is stored apart, as "peers_subset".
// onnxruntime-node/-web 1.30 and torch (PyPI) are installed on demand into build/peers/ (peers/setup.mjs).
import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';

import { createAttnLab } from '../dist/attnlab.js';
import { plot } from './bench-plot.mjs';
import { lscpuMachine, readResults, writeResults } from './bench-results.mjs';
import { maxAbsDifference, seededQKV, sampledError } from './peers/check.mjs';
import { nativeKernels, startDriver, startOrt, startTorch } from './peers/native.mjs';
import { firstCallFigures } from './peers/first-call.mjs';
import { ensurePeers, ensureTorch, MODELS, ORT_HOME, ortWithoutAvx512 } from './peers/setup.mjs';
import { writeTables } from './peers/tables.mjs';
import { meetsTarget } from './peers/targets.mjs';
import { measureSimd128PeakGflops } from './peers/wasm-peak.mjs';
import { tfjsWasm, wasmKernels } from './peers/wasm.mjs';

const env = process.env;
const QUICK = env.ATTNLAB_PEERS_QUICK === '1';
const ROUNDS = Number(env.ATTNLAB_PEERS_ROUNDS ?? 9);
const SECTIONS = (env.ATTNLAB_PEERS_SECTIONS ?? 'native,wasm,first').split(',');
const ONLY_N = env.ATTNLAB_PEERS_N?.split(',').map(Number);
const ONLY_D = env.ATTNLAB_PEERS_D?.split(',').map(Number);
const ONLY_THREADS = env.ATTNLAB_PEERS_THREADS?.split(',').map(Number);
const TOLERANCE = 1e-4;
const SETTLE_MS = 50;
// A round times each kernel over about this long, in back-to-back calls (the same number for
// every kernel of a row), and keeps their median: one call of a millisecond measures the
// neighbours' noise more than the kernel, and one call the neighbours interrupt would be the
// round's figure. Where a call is short, at least 3 calls, after one untimed call: a kernel's
// first call after the settling pause ran 1.04-1.10x the time of the next ones (attnlab, n = 1,024,
// d = 128, AMD EPYC family 25), a cost of the pause, not of the kernel.
const ROUND_MS = 200;
const MAX_CALLS = 32;
// The calls come in up to BURSTS bursts of 2 or more, each kernel's interleaved with the others'
// within the round, so that a slow stretch of the machine's falls on every kernel of a round alike
// rather than on the one it happened to time. On an Intel Xeon (family 6 model 207) every call
// ran 1.2-1.3x slower for 50-200 ms at a time, one to three seconds apart; with a round's calls
// in one burst, attnlab's runs of a row spread 38% and 72% of their median in two runs and a
// round went to PyTorch (AVX2, 1 thread, n = 256, d = 64, lowest 0.94 and 0.72 at medians of
// 1.16x and 1.14x); in 8 bursts of 4, 9% and 6%, lowest 1.05 and 1.10 (medians 1.09x, 1.14x).
const BURSTS = 8;
const SHORT_CALL_MS = 1000;
// A call this long is a burst of its own, with no untimed call before it: the pause cost it
// about 1% (attnlab, n = 4,096, d = 128, 1 thread, AMD EPYC family 25: 663 ms after a 0.4 s
// pause, 641-661 ms back to back), and its row's 3 calls a round, back to back, let one slow
// second of the machine's decide the round (a round at 0.86 in a row whose median was 1.085x).
const LONG_CALL_MS = 100;

// The instruction sets the native rows run attnlab's kernels with (the driver's `simd` reply).
function nativeSimd({ simd, available }) {
  const wanted = env.ATTNLAB_PEERS_SIMD?.split(',') ?? (available.includes('avx512bw') ? ['avx512bw', 'fma3+avx2'] : [simd]);
  const missing = wanted.filter((name) => !available.includes(name));
  if (missing.length) throw new Error(`bench:peers: this CPU does not run ${missing.join(', ')} (it runs ${available.join(', ')})`);
  return wanted;
}

function plannedRows(simdSets) {
  const rows = [];
  const keep = (n) => (!ONLY_N || ONLY_N.includes(n)) && (!QUICK || n <= 1024);
  if (SECTIONS.includes('native'))
    for (const simd of simdSets)
      for (const threads of [1, 2].filter((t) => !ONLY_THREADS || ONLY_THREADS.includes(t)))
        for (const d of (QUICK ? [64] : [64, 128]).filter((x) => !ONLY_D || ONLY_D.includes(x)))
          for (const causal of [false, true])
            for (const n of [256, 1024, 4096, 16384].filter(keep)) rows.push({ section: 'native', simd, threads, n, d, heads: 8, causal });
  if (SECTIONS.includes('wasm'))
    for (const causal of [false, true])
      for (const n of [512, 1024, 2048, 4096].filter(keep)) rows.push({ section: 'wasm', simd: 'simd128', threads: 1, n, d: 64, heads: 1, causal });
  return rows;
}

const firstLine = (error) =>
  String(error?.message ?? error)
    .split('\n')[0]
    .slice(0, 120);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Warm-up and checks, then ROUNDS interleaved rounds: { name → { times, error, check, calls } },
// times each round's median of the kernel's `calls` calls (back to back within a burst).
async function measure(row, kernels, Q, K, V) {
  const results = Object.fromEntries(kernels.map((k) => [k.name, { times: [] }]));
  const outputs = {};
  for (const kernel of kernels) {
    try {
      outputs[kernel.name] = (await kernel.run({ keepOutput: true })).output;
    } catch (error) {
      results[kernel.name].error = firstLine(error);
    }
  }
  const reference = outputs.attnlab;
  if (reference) results.attnlab.check = { float64: sampledError(Q, K, V, reference, row) };
  for (const [name, output] of Object.entries(outputs))
    if (name !== 'attnlab' && reference) results[name].check = { attnlab: maxAbsDifference(output, reference) };
  // A second warm-up call (the first compiles, in V8's tiers) sizes the rounds' batches.
  const warm = [];
  for (const kernel of kernels) {
    if (results[kernel.name].error) continue;
    try {
      warm.push((await kernel.run({ keepOutput: false })).times[0]);
    } catch (error) {
      results[kernel.name].error = firstLine(error);
    }
  }
  const fastest = Math.min(...warm);
  const short = fastest < SHORT_CALL_MS;
  const long = fastest >= LONG_CALL_MS;
  const calls = Math.max(short ? 3 : 1, Math.min(MAX_CALLS, Math.round(ROUND_MS / fastest)));
  // 2 calls or more a burst, after an untimed one; long calls one a burst, alone.
  const bursts = long ? Math.min(BURSTS, calls) : Math.max(1, Math.min(BURSTS, Math.floor(calls / 2)));
  const warmUp = short && !long;
  const perBurst = Math.ceil(calls / bursts);
  for (const result of Object.values(results)) result.calls = bursts * perBurst;
  for (let round = 0; round < ROUNDS; round++) {
    const times = Object.fromEntries(kernels.map((k) => [k.name, []])); // this round's calls
    for (let burst = 0; burst < bursts; burst++)
      for (let i = 0; i < kernels.length; i++) {
        const kernel = kernels[(i + round + burst) % kernels.length];
        if (results[kernel.name].error) continue;
        // ORT's idle threads spin for a while after a run; a pause keeps them off the cores
        // the next kernel is timed on.
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        try {
          if (warmUp) await kernel.run({ keepOutput: false });
          times[kernel.name].push(...(await kernel.run({ keepOutput: false, calls: perBurst })).times);
        } catch (error) {
          results[kernel.name].error = firstLine(error);
        }
      }
    for (const kernel of kernels) if (!results[kernel.name].error) results[kernel.name].times.push(median(times[kernel.name]));
  }
  for (const kernel of kernels) await kernel.release?.();
  return results;
}

// The table's rows for one measured configuration, the target judged on attnlab's.
function summarise(row, results, peak) {
  const flops = 4 * row.n * row.n * row.d * row.heads * (row.causal ? 0.5 : 1);
  const lines = Object.entries(results).map(([kernel, r]) => {
    const ms = r.times.length ? median(r.times) : undefined;
    const line = { ...row, kernel, ...(r.error && { error: r.error }), ...(r.check && { check: r.check }) };
    if (ms === undefined) return line;
    const gflops = flops / ms / 1e6;
    const spread = (Math.max(...r.times) - Math.min(...r.times)) / ms;
    return {
      ...line,
      calls_per_round: r.calls,
      ms_median: +ms.toFixed(3),
      spread_pct: +(100 * spread).toFixed(1),
      gflops: +gflops.toFixed(2),
      pct_peak: +((100 * gflops) / peak).toFixed(1),
    };
  });
  const [attnlab, ...peers] = lines;
  // The peers the targets name: ORT and PyTorch natively, onnxruntime-web's two ops in wasm (not tfjs).
  const rivals = peers.filter((p) => p.kernel.startsWith('ort') || p.kernel.startsWith('torch'));
  const timed = rivals.filter((p) => p.ms_median !== undefined);
  if (attnlab.ms_median !== undefined && timed.length) {
    const best = timed.reduce((a, b) => (a.ms_median <= b.ms_median ? a : b));
    attnlab.best_peer = best.kernel;
    attnlab.best_peer_over_attnlab = +(best.ms_median / attnlab.ms_median).toFixed(3);
    // Each round times every kernel once (one batch of calls), so round r's ratio is the best peer's time over
    // attnlab's in that round; its lowest says whether one busy round could flip the row.
    const rounds = Math.min(results[best.kernel].times.length, results.attnlab.times.length);
    const ratios = Array.from({ length: rounds }, (_, r) => results[best.kernel].times[r] / results.attnlab.times[r]);
    if (rounds) attnlab.lowest_round_ratio = +Math.min(...ratios).toFixed(3);
  }
  if (attnlab.ms_median !== undefined) attnlab.meets_target = meetsTarget(row, attnlab, timed.length > 0);
  return lines;
}

const cell = (value, width, digits = 1) => (value === undefined ? '—' : typeof value === 'number' ? value.toFixed(digits) : String(value)).padStart(width);
function print(line) {
  const check = line.check?.float64 ?? line.check?.attnlab;
  const flag = check > TOLERANCE ? ' CHECK FAILED' : '';
  const target = line.meets_target === undefined ? '' : line.meets_target ? 'yes' : 'no';
  console.log(
    `${line.section.padEnd(6)} ${line.simd.padEnd(9)} ${cell(line.threads, 3, 0)} ${cell(line.n, 6, 0)} ${cell(line.d, 4, 0)} ${(line.causal ? 'yes' : 'no').padEnd(6)} ${line.kernel.padEnd(17)}` +
      `${cell(line.ms_median, 10, 2)} ${cell(line.spread_pct, 6)}% ${cell(line.gflops, 8)} ${cell(line.pct_peak, 6)}% ${cell(line.best_peer_over_attnlab, 6, 2)} ${cell(line.lowest_round_ratio, 6, 2)} ` +
      `${check === undefined ? '—'.padStart(8) : check.toExponential(1).padStart(8)}${flag} ${target.padEnd(3)}${line.error ? ` failed: ${line.error}` : ''}`,
  );
}

const { cpu, flags: cpuFlags } = lscpuMachine();
const { ortWeb, versions: ortVersions } = await ensurePeers();
const torchPython = SECTIONS.includes('native') ? ensureTorch() : undefined;
const driver = SECTIONS.includes('native') ? startDriver() : undefined;
const simdReply = driver ? await driver.ask('simd') : undefined;
const simdSets = driver ? nativeSimd(simdReply) : [];
// ORT's kernels per set: the installed library runs the CPU's best; where attnlab is forced
// to AVX2 below AVX-512, so is ORT (its copy without the AVX-512 branch, peers/setup.mjs).
const ortKernels = (simd) => (simd === 'fma3+avx2' && simdReply.available.includes('avx512bw') ? 'avx2' : 'installed');
const ortPeers = {};
const ortFor = (simd) => (ortPeers[ortKernels(simd)] ??= startOrt(ortKernels(simd) === 'avx2' ? ortWithoutAvx512() : ORT_HOME, MODELS));
// PyTorch likewise: the capability it picks itself, or held to AVX2 (ATen, MKL and oneDNN: startTorch).
const torchPeers = {};
const torchFor = (simd) => torchPython && (torchPeers[ortKernels(simd)] ??= startTorch(torchPython, ortKernels(simd) === 'avx2'));
const torchVersion = torchPython ? await torchFor(simdSets[0]).ask('version') : undefined;
// Each runtime's versions apart, so that withSections can keep PyTorch's with the native rows.
const runtimes = { ort: ortVersions, torch: torchVersion && `torch ${torchVersion.torch} (its CPU capability here: ${torchVersion.capability})` };
const versions = [runtimes.ort, runtimes.torch].filter(Boolean).join(', ');
const rows = plannedRows(simdSets);
const heading = `bench:peers on ${cpu} (${cpuFlags || 'no AVX or FMA flags'}); attnlab's native kernels: ${simdSets.join(', ') || '—'}; ${ROUNDS} rounds${QUICK ? ' (quick subset)' : ''}; ${versions}`;
console.log(heading);

// FMA peaks per instruction set and thread count ("fma_avx512bw_2"), SIMD128's for wasm.
const peaks = {};
const peakKey = (row) => (row.section === 'wasm' ? 'simd128' : `fma_${row.simd}_${row.threads}`);
const measurePeaks = async () => {
  for (const simd of simdSets) {
    await driver.ask(`simd ${simd}`);
    for (const t of [1, 2]) peaks[`fma_${simd}_${t}`] = Math.max(peaks[`fma_${simd}_${t}`] ?? 0, (await driver.ask(`peak ${t}`)).peak_gflops);
  }
  if (SECTIONS.includes('wasm')) peaks.simd128 = Math.max(peaks.simd128 ?? 0, await measureSimd128PeakGflops());
};
await measurePeaks(); // before and after the rows, the higher kept: "% of peak" errs low
const lab = SECTIONS.includes('wasm') ? await createAttnLab() : undefined;
const threadedLab = SECTIONS.includes('wasm') ? await createAttnLab({ threads: true }) : undefined; // target 3
const tfjs = SECTIONS.includes('wasm') ? await tfjsWasm() : undefined;

const measured = [];
for (const row of rows) {
  const [Q, K, V] = seededQKV({ ...row, seed: row.n + row.d });
  if (row.section === 'native') {
    await driver.ask(`simd ${row.simd}`);
    row.ort_kernels = ortKernels(row.simd);
  }
  const kernels =
    row.section === 'native'
      ? await nativeKernels({ driver, ort: ortFor(row.simd), torch: torchFor(row.simd), row, Q, K, V })
      : wasmKernels({ lab, threadedLab, ortWeb, tfjs, models: MODELS, row, Q, K, V });
  const results = await measure(row, kernels, Q, K, V);
  const report = Object.entries(results).map(([name, r]) => `${name} ${r.error ? 'failed' : `${median(r.times).toFixed(1)} ms`}`);
  process.stderr.write(`bench:peers: ${row.section} ${row.simd} t=${row.threads} n=${row.n} d=${row.d} causal=${row.causal}: ${report.join(', ')}\n`);
  measured.push([row, results]);
}
await measurePeaks();
driver?.stop();
for (const peer of [...Object.values(ortPeers), ...Object.values(torchPeers)]) peer.stop();

const table = measured.flatMap(([row, results]) => summarise(row, results, peaks[peakKey(row)]));
console.log(heading);
console.log(
  `peaks (GFLOP/s, the higher of before and after): ${Object.entries(peaks)
    .map(([k, v]) => `${k} ${v.toFixed(1)}`)
    .join(', ')}`,
);
console.log('section simd      thr      n    d causal kernel              ms(med) spread  GFLOP/s  %peak  peer/us  lowest   max|Δ|  target');
table.forEach(print);
const failedChecks = table.filter((l) => (l.check?.float64 ?? l.check?.attnlab) > TOLERANCE);
console.log(
  `checks: ${failedChecks.length ? `${failedChecks.length} FAILED (max |Δ| > ${TOLERANCE})` : `every output within ${TOLERANCE} of attnlab's, attnlab's within it of float64`}`,
);
console.log(
  "peer/us: the fastest peer's median (ORT or PyTorch natively, onnxruntime-web in wasm) over attnlab's (> 1: attnlab is faster); lowest: the lowest ratio of a single round; max|Δ|: a peer against attnlab, attnlab against float64 (16 rows a head)",
);
// Target 3: the threaded core's speed-up from 1 to 2 threads.
for (const [row, results] of measured.filter(([row]) => row.section === 'wasm')) {
  const [one, two] = ['attnlab-thr1', 'attnlab-thr2'].map((name) => results[name]?.times.length && median(results[name].times));
  if (one && two)
    console.log(
      `wasm threads, n = ${row.n}, causal ${row.causal}: 1 thread ${one.toFixed(2)} ms, 2 threads ${two.toFixed(2)} ms, ${(one / two).toFixed(2)}× (issue 41: ≥ 1.4× at n = 1,024)`,
    );
}
if (failedChecks.length) process.exitCode = 1;

// Target 5: a fresh process's first call against its later ones, with V8's tiers forced
// either way (Liftoff only: the baseline code a first call starts in; no Liftoff: TurboFan
// compiled during the first call).
const firstCall = SECTIONS.includes('first') ? firstCallFigures({ processes: QUICK ? 3 : 5 }) : undefined;
for (const f of firstCall ?? [])
  console.log(
    `first call, wasm flashAttention n = 4,096, d = 64 (median of ${f.processes} fresh Node processes, ${f.node_flags}): load ${f.load_ms} ms, first call ${f.first_ms} ms, later calls ${f.later_ms} ms`,
  );

const results = await readResults();
const subset = QUICK || ONLY_N || ONLY_D || ONLY_THREADS || env.ATTNLAB_PEERS_SIMD ? true : undefined;
const measuredAt = new Date().toISOString();
const run = {
  cpu,
  cpus: cpus().length,
  cpu_flags: cpuFlags,
  runtimes,
  rounds: ROUNDS,
  round_ms: ROUND_MS,
  bursts: BURSTS,
  long_call_ms: LONG_CALL_MS,
  measured: measuredAt,
  sections_measured: Object.fromEntries(SECTIONS.map((section) => [section, measuredAt])),
  subset,
  peaks,
  rows: table,
  first_call: firstCall,
};
// A subset's figures are kept apart, so that the tables stay whole; so are some sections of
// another CPU's, which would share a machine line with the sections they join.
const sameCpu = (stored) => stored.cpu === run.cpu && stored.cpus === run.cpus && stored.cpu_flags === run.cpu_flags;
const tabled = !subset && (SECTIONS.length === 3 || !results.peers || sameCpu(results.peers));
if (!subset && !tabled) console.log(`bench:peers: the stored tables come from another CPU (${results.peers.cpu}); run every section to replace them`);
if (tabled) results.peers = withSections(results.peers, run);
else results.peers_subset = { ...run, subset: true };
await writeResults(results);
// The stored tables with the sections this run measured replaced by its own, the others kept.
function withSections(stored, fresh) {
  if (!stored || SECTIONS.length === 3) return fresh;
  const earlier = stored.sections_measured ?? { native: stored.measured, wasm: stored.measured, first: stored.measured };
  return {
    ...fresh,
    // PyTorch runs in the native section only: where that section is kept, so is its version.
    runtimes: SECTIONS.includes('native') ? fresh.runtimes : { ...fresh.runtimes, torch: stored.runtimes?.torch },
    sections_measured: { ...earlier, ...fresh.sections_measured },
    peaks: { ...stored.peaks, ...fresh.peaks },
    rows: [...stored.rows.filter((row) => !SECTIONS.includes(row.section)), ...fresh.rows],
    first_call: SECTIONS.includes('first') ? fresh.first_call : stored.first_call,
  };
}

// A full run's tables and charts go into the README and the docs; a subset's would leave rows out.
if (tabled) await writeTables(results.peers);
const COLORS = {
  attnlab: '#0072b2',
  'ort-mha': '#d55e00',
  'ort-gqa': '#e69f00',
  'torch-sdpa': '#009e73',
  'ort-web-mha': '#d55e00',
  'ort-web-attention': '#e69f00',
  'tfjs-wasm': '#cc79a7',
};
const charted = { native: (l) => l.d === 64 && l.threads === 2 && l.simd === simdSets[0], wasm: () => true };
for (const [section, keep] of tabled ? Object.entries(charted) : []) {
  const lines = table.filter((l) => l.section === section && l.ms_median !== undefined && keep(l));
  if (lines.length) await writeFile(new URL(`../bench/peers-${section}.svg`, import.meta.url), plot(lines, COLORS));
}
console.log(
  `bench:peers: figures stored under "${tabled ? 'peers' : 'peers_subset'}" in bench/results.json, charts in bench/peers-native.svg (d = 64, 2 threads) and bench/peers-wasm.svg`,
);
