// Security: no HTML is ever built from strings in the page's code, and an embedded element
// leaves the host page's URL alone unless it is asked to keep its state there.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';

import { settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('.');
const HTML_SINKS = /\b(innerHTML|outerHTML|insertAdjacentHTML|unsafeHTML|document\.write|srcdoc)\b/;

async function sources(folder) {
  const files = await readdir(folder, { recursive: true });
  return files.filter((f) => /\.(js|mjs|ts)$/.test(f)).map((f) => join(folder, f));
}

test('no source of the package, the element or the page writes HTML from strings', async () => {
  const files = [...(await sources('web/lib')), ...(await sources('web/element')), ...(await sources('web/app')), ...(await sources('web/webgpu'))];
  assert.ok(files.length > 10);
  const offenders = [];
  for (const file of files) {
    if (HTML_SINKS.test(await readFile(file, 'utf8'))) offenders.push(file);
  }
  assert.deepEqual(offenders, []);
});

test('an embedded element (no url-state) never reads or writes the host page URL', async (t) => {
  const { page } = await session.open(t, 'web/examples/tutorial.html#s=not-for-the-element', { labs: 2 });
  const before = page.url();
  const lab = page.locator('attn-lab').first();
  await lab.locator('[data-action="next"]').click();
  await lab.locator('[data-role="inputs"] table[data-matrix="Q"] td[data-row="0"][data-col="0"] input').fill('3');
  await lab.locator('[data-control="causal"]').check();
  await settle(page);
  await page.waitForTimeout(300); // longer than the element's delayed URL write
  assert.equal(page.url(), before);
  // The hash was not taken as a state either: the instance shows its own preset, unbroken.
  const message = await lab.locator('[data-role="message"]').textContent();
  assert.equal(message.trim(), '');
});
