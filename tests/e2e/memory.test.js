// 10,000 edits in the element leave the wasm heap and the JS heap flat (Chromium).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { browserSession } from './support/session.js';
import { heapMeter } from './support/worker-page.js';

const session = browserSession('.');
const EDITS = 10_000;

// Types into Q[0][0] of the first element `count` times, waiting for each render.
function edit(page, count, offset) {
  return page.evaluate(
    async ([count, offset]) => {
      const lab = document.querySelector('attn-lab');
      const selector = '[data-role="inputs"] table[data-matrix="Q"] td[data-row="0"][data-col="0"] input';
      for (let i = 0; i < count; i++) {
        const input = lab.shadowRoot.querySelector(selector);
        input.value = String(((offset + i) % 97) / 10);
        input.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
        await lab.updateComplete;
      }
    },
    [count, offset],
  );
}

test(`${EDITS.toLocaleString('en')} edits leave the wasm heap and the JS heap flat`, { timeout: 600_000 }, async (t) => {
  const { page } = await session.open(t, 'web/examples/tutorial.html', { labs: 2 });
  const measure = await heapMeter(page);
  await edit(page, 10, 0);
  const before = await measure();
  await edit(page, EDITS, 10);
  const after = await measure();
  console.log(
    `after 10 edits: JS heap ${before.js} B, wasm heap ${before.wasm.heapBytes} B (${before.wasm.allocatedBytes} B in use); ` +
      `after ${EDITS + 10}: JS heap ${after.js} B, wasm heap ${after.wasm.heapBytes} B (${after.wasm.allocatedBytes} B in use)`,
  );
  assert.equal(after.wasm.heapBytes, before.wasm.heapBytes, 'wasm heap size');
  assert.equal(after.wasm.allocatedBytes, before.wasm.allocatedBytes, 'wasm bytes in use');
  // The JS heap moves a little with the collector and caches; a leak of even 100 bytes per
  // edit would add 1 MB.
  assert.ok(after.js - before.js < 1_000_000, `JS heap grew by ${after.js - before.js} B`);
});
