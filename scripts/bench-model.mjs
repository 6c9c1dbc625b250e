// npm run bench:model — the little language model (model/README.md) against onnxruntime-web on
// the same weights: one forward pass over a full context (the model's 128 tokens) in wasm on one
// thread, in Node and in Chromium (the built package, dist/, served as it ships), and what its
// first use downloads, gzipped: the model module (dist/model.js, attnlab-model.js and .wasm)
// and the model's files.
// The peer runs scripts/model-onnx.py's export of model/ (Debian's python3-onnx writes it;
// onnxruntime-web 1.30 from build/peers/, peers/setup.mjs), and its logits must match attnlab's
// within 1e-4. Timed in interleaved rounds: attnlab's forward() with every block copied out,
// forward() with { blocks: false } (the logits alone, what the peer returns), loss() (no logits
// converted to arrays), and the peer's session.run(). Prints the CPU as lscpu names it; the
// median of REPEAT rounds after WARMUP.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';

import { createAttnLab } from '../dist/attnlab.js';
import { launchChromium } from './chromium.mjs';
import { ensurePeers, MODELS } from './peers/setup.mjs';
import { serveStatic } from './serve.mjs';

const WARMUP = 3;
const REPEAT = 15;
const TEXT = 'We are blessed with peace at home, and are without entangling alliances abroad to forebode trouble. ';
const TOLERANCE = 1e-4;
const ONNX = `${MODELS}/model.onnx`;

// The text repeated to the model's context, through attnlab and through onnxruntime-web's
// session on the export (`onnx`: its path or bytes): each one's median time in ms, and the
// largest difference of their logits.
async function measure(createLab, ort, onnx, now, { WARMUP, REPEAT, TEXT }) {
  const lab = await createLab();
  const model = await lab.loadModel();
  const once = model.tokenize(TEXT).tokenIds;
  const tokens = Array.from({ length: model.config.contextLength }, (_, i) => once[i % once.length]);
  const session = await ort.InferenceSession.create(onnx, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  const feeds = { token_ids: new ort.Tensor('int64', BigInt64Array.from(tokens, BigInt), [1, tokens.length]) };
  const runs = {
    forward: async () => model.forward(tokens),
    logits: async () => model.forward(tokens, { blocks: false }),
    loss: async () => model.loss(tokens),
    peer: async () => session.run(feeds),
  };
  const { logits } = model.forward(tokens, { blocks: false });
  const peer = (await session.run(feeds)).logits.data;
  let maxDiff = 0;
  logits.forEach((row, i) => row.forEach((x, j) => (maxDiff = Math.max(maxDiff, Math.abs(x - peer[i * row.length + j])))));
  for (let i = 0; i < WARMUP; i++) for (const run of Object.values(runs)) await run();
  const times = Object.fromEntries(Object.keys(runs).map((name) => [name, []]));
  for (let i = 0; i < REPEAT; i++)
    for (const [name, run] of Object.entries(runs)) {
      const start = now();
      await run();
      times[name].push(now() - start);
    }
  await session.release();
  model.delete();
  const median = (list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)];
  return { tokens: tokens.length, maxDiff, ...Object.fromEntries(Object.entries(times).map(([name, list]) => [name, median(list)])) };
}

function report(where, m) {
  if (!(m.maxDiff <= TOLERANCE)) throw new Error(`bench:model: onnxruntime-web's logits differ from attnlab's by ${m.maxDiff} in ${where} (over ${TOLERANCE})`);
  console.log(
    `${where}, ${m.tokens} tokens, one thread (median of ${REPEAT}): attnlab forward() ${m.forward.toFixed(1)} ms with every block, ` +
      `${m.logits.toFixed(1)} ms with { blocks: false }, loss() ${m.loss.toFixed(1)} ms; onnxruntime-web ${m.peer.toFixed(1)} ms ` +
      `(peer / attnlab, logits alone: ${(m.peer / m.logits).toFixed(2)}×; logits max|Δ| ${m.maxDiff.toExponential(1)})`,
  );
}

const cpu = execFileSync('lscpu', { encoding: 'utf8' }).match(/^Model name:\s*(.+)$/m)?.[1] ?? 'unknown CPU';
console.log(`CPU (lscpu): ${cpu}`);
const { ortWeb, versions } = await ensurePeers();
execFileSync('/usr/bin/python3', [new URL('model-onnx.py', import.meta.url).pathname, 'model', ONNX], { stdio: 'inherit' });
console.log(versions);

const settings = { WARMUP, REPEAT, TEXT };
report(`Node ${process.versions.node}`, await measure(createAttnLab, ortWeb, ONNX, () => performance.now(), settings));

const server = await serveStatic('.');
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}/tests/e2e/fixtures/blank.html`);
  const inBrowser = await page.evaluate(
    async ({ source, settings }) => {
      // The same measurement, as a page runs it: the package's entry from dist/, the peer's
      // single-threaded wasm build from build/peers/.
      const measure = new Function('return ' + source)();
      const { createAttnLab } = await import('/dist/attnlab.js');
      const ort = await import('/build/peers/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs');
      ort.env.wasm.wasmPaths = '/build/peers/node_modules/onnxruntime-web/dist/';
      ort.env.wasm.numThreads = 1;
      const onnx = new Uint8Array(await (await fetch('/build/peers/models/model.onnx')).arrayBuffer());
      return measure(createAttnLab, ort, onnx, () => performance.now(), settings);
    },
    { source: measure.toString(), settings },
  );
  report(`Chromium ${browser.version()}`, inBrowser);
} finally {
  await browser.close();
  await server.close();
}

const gz = async (path) => gzipSync(await readFile(path), { level: 9 }).length;
const module = (await gz('dist/model.js')) + (await gz('dist/attnlab-model.js')) + (await gz('dist/attnlab-model.wasm'));
let files = 0;
for (const name of ['model.json', 'tokenizer.json', 'weights.bin']) files += await gz(`model/${name}`);
console.log(
  `download on first use, gzipped: the model module ${module} B + the model's files ${files} B = ${module + files} B (${((module + files) / 1024 / 1024).toFixed(2)} MiB)`,
);
