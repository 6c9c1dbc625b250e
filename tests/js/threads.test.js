// The threaded core (issue 15, target 3): createAttnLab({ threads: true }) loads the core built
// with pthreads in Node; its long-sequence kernels give, on any number of threads, the very
// values of the single-threaded core, and those agree with a float64 reference.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { test } from 'node:test';

import { multiHead } from '../support/float64-steps.js';
import { attnlab, errorOf, importFromConsumer, maxAbsDiff } from './support/package.js';

const single = await attnlab.createAttnLab();
const threaded = await attnlab.createAttnLab({ threads: true });

// Deterministic values in [-1, 1), as flat float32 matrices.
function matrix(rows, cols, seed) {
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < data.length; i++) data[i] = Math.sin(seed * 1000 + i * 12.9898) % 1;
  return { rows, cols, data };
}
const nested = ({ rows, cols, data }) => Array.from({ length: rows }, (_, r) => Array.from(data.subarray(r * cols, (r + 1) * cols)));

test('lab.threads: 1 for the single-threaded core, the CPUs (at most 4) for the threaded one', () => {
  assert.equal(single.threads, 1);
  assert.equal(threaded.threads, Math.min(4, cpus().length));
  assert.equal(threaded.simdArch, single.simdArch);
});

for (const [n, d, heads, causal] of [
  [1, 8, 1, false],
  [130, 16, 3, true],
  [300, 64, 2, false],
  [700, 32, 1, true],
]) {
  test(`the threaded core on 1, 2 and all threads equals the single-threaded one: n ${n}, d ${d}, ${heads} head(s), causal ${causal}`, () => {
    const [Q, K, V] = [1, 2, 3].map((seed) => matrix(n, d * heads, seed));
    for (const entry of ['flashAttention', 'naiveAttention']) {
      const expected = single[entry]({ Q, K, V, causal, heads }).output.data;
      for (const threads of [1, 2, 0, 64]) {
        const got = threaded[entry]({ Q, K, V, causal, heads, threads }).output.data;
        assert.deepEqual(got, expected, `${entry}, threads ${threads}`);
      }
    }
    if (n > 300) return; // the float64 reference is O(n²) in plain JS
    const reference = multiHead({ Q: nested(Q), K: nested(K), V: nested(V), causal, heads }).concat;
    assert.ok(maxAbsDiff(nested(threaded.flashAttention({ Q, K, V, causal, heads }).output), reference) <= 1e-5);
  });
}

test('threads must be a whole number, createAttnLab takes { threads: boolean }', async () => {
  const Q = matrix(4, 8, 1);
  for (const threads of [-1, 1.5, '2', null]) {
    const error = errorOf(() => threaded.flashAttention({ Q, K: Q, V: Q, threads }));
    assert.equal(error.code, 'invalid-argument', `threads ${threads}`);
    assert.match(error.message, /threads/);
  }
  for (const options of [{ threads: 'yes' }, { thread: true }, 5]) {
    await assert.rejects(
      attnlab.createAttnLab(options),
      (error) => error instanceof attnlab.AttnLabError && error.code === 'invalid-argument' && /thread|createAttnLab/.test(error.message),
    );
  }
});

test('a refused call leaves the threaded core holding what it held', () => {
  const before = threaded.memoryStats().trackedBytes;
  const Q = matrix(64, 16, 1);
  threaded.flashAttention({ Q, K: Q, V: Q, threads: 2 });
  errorOf(() => threaded.flashAttention({ Q, K: matrix(64, 8, 2), V: Q }));
  assert.equal(threaded.memoryStats().trackedBytes, before);
});

test('a Node script that used the threaded core exits by itself', async () => {
  const { packageDir } = await import('./support/package.js');
  const script = `
    const { createAttnLab } = await import(${JSON.stringify(new URL(`file://${packageDir}/dist/attnlab.js`).href)});
    const lab = await createAttnLab({ threads: true });
    const Q = { rows: 256, cols: 64, data: new Float32Array(256 * 64).fill(0.25) };
    console.log(lab.threads, lab.flashAttention({ Q, K: Q, V: Q, threads: 2 }).output.data[0]);`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(out.trim(), `${Math.min(4, cpus().length)} 0.25`);
});

test('a fresh instance of the package can load both cores', async () => {
  const again = await importFromConsumer('attnlab', '?threads');
  const lab = await again.createAttnLab({ threads: true });
  assert.equal(lab.threads, threaded.threads);
});

test('the threaded core in Node sets no globals (issue 29, item 7)', async () => {
  const { packageDir } = await import('./support/package.js');
  // A fresh process: the globals before and after createAttnLab({ threads: true }) and a call.
  const script = `
    const before = new Set(Reflect.ownKeys(globalThis));
    const { createAttnLab } = await import(${JSON.stringify(new URL(`file://${packageDir}/dist/attnlab.js`).href)});
    const lab = await createAttnLab({ threads: true });
    const Q = { rows: 128, cols: 16, data: new Float32Array(128 * 16).fill(0.5) };
    const value = lab.flashAttention({ Q, K: Q, V: Q, threads: 2 }).output.data[0];
    const added = Reflect.ownKeys(globalThis).filter((key) => !before.has(key)).map(String);
    console.log(JSON.stringify({ added, require: typeof require, dirname: typeof __dirname, value }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 }));
  assert.deepEqual(out, { added: [], require: 'undefined', dirname: 'undefined', value: 0.5 });
});
