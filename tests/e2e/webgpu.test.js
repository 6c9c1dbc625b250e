// attnlab/webgpu in headless Chromium, on its SwiftShader adapter (no GPU needed). The page
// loads dist/webgpu.js and dist/attnlab.js as plain ES modules. Without an adapter the test
// fails saying so; it never skips.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { launchChromium, WEBGPU_ARGS } from '../../scripts/chromium.mjs';
import { serveStatic } from '../../scripts/serve.mjs';
import { GPU_CASES, GPU_TOLERANCE } from '../support/webgpu-cases.js';

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
