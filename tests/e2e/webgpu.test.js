// attnlab/webgpu in headless Chromium, on its SwiftShader adapter (no GPU needed). The page
// loads dist/webgpu.js and dist/attnlab.js as plain ES modules. Without an adapter the test
// fails saying so; it never skips.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { launchChromium, WEBGPU_ARGS } from '../../scripts/chromium.mjs';
import { serveStatic } from '../../scripts/serve.mjs';
import { GPU_CASES, GPU_TOLERANCE } from '../support/webgpu-cases.js';

const IN_FLIGHT = 10;

let server;
let browser;
before(async () => {
  server = await serveStatic('.');
  browser = await launchChromium({ extraArgs: WEBGPU_ARGS });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

async function blankPage(t) {
  const page = await browser.newPage();
  t.after(() => page.close());
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${server.url}/tests/e2e/fixtures/blank.html`);
  return { page, errors };
}

test('the WGSL kernel matches the wasm flash kernel within 1e-4 (Chromium, SwiftShader)', async (t) => {
  const { page, errors } = await blankPage(t);
  const { adapter, results } = await page.evaluate(async (cases) => {
    const adapter = await navigator.gpu?.requestAdapter();
    if (!adapter) return { adapter: null, results: [] };
    const { createAttnLab } = await import('/dist/attnlab.js');
    const { createGpuAttention } = await import('/dist/webgpu.js');
    const { compareWithWasm } = await import('/tests/support/webgpu-cases.js');
    const gpu = await createGpuAttention();
    const results = await compareWithWasm(await createAttnLab(), gpu, cases);
    gpu.destroy();
    return { adapter: adapter.info?.description || adapter.info?.vendor || 'an adapter', results };
  }, GPU_CASES);
  assert.ok(adapter, 'Chromium gave no WebGPU adapter (flags: --enable-unsafe-webgpu --enable-unsafe-swiftshader)');
  assert.equal(results.length, GPU_CASES.length);
  for (const { name, diff } of results) assert.ok(diff <= GPU_TOLERANCE, `${name}: max abs diff ${diff}`);
  assert.deepEqual(errors, []);
});

test(`${IN_FLIGHT} calls in flight each match wasm; after device.destroy() every call rejects with device-lost (Chromium)`, async (t) => {
  const { page, errors } = await blankPage(t);
  const warnings = [];
  page.on('console', (message) => message.type() !== 'log' && warnings.push(message.text()));
  const { results, settled } = await page.evaluate(async (count) => {
    const { createAttnLab } = await import('/dist/attnlab.js');
    const { createGpuAttention } = await import('/dist/webgpu.js');
    const { compareConcurrently } = await import('/tests/support/webgpu-cases.js');
    const device = await (await navigator.gpu.requestAdapter()).requestDevice();
    const gpu = await createGpuAttention({ device });
    const results = await compareConcurrently(await createAttnLab(), gpu, count);
    const one = (i) => ({ rows: 100, cols: 32, data: Float32Array.from({ length: 3200 }, (_, j) => Math.cos(i + j)) });
    const pending = Array.from({ length: count }, (_, i) => gpu.attention({ Q: one(i), K: one(i + 1), V: one(i + 2) }));
    device.destroy();
    await device.lost;
    const later = gpu.attention({ Q: one(0), K: one(1), V: one(2) });
    const settled = await Promise.allSettled([...pending, later]);
    return {
      results,
      settled: settled.map((s) =>
        s.status === 'fulfilled' ? { status: 'resolved' } : { name: s.reason.name, code: s.reason.code, message: s.reason.message },
      ),
    };
  }, IN_FLIGHT);
  assert.equal(results.length, IN_FLIGHT);
  for (const { name, diff } of results) assert.ok(diff <= GPU_TOLERANCE, `${name}: max abs diff ${diff}`);
  assert.equal(settled.length, IN_FLIGHT + 1);
  for (const s of settled) {
    assert.deepEqual([s.name, s.code], ['AttnLabError', 'device-lost'], JSON.stringify(s));
    assert.match(s.message, /^attention\(\) call \d+( \(Q 100×32, K 100×32, 1 head\))?: the GPU device was lost .+/);
  }
  assert.match(settled.at(-1).message, /^attention\(\) call \d+: the GPU device was lost \(destroyed/);
  assert.deepEqual(errors, []);
  assert.deepEqual(
    warnings.filter((w) => /WebGPU|GPU/.test(w)),
    [],
  );
});

test('where WebGPU is missing, createGpuAttention rejects with a clear error', async (t) => {
  const { page } = await blankPage(t);
  const message = await page.evaluate(async () => {
    Object.defineProperty(navigator, 'gpu', { value: undefined });
    const { createGpuAttention } = await import('/dist/webgpu.js');
    return createGpuAttention().then(
      () => 'resolved',
      (error) => `${error.name}: ${error.message}`,
    );
  });
  assert.match(message, /^GpuUnavailableError: WebGPU is not available/);
});
