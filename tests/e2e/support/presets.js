// The presets' full states, read from the built element itself through its public API: every
// preset the stepper's menu offers and every teaching view's preset (one per tab), each put
// on a fresh <attn-lab preset="ID"> and read back with getState(). The tests thus take the
// presets' data from what ships, not from the element's source modules.
//
// Reading them takes a browser, so the result is kept in test-results/ for the build it was
// read from (web/dist/index.html names the bundle by its content hash).
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';

import { launchChromium } from '../../../scripts/chromium.mjs';
import { serveStatic } from '../../../scripts/serve.mjs';

const SITE = 'web/dist';
const CACHE = 'test-results/e2e/preset-states.json';

async function readFromPage() {
  const server = await serveStatic(SITE);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => document.querySelector('attn-lab')?.getState(), null, { timeout: 30_000 });
    return await page.evaluate(async () => {
      const root = document.querySelector('attn-lab').shadowRoot;
      const stepper = [...root.querySelectorAll('select[data-control="preset"] option')].map((o) => o.value).filter(Boolean);
      const views = [...root.querySelectorAll('[role="tab"][data-view]')].map((tab) => tab.dataset.view).filter((id) => id !== 'stepper');
      const states = {};
      for (const id of [...stepper, ...views]) {
        const lab = Object.assign(document.createElement('attn-lab'), { preset: id });
        document.body.append(lab);
        const start = performance.now();
        while (!lab.getState() && performance.now() - start < 10_000) await new Promise((done) => setTimeout(done, 10));
        states[id] = lab.getState();
        lab.remove();
      }
      return states;
    });
  } finally {
    await browser.close();
    await server.close();
  }
}

async function presetStates() {
  const build = await readFile(`${SITE}/index.html`, 'utf8').catch(() => {
    throw new Error(`${SITE} is missing: build the site first (scripts/build.sh package site)`);
  });
  const cached = JSON.parse(await readFile(CACHE, 'utf8').catch(() => 'null'));
  if (cached?.build === build) return cached.states;
  const states = await readFromPage();
  await mkdir('test-results/e2e', { recursive: true });
  const partial = `${CACHE}.${process.pid}`; // test files run in parallel: write, then rename
  await writeFile(partial, JSON.stringify({ build, states }));
  await rename(partial, CACHE);
  return states;
}

const STATES = await presetStates();

/** Every preset id the element offers (the stepper's menu, then one per teaching view). */
export const PRESET_IDS = Object.keys(STATES);

/** The full state <attn-lab preset="ID"> opens with (a fresh copy), or null for an unknown id. */
export const presetState = (id) => (STATES[id] ? structuredClone(STATES[id]) : null);
