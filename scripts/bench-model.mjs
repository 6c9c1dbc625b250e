// npm run bench:model — the little language model (model/README.md): one forward pass over a
// full context (the model's 128 tokens) in wasm on one thread, in Node and in Chromium (the
// built package, dist/, served as it ships), and what its first use downloads, gzipped: the
// model module (dist/model.js, attnlab-model.js and .wasm) and the model's files.
// Prints the CPU as lscpu names it; the median of REPEAT passes after WARMUP.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';

import { createAttnLab } from '../dist/attnlab.js';
import { launchChromium } from './chromium.mjs';
import { serveStatic } from './serve.mjs';

const WARMUP = 3;
const REPEAT = 15;
const TEXT = 'We are blessed with peace at home, and are without entangling alliances abroad to forebode trouble. ';

// The text repeated to the model's context: its forward pass's median time in ms.
async function forwardMs(createLab, now) {
  const lab = await createLab();
  const model = await lab.loadModel();
  const once = model.tokenize(TEXT).tokens;
  const tokens = Array.from({ length: model.config.context }, (_, i) => once[i % once.length]);
  for (let i = 0; i < WARMUP; i++) model.forward(tokens);
  const times = [];
  for (let i = 0; i < REPEAT; i++) {
    const start = now();
    model.forward(tokens);
    times.push(now() - start);
  }
  model.delete();
  return { tokens: tokens.length, ms: times.sort((a, b) => a - b)[Math.floor(REPEAT / 2)] };
}

const cpu = execFileSync('lscpu', { encoding: 'utf8' }).match(/^Model name:\s*(.+)$/m)?.[1] ?? 'unknown CPU';
console.log(`CPU (lscpu): ${cpu}`);

const node = await forwardMs(createAttnLab, () => performance.now());
console.log(`forward over ${node.tokens} tokens, wasm in Node ${process.versions.node}, one thread: ${node.ms.toFixed(1)} ms (median of ${REPEAT})`);

const server = await serveStatic('.');
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}/tests/e2e/fixtures/blank.html`);
  const inBrowser = await page.evaluate(
    async ({ source, WARMUP, REPEAT, TEXT }) => {
      // The same measurement, as a page runs it: the package's entry from dist/.
      const forwardMs = new Function('return ' + source)();
      const { createAttnLab } = await import('/dist/attnlab.js');
      return forwardMs(createAttnLab, () => performance.now(), { WARMUP, REPEAT, TEXT });
    },
    {
      source: forwardMs.toString().replace('async function forwardMs(createLab, now)', 'async function (createLab, now, { WARMUP, REPEAT, TEXT })'),
      WARMUP,
      REPEAT,
      TEXT,
    },
  );
  console.log(
    `forward over ${inBrowser.tokens} tokens, wasm in Chromium ${browser.version()}, one thread: ${inBrowser.ms.toFixed(1)} ms (median of ${REPEAT})`,
  );
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
