// The peer tables in Markdown, from bench/results.json's "peers" (bench-peers.mjs writes it):
// the native ones for the README (each instruction set, 1 and 2 threads) and all of them, with
// the peaks and wasm, for docs/long-sequences.md, each between its file's `<!-- peers:begin -->` and
// `<!-- peers:end -->`. bench-peers.mjs calls writeTables() after a run; run this file to
// redo them from the stored figures.
import { pathToFileURL } from 'node:url';

import { readResults, replaceBetweenMarkers } from '../bench-results.mjs';
import { describeTargets } from './targets.mjs';

const TARGETS = { readme: new URL('../../README.md', import.meta.url), docs: new URL('../../docs/long-sequences.md', import.meta.url) };
// A cell whose runs spread ((max − min) / median) past this, either kernel's, is marked.
const NOISY_PCT = 25;

const number = (ms) => (ms === undefined ? '—' : ms >= 100 ? Math.round(ms).toLocaleString('en-US') : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const grouped = (n) => n.toLocaleString('en-US');
// Which peer a cell's figure is, by its kernel's first word.
const PEER_NAMES = { ort: 'ORT ', torch: 'PyTorch ' };

// One configuration's attnlab line and its best peer's (ORT or PyTorch natively, onnxruntime-web in wasm).
function pairs(rows) {
  const attnlab = rows.filter((r) => r.kernel === 'attnlab');
  return attnlab.map((a) => {
    const same = (r) => r.section === a.section && r.simd === a.simd && r.threads === a.threads && r.n === a.n && r.d === a.d && r.causal === a.causal;
    const peer = rows.find((r) => same(r) && r.kernel === a.best_peer);
    return { ...a, peer };
  });
}

// "attnlab / peer (ratio×)" for one cell; the ratio is the peer's time over attnlab's.
function cell(pair) {
  if (!pair) return '—';
  if (pair.ms_median === undefined) return `fails: ${pair.error ?? '—'}`;
  if (!pair.peer || pair.peer.ms_median === undefined) return `${number(pair.ms_median)} / fails`;
  const ratio = pair.peer.ms_median / pair.ms_median;
  const mark = ratio < 1 ? ' ✗' : pair.meets_target === false ? ' †' : '';
  const noisy = Math.max(pair.spread_pct ?? 0, pair.peer.spread_pct ?? 0) > NOISY_PCT ? ' ~' : '';
  const lowest = pair.lowest_round_ratio === undefined ? '' : `, rounds ≥ ${pair.lowest_round_ratio.toFixed(2)}`;
  return `${number(pair.ms_median)} / ${number(pair.peer.ms_median)} ${PEER_NAMES[pair.peer.kernel.split('-')[0]] ?? ''}(${ratio.toFixed(2)}×${lowest}${mark})${noisy}`;
}

function nativeTable(list, simd, threadCounts) {
  const columns = [
    [64, false],
    [64, true],
    [128, false],
    [128, true],
  ];
  const header = `| threads | n | ${columns.map(([d, causal]) => `d = ${d}, ${causal ? 'causal' : 'non-causal'}`).join(' | ')} |`;
  const lines = [header, `| ---: | ---: |${' ---: |'.repeat(columns.length)}`];
  const ns = [...new Set(list.filter((p) => p.section === 'native').map((p) => p.n))].sort((a, b) => a - b);
  for (const threads of threadCounts)
    for (const n of ns) {
      const find = (d, causal) =>
        list.find((p) => p.section === 'native' && p.simd === simd && p.threads === threads && p.n === n && p.d === d && p.causal === causal);
      if (!columns.some(([d, causal]) => find(d, causal))) continue;
      lines.push(`| ${threads} | ${grouped(n)} | ${columns.map(([d, causal]) => cell(find(d, causal))).join(' | ')} |`);
    }
  return lines;
}

function wasmTable(list) {
  const rows = list.filter((p) => p.section === 'wasm');
  if (!rows.length) return [];
  const lines = ['| n | non-causal | causal |', '| ---: | ---: | ---: |'];
  for (const n of [...new Set(rows.map((p) => p.n))].sort((a, b) => a - b))
    lines.push(`| ${grouped(n)} | ${cell(rows.find((p) => p.n === n && !p.causal))} | ${cell(rows.find((p) => p.n === n && p.causal))} |`);
  return lines;
}

function peakLine(peers) {
  const named = Object.entries(peers.peaks ?? {}).map(([key, value]) => {
    const [, simd, threads] = key.match(/^fma_(.+)_(\d)$/) ?? [];
    return simd ? `${simd} ${threads} thread${threads === '1' ? '' : 's'} ${value.toFixed(0)}` : `wasm SIMD128 ${value.toFixed(1)}`;
  });
  return `Measured FMA peaks (GFLOP/s): ${named.join(', ')}.`;
}

function machine(peers) {
  const runtimes = Object.values(peers.runtimes ?? {})
    .filter(Boolean)
    .join(', ');
  return `\`lscpu\`: ${peers.cpu}${peers.cpus ? `, ${peers.cpus} vCPUs` : ''}${peers.cpu_flags ? ` (${peers.cpu_flags})` : ''}; ${runtimes}; medians of ${peers.rounds} interleaved rounds${peers.round_ms ? ` (a round: each kernel's median over back-to-back calls lasting about ${peers.round_ms} ms for the fastest, as many for every kernel of the row, at least 3 where a call takes under a second, each burst after an untimed one${peers.long_call_ms ? ` unless a call takes ${peers.long_call_ms} ms or more` : ''}${peers.bursts ? `, in up to ${peers.bursts} bursts interleaved with the other kernels'${peers.long_call_ms ? ' (such long calls each a burst of its own)' : ''}` : ''})` : ''}${dates(peers)}`;
}

// When the figures were measured: the run's date, or each section's date and time (UTC) where
// runs of whole sections measured them apart (bench-peers.mjs).
const SECTION_NAMES = { native: 'native rows', wasm: 'wasm rows', first: 'first call' };
function dates(peers) {
  const sections = Object.entries(peers.sections_measured ?? {});
  if (new Set(sections.map(([, at]) => at)).size > 1)
    return `, ${sections.map(([section, at]) => `${SECTION_NAMES[section] ?? section} ${at.slice(0, 10)} ${at.slice(11, 16)} UTC`).join(', ')}`;
  return peers.measured ? `, ${peers.measured.slice(0, 10)}` : '';
}

// The heading of one instruction set's native table: which kernels each side ran.
function setHeading(list, simd, best) {
  const rows = list.filter((p) => p.section === 'native' && p.simd === simd);
  if (simd === best) return `**attnlab on ${simd}**, ONNX Runtime and PyTorch on the kernels they pick for this CPU:`;
  if (rows.every((p) => p.ort_kernels === 'avx2'))
    return `**attnlab forced to ${simd}**, ONNX Runtime held to AVX2 + FMA3 too (a copy of its library whose one branch to MLAS's AVX-512 kernels is switched off, as on a CPU without AVX-512), PyTorch by ATEN_CPU_CAPABILITY=avx2 with MKL_ENABLE_INSTRUCTIONS=AVX2 and ONEDNN_MAX_CPU_ISA=AVX2:`;
  return `**attnlab forced to ${simd}** (ONNX Runtime has no switch and keeps its AVX-512 kernels, so these rows set ${simd} code against AVX-512 code):`;
}

// The two Markdown blocks for stored figures.
export function tables(peers) {
  const list = pairs(peers.rows ?? []);
  const sets = [...new Set(list.filter((p) => p.section === 'native').map((p) => p.simd))];
  const legend = `Each cell: attnlab ms / the fastest peer's ms, ONNX Runtime's kernels or PyTorch's scaled_dot_product_attention, named (its time over attnlab's, and the lowest ratio of a single round; ✗ where the peer is faster; † where attnlab leads but misses its target: ${describeTargets()}; ~ where either kernel's runs spread more than ${NOISY_PCT}% of its median); 8 heads natively.`;
  const native = sets.flatMap((simd) => ['', setHeading(list, simd, sets[0]), '', ...nativeTable(list, simd, [1, 2])]);
  const readme = [machine(peers), '', legend, ...native];
  const docs = [machine(peers), '', peakLine(peers), '', legend, ...native];
  const wasm = wasmTable(list);
  if (wasm.length) docs.push('', '**wasm in Node, 1 thread, 1 head, d = 64** (attnlab / the faster onnxruntime-web op):', '', ...wasm);
  return { readme: readme.join('\n'), docs: docs.join('\n') };
}

export async function writeTables(peers) {
  const { readme, docs } = tables(peers);
  await replaceBetweenMarkers(TARGETS.readme, 'peers', readme);
  await replaceBetweenMarkers(TARGETS.docs, 'peers', docs);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { peers } = await readResults();
  if (!peers) throw new Error('bench/results.json has no "peers": run npm run bench:peers');
  await writeTables(peers);
  console.log('peer tables written to README.md and docs/long-sequences.md');
}
