// Pages whose Workers, CPU and heaps a test watches: every Worker the page starts is recorded (its
// script URL, whether it was terminated), every long task of the page's thread too, and the
// CPU time of the page's processes (the renderer, where its workers run) can be read.
import { launchChromium } from '../../../scripts/chromium.mjs';
import { serveStatic } from '../../../scripts/serve.mjs';
import { watch } from './lab-page.js';

// Runs in the page before its scripts.
function instrument() {
  window.__longTasks = [];
  new PerformanceObserver((list) => window.__longTasks.push(...list.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
  window.__workers = [];
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    constructor(url, options) {
      super(url, options);
      window.__workers.push(this);
      [this.url, this.terminated] = [String(url), false];
    }

    terminate() {
      this.terminated = true;
      super.terminate();
    }
  };
}

/**
 * Opens `path` of `root` in Chromium without WebGPU (so every run is the wasm kernel's);
 * `headers` go with every response, `setup(page)` runs before the page loads. Returns
 * { page, problems, cpuSeconds() }: the CPU seconds the page's processes have used so far.
 */
export async function openWatched(t, { root = 'web/dist', path, headers, setup }) {
  const server = await serveStatic(root, { headers });
  const browser = await launchChromium({ extraArgs: ['--disable-webgpu'] });
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  const page = await browser.newPage();
  const problems = watch(page);
  await page.addInitScript(instrument);
  await setup?.(page);
  await page.goto(`${server.url}/${path}`);
  const cdp = await browser.newBrowserCDPSession();
  const cpuSeconds = async () =>
    (await cdp.send('SystemInfo.getProcessInfo')).processInfo.filter((p) => p.type === 'renderer').reduce((sum, p) => sum + p.cpuTime, 0);
  return { page, problems, cpuSeconds };
}

export const pause = (ms) => new Promise((done) => setTimeout(done, ms));
export const longTasks = (page) => page.evaluate(() => window.__longTasks);
export const workers = (page) => page.evaluate(() => window.__workers.map((w) => ({ url: w.url, terminated: w.terminated })));
/** How many Workers the page started and has not terminated. */
export const liveWorkers = (page) => page.evaluate(() => window.__workers.filter((w) => !w.terminated).length);

/** CPU seconds used over `ms` of wall time. */
export async function cpuOver(cpuSeconds, ms) {
  const start = await cpuSeconds();
  await pause(ms);
  return (await cpuSeconds()) - start;
}

/**
 * CPU seconds used over the second after the next 2.5 s: Chromium stops a terminated worker
 * that is inside a long call (wasm here) by force only after 2 s.
 */
export async function cpuAfterStop(cpuSeconds) {
  await pause(2500);
  return cpuOver(cpuSeconds, 1000);
}

/**
 * measure() for `page`: its JS heap after a full collection, and the memoryStats() of the
 * package's one wasm instance (the page's elements share it, and its learning module, with
 * the /dist/attnlab.js import made here; the page must be served from the repository's root).
 */
export async function heapMeter(page) {
  const cdp = await page.context().newCDPSession(page);
  return async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = await cdp.send('Runtime.getHeapUsage');
    const wasm = await page.evaluate(async () => (await (await import('/dist/attnlab.js')).createAttnLab()).memoryStats());
    return { js: usedSize, wasm };
  };
}
