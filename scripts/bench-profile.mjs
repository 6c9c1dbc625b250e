// npm run bench:profile: where the native flash kernel's time goes, row by row, and a roofline.
// For each row (8 heads; n = 256 … 16,384; d = 64 and 128; causal or not; 1 and 2 threads;
// the CPU's best instruction set, or ATTNLAB_PROFILE_SIMD's), attnlab-peer times calls without
// and with the kernel's phase timers (attnlab::start_flash_profile), interleaved, medians of
// ROUNDS: the time is the untimed calls', the split the timed calls' (their timers cost about
// 1%). A phase's share is its seconds summed over the workers over the call's wall time times
// its threads; "other" is the rest: the checks, the scan of the inputs, gathering K and V, the
// pool, waiting for the last worker.
//
// The roofline: the measured FMA peak (peak.cpp) and read bandwidth (attnlab-peer's
// `bandwidth`: a buffer far past the caches, and one a quarter of the L3 per thread) against
// each row's arithmetic intensity, its FLOPs (4 · n_q · n_k · d per head, halved causal) over
// the bytes it must read and write at least (Q, K, V and O once). Every row lies far right of
// where the memory roofs meet the peak: the gap to the peak is inside the core, in the phases.
//
// Writes bench/results.json's "profile", bench/roofline.svg and the table in
// docs/long-sequences.md between its profile markers. ATTNLAB_PROFILE_N (e.g. "256,4096")
// runs a subset, kept apart ("profile_subset") and left out of the docs; `--redraw` redraws the
// chart and the table from the stored figures.
import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';

import { lscpuMachine, readResults, replaceBetweenMarkers, writeResults } from './bench-results.mjs';
import { seededQKV } from './peers/check.mjs';
import { startDriver, writeInputs } from './peers/native.mjs';

const env = process.env;
const ROUNDS = Number(env.ATTNLAB_PROFILE_ROUNDS ?? 5);
const ONLY_N = env.ATTNLAB_PROFILE_N?.split(',').map(Number);
const ROUND_MS = 200; // each round's calls last about this long
const PHASES = ['transpose_in', 'scores', 'softmax', 'value', 'transpose_out'];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (process.argv.includes('--redraw')) {
  const { profile } = await readResults();
  if (!profile) throw new Error('bench/results.json has no "profile": run npm run bench:profile');
  await writeFigures(profile);
  process.exit(0);
}

const driver = startDriver();
const { simd: best, available } = await driver.ask(env.ATTNLAB_PROFILE_SIMD ? `simd ${env.ATTNLAB_PROFILE_SIMD}` : 'simd');
const { cpu, flags } = lscpuMachine();
console.log(`bench:profile on ${cpu} (${flags}); attnlab's native kernels: ${best} (this CPU runs ${available.join(', ')}); medians of ${ROUNDS} rounds`);

const peaks = {};
const bandwidth = {};
for (const threads of [1, 2]) {
  peaks[threads] = (await driver.ask(`peak ${threads}`)).peak_gflops;
  bandwidth[`memory_${threads}`] = (await driver.ask(`bandwidth ${threads} 512`)).gb_per_s;
  bandwidth[`l3_${threads}`] = (await driver.ask(`bandwidth ${threads} 4`)).gb_per_s;
}
console.log(`FMA peak (GFLOP/s): 1 thread ${peaks[1]}, 2 threads ${peaks[2]}; read bandwidth (GB/s): ${JSON.stringify(bandwidth)}`);

const rows = [];
for (const threads of [1, 2])
  for (const d of [64, 128])
    for (const causal of [false, true])
      for (const n of [256, 1024, 4096, 16384].filter((x) => !ONLY_N || ONLY_N.includes(x))) rows.push({ threads, n, d, heads: 8, causal });

const measured = [];
for (const row of rows) {
  const { n, d, heads, causal, threads } = row;
  const [Q, K, V] = seededQKV({ n, d, heads, seed: n + d });
  const inputs = await writeInputs(Q, K, V);
  const line = (command, calls) => `${command} ${inputs} ${n} ${d} ${heads} ${causal ? 1 : 0} ${threads} - ${calls}`;
  const warm = (await driver.ask(line('run', 1))).ms;
  const calls = Math.max(1, Math.min(64, Math.round(ROUND_MS / warm)));
  const plain = [];
  const timed = [];
  for (let round = 0; round < ROUNDS; round++) {
    plain.push((await driver.ask(line('run', calls))).ms);
    timed.push(await driver.ask(line('profile', calls)));
  }
  const ms = median(plain);
  const flops = 4 * n * n * d * heads * (causal ? 0.5 : 1);
  const share = {};
  for (const phase of PHASES) share[phase] = median(timed.map((t) => t.phases[phase] / ((t.ms / 1000) * threads)));
  share.other = Math.max(0, 1 - PHASES.reduce((sum, phase) => sum + share[phase], 0));
  const bytes = 4 * n * d * heads * 4; // Q, K, V and O, float32, once each
  const result = {
    ...row,
    simd: best,
    calls,
    ms: +ms.toFixed(3),
    profiled_ms: +median(timed.map((t) => t.ms)).toFixed(3),
    gflops: +(flops / ms / 1e6).toFixed(1),
    pct_peak: +((100 * flops) / ms / 1e6 / peaks[threads]).toFixed(1),
    flop_per_byte: +(flops / bytes).toFixed(1),
    share: Object.fromEntries(Object.entries(share).map(([k, v]) => [k, +(100 * v).toFixed(1)])),
  };
  measured.push(result);
  const split = [...PHASES, 'other'].map((p) => `${p} ${result.share[p]}%`).join(', ');
  console.log(
    `t=${threads} n=${n} d=${d} causal=${causal}: ${result.ms} ms, ${result.gflops} GFLOP/s (${result.pct_peak}% of peak), ${result.flop_per_byte} FLOP/B; ${split}`,
  );
}
driver.stop();

const subset = ONLY_N ? true : undefined;
const results = await readResults();
const profile = {
  cpu,
  cpus: cpus().length,
  cpu_flags: flags,
  simd: best,
  rounds: ROUNDS,
  measured: new Date().toISOString(),
  subset,
  peaks,
  bandwidth,
  rows: measured,
};
results[subset ? 'profile_subset' : 'profile'] = profile;
await writeResults(results);
if (!subset) await writeFigures(profile);
console.log(
  `bench:profile: figures stored under "${subset ? 'profile_subset' : 'profile'}" in bench/results.json${subset ? '' : ', the roofline in bench/roofline.svg, the table in docs/long-sequences.md'}`,
);

async function writeFigures(profile) {
  await writeFile(new URL('../bench/roofline.svg', import.meta.url), roofline(profile));
  await replaceBetweenMarkers(new URL('../docs/long-sequences.md', import.meta.url), 'profile', table(profile));
}

// The Markdown table of a profile: one line per row, the shares of its time in percent.
function table(p) {
  const round = (x) => Math.round(x).toLocaleString('en-US');
  const { peaks, bandwidth: bw } = p;
  const head =
    `\`lscpu\`: ${p.cpu}, ${p.cpus} vCPUs; ${p.simd}; 8 heads; medians of ${p.rounds} rounds, ${p.measured.slice(0, 10)}. ` +
    `FMA peak ${round(peaks[1])} GFLOP/s on 1 thread, ${round(peaks[2])} on 2; read bandwidth from memory ${round(bw.memory_1)} GB/s on 1 thread, ` +
    `${round(bw.memory_2)} on 2, from a quarter of the L3 per thread ${round(bw.l3_1)} and ${round(bw.l3_2)}. Shares of each call's wall time × threads:`;
  const lines = [
    '| threads | n | d | causal | ms | % of peak | FLOP/B | Qᵀ in | scores | softmax | value | Oᵀ out | other |',
    '| --: | --: | --: | :-: | --: | --: | --: | --: | --: | --: | --: | --: | --: |',
    ...p.rows.map(
      (r) =>
        `| ${r.threads} | ${r.n.toLocaleString('en-US')} | ${r.d} | ${r.causal ? 'yes' : 'no'} | ${r.ms >= 100 ? round(r.ms) : r.ms} | ${r.pct_peak}% | ${r.flop_per_byte.toLocaleString('en-US')} | ` +
        [...PHASES, 'other'].map((phase) => `${r.share[phase]}%`).join(' | ') +
        ' |',
    ),
  ];
  return [head, '', ...lines].join('\n');
}

// The roofline as SVG: log-log GFLOP/s against FLOP per byte, the peaks flat, the memory roofs
// rising, one point per row (blue: 1 thread, orange: 2; filled: non-causal; square: d = 128).
function roofline(p) {
  const [W, H, M] = [600, 360, { left: 60, right: 190, top: 30, bottom: 44 }];
  const [x0, x1, y0, y1] = [0, 4, 1, 3]; // log10 ranges: 1 … 10^4 FLOP/B, 10 … 1,000 GFLOP/s
  const px = (ai) => M.left + ((Math.log10(ai) - x0) / (x1 - x0)) * (W - M.left - M.right);
  const py = (g) => H - M.bottom - ((Math.log10(g) - y0) / (y1 - y0)) * (H - M.top - M.bottom);
  const colors = { 1: '#0072b2', 2: '#d55e00' };
  const parts = [`<text x="${(W - M.right + M.left) / 2}" y="18" text-anchor="middle" font-weight="bold">flash kernel roofline (${p.simd})</text>`];
  for (let e = x0; e <= x1; e++)
    parts.push(
      `<line x1="${px(10 ** e)}" x2="${px(10 ** e)}" y1="${py(10 ** y0)}" y2="${py(10 ** y1)}" stroke="#eee"/><text x="${px(10 ** e)}" y="${H - M.bottom + 16}" text-anchor="middle">${10 ** e}</text>`,
    );
  for (let e = y0; e <= y1; e++)
    parts.push(
      `<line x1="${px(10 ** x0)}" x2="${px(10 ** x1)}" y1="${py(10 ** e)}" y2="${py(10 ** e)}" stroke="#eee"/><text x="${M.left - 6}" y="${py(10 ** e) + 4}" text-anchor="end">${10 ** e}</text>`,
    );
  parts.push(`<text x="${(W - M.right + M.left) / 2}" y="${H - 8}" text-anchor="middle">FLOP per byte of Q, K, V and O</text>`);
  parts.push(`<text x="14" y="${(H - M.bottom + M.top) / 2}" transform="rotate(-90 14 ${(H - M.bottom + M.top) / 2})" text-anchor="middle">GFLOP/s</text>`);
  for (const threads of [1, 2]) {
    const peak = p.peaks[threads];
    for (const [name, dash] of [
      ['memory', '6 4'],
      ['l3', '2 3'],
    ]) {
      const gbs = p.bandwidth[`${name}_${threads}`];
      const ridge = peak / gbs;
      const start = Math.max(10 ** x0, 10 ** y0 / gbs);
      parts.push(
        `<polyline points="${px(start)},${py(start * gbs)} ${px(ridge)},${py(peak)}" fill="none" stroke="${colors[threads]}" stroke-dasharray="${dash}"/>`,
      );
    }
    parts.push(
      `<line x1="${px(peak / p.bandwidth[`l3_${threads}`])}" x2="${px(10 ** x1)}" y1="${py(peak)}" y2="${py(peak)}" stroke="${colors[threads]}" stroke-width="2"/>`,
    );
    parts.push(`<text x="${W - M.right + 6}" y="${py(peak) + 4}" fill="${colors[threads]}">FMA peak, ${threads} thread${threads > 1 ? 's' : ''}</text>`);
    for (const r of p.rows.filter((x) => x.threads === threads)) {
      const [x, y] = [px(r.flop_per_byte), py(r.gflops)];
      const paint = `fill="${r.causal ? 'white' : colors[threads]}" stroke="${colors[threads]}"`;
      const title = `<title>n = ${r.n}, d = ${r.d}${r.causal ? ', causal' : ''}, ${threads} thread(s): ${r.gflops} GFLOP/s</title>`;
      parts.push(
        r.d === 128
          ? `<rect x="${(x - 4).toFixed(1)}" y="${(y - 4).toFixed(1)}" width="8" height="8" ${paint}>${title}</rect>`
          : `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="4" ${paint}>${title}</circle>`,
      );
    }
  }
  const legend = ['dashed: memory bandwidth', 'dotted: L3 bandwidth', 'filled: non-causal', 'open: causal', 'circle: d = 64', 'square: d = 128'];
  legend.forEach((text, i) => parts.push(`<text x="${W - M.right + 6}" y="${H - M.bottom - 96 + 14 * i}" font-size="10">${text}</text>`));
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11"><rect width="${W}" height="${H}" fill="white"/>${parts.join('')}</svg>\n`;
}
