// Soak (issue 29): view switches through every view with the train view training whenever it
// is on show, then elements removed while they train. Live Workers never exceed one per
// element (none once the elements are gone), the page's wasm heap (the core's and the
// learning module's) and its JS heap stay flat, and the CPU goes back to idle. Once with
// Workers, once where none may start (worker-src 'none': the trainers live in the page's heap).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { VIEW_IDS } from '../../web/element/views/list.js';
import { waitForView } from './support/lab-page.js';
import { cpuAfterStop, heapMeter, liveWorkers, openWatched } from './support/worker-page.js';

const README_POLICY = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'";

// The page's helpers, installed once. switchViews(n) shows each view in turn n times; on the
// train view it presses Train and waits for a step, so training is under way when the next
// view comes; each view stays `dwellMs` more (the warm-up lets each finish what it computes,
// the model view its model's loading). removeTraining(n) adds an element on the train view n times, trains it a step or
// more and removes it. Each returns the most live Workers seen.
function installHelpers() {
  // A guard against a hang only, far beyond a step on a loaded machine (not a premise on speed).
  const until = async (check) => {
    const start = Date.now();
    while (!check()) {
      if (Date.now() - start > 120_000) throw new Error('soak: still waiting after 120 s');
      await new Promise((done) => setTimeout(done, 5));
    }
  };
  const live = () => window.__workers.filter((w) => !w.terminated).length;
  const trainView = (element) => element.shadowRoot.querySelector('attn-train-view')?.shadowRoot;
  const step = (root) => Number(root.querySelector('[data-field="step"]')?.dataset.value ?? 0);
  // Presses Train once the view is ready (its trainer made or rebuilt) and waits for a new step
  // (at the default speed, so the steps to replay on each return stay few).
  async function train(element) {
    await until(() => trainView(element)?.querySelector('[data-action="train"]:not([disabled])'));
    const root = trainView(element);
    const before = step(root);
    root.querySelector('[data-action="train"]').click();
    await until(() => step(root) > before);
  }
  window.__soak = {
    async switchViews(switches, dwellMs = 0) {
      const element = document.querySelector('attn-lab');
      const views = [...element.shadowRoot.querySelectorAll('[role="tab"]')].map((tab) => tab.dataset.view);
      let most = 0;
      for (let i = 0; i < switches; i++) {
        const id = views[i % views.length];
        element.showView(id);
        await element.updateComplete;
        await element.shadowRoot.querySelector(`attn-${id}-view`)?.updateComplete;
        if (id === 'train') await train(element);
        // In the warm-up, the model view loads its model (once per page) before the next view.
        if (id === 'model' && dwellMs)
          await until(() => element.shadowRoot.querySelector('attn-model-view')?.shadowRoot.querySelector('[data-control="text"]'));
        await new Promise((done) => setTimeout(done, dwellMs));
        most = Math.max(most, live());
      }
      return most;
    },
    async removeTraining(count) {
      let most = 0;
      for (let i = 0; i < count; i++) {
        const element = Object.assign(document.createElement('attn-lab'), { state: JSON.stringify({ view: 'train' }) });
        document.body.append(element);
        await train(element);
        most = Math.max(most, live());
        element.remove();
      }
      return most;
    },
  };
}

for (const [name, headers, rounds] of [
  ['with Workers', undefined, { switches: 200, removals: 200 }],
  ["with worker-src 'none'", { 'content-security-policy': `${README_POLICY}; worker-src 'none'` }, { switches: 200, removals: 200 }],
]) {
  test(
    `soak ${name}: ${rounds.switches} view switches while training, ${rounds.removals} removals while training: one Worker at most, flat heaps, idle CPU`,
    { timeout: 1_200_000 },
    async (t) => {
      const { page, problems, cpuSeconds } = await openWatched(t, { root: '.', path: 'tests/e2e/fixtures/blank.html', headers });
      await page.addScriptTag({ type: 'module', url: '/dist/element.js' });
      await page.evaluate(installHelpers);
      await page.evaluate(() =>
        document.body.append(Object.assign(document.createElement('attn-lab'), { tabs: true, state: JSON.stringify({ view: 'train' }) })),
      );
      await waitForView(page, 'train');
      // The switches go through the tabs: every view of the list, the model view among them.
      const tabs = await page.evaluate(() =>
        [...document.querySelector('attn-lab').shadowRoot.querySelectorAll('[role="tab"]')].map((tab) => tab.dataset.view),
      );
      assert.deepEqual(tabs, VIEW_IDS);
      const measure = await heapMeter(page);
      // A warm-up: every view once, a removal, so that what loads once has loaded and the heap
      // has grown to what the views need at most (the scaling view's study grows it once).
      await page.evaluate(([n, dwell]) => window.__soak.switchViews(n, dwell), [VIEW_IDS.length, 200]);
      await page.evaluate((n) => window.__soak.removeTraining(n), 2);
      const before = await measure();
      const start = Date.now();
      const mostSwitching = await page.evaluate((n) => window.__soak.switchViews(n), rounds.switches);
      const switching = (Date.now() - start) / 1000;
      const mostRemoving = await page.evaluate((n) => window.__soak.removeTraining(n), rounds.removals);
      const seconds = (Date.now() - start) / 1000;
      await page.evaluate(() => document.querySelector('attn-lab').remove());
      const after = await measure();
      const idle = await cpuAfterStop(cpuSeconds);
      console.log(
        `soak ${name}: ${rounds.switches} switches in ${switching.toFixed(1)} s, ${rounds.removals} removals in ${(seconds - switching).toFixed(1)} s; ` +
          `most live workers ${mostSwitching} / ${mostRemoving}; JS heap ${before.js} → ${after.js} B; wasm heap ${before.wasm.heapBytes} → ${after.wasm.heapBytes} B, ` +
          `${before.wasm.allocatedBytes} → ${after.wasm.allocatedBytes} B in use, learning module ${before.wasm.learningAllocatedBytes} → ${after.wasm.learningAllocatedBytes} B; ` +
          `CPU ${idle.toFixed(3)} s over the last second`,
      );
      const workersAllowed = headers ? 0 : 1;
      assert.ok(mostSwitching <= workersAllowed && mostRemoving <= workersAllowed, `live workers: ${mostSwitching} switching, ${mostRemoving} removing`);
      assert.equal(await liveWorkers(page), 0, 'a worker outlived its element');
      assert.equal(after.wasm.allocatedBytes, before.wasm.allocatedBytes, "the core's bytes in use");
      assert.equal(after.wasm.heapBytes, before.wasm.heapBytes, 'wasm heap size');
      // Without Workers every trainer was made in the page's learning module: each must be freed.
      assert.equal(after.wasm.learningAllocatedBytes, before.wasm.learningAllocatedBytes, "the learning module's bytes in use");
      // The JS heap moves a little with the collector and caches; a leaked view or trainer per
      // round (each holds kilobytes) would add far more.
      assert.ok(after.js - before.js < 2_000_000, `JS heap grew by ${after.js - before.js} B`);
      assert.ok(idle < 0.1, `CPU work goes on: ${idle} s`);
      assert.deepEqual(problems.pageErrors, []);
    },
  );
}
