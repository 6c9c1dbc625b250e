// What a first visit to the built page (web/dist) downloads: the JS, CSS and wasm files
// Chromium fetched until the stepper showed its first result and the network went quiet,
// with their sizes raw and gzipped (-9). Fonts and the HTML are left out. Used by
// bench-page.mjs (figures) and tests/e2e/size-budget.test.js (the budget).
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';

const LOADED_KINDS = { '.js': 'JS', '.mjs': 'JS', '.css': 'CSS', '.wasm': 'wasm' };

/** [{ path, kind, raw, gzip }] for the page served at `url` from folder `site`. */
export async function firstLoadFiles(browser, url, site) {
  const page = await browser.newPage();
  const paths = new Set();
  page.on('response', (response) => {
    const path = new URL(response.url()).pathname;
    if (response.ok() && LOADED_KINDS[extname(path)]) paths.add(path);
  });
  await page.goto(`${url}/`);
  await page.waitForFunction(() => document.querySelector('attn-lab')?.shadowRoot?.querySelector('[data-role="result"] td[data-value]'));
  await page.waitForLoadState('networkidle');
  await page.close();
  const files = [];
  for (const path of [...paths].sort()) {
    const bytes = await readFile(join(site, decodeURIComponent(path)));
    files.push({ path, kind: LOADED_KINDS[extname(path)], raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length });
  }
  return files;
}
