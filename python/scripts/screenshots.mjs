// The docs' screenshots of the widget in JupyterLab (docs/notebooks-light.png and
// docs/notebooks-dark.png): the getting-started notebook run top to bottom in JupyterLab 4 in
// headless Chromium at a desktop width (1440 × 900), every request outside 127.0.0.1 refused,
// then shots of the stepper after choosing JupyterLab Dark from the Settings menu (the widget
// follows), of show_attention's grid of all-MiniLM-L6-v2's heads (into test-results/python/),
// and of the stepper in JupyterLab Light again. Not part of npm test; run by hand after python/scripts/test.sh (which installs the wheel into python/.venv), from the repository root:
//   node python/scripts/screenshots.mjs [folder]      (default: docs/)
import { mkdir, readFile } from 'node:fs/promises';

import { launchChromium } from '../../scripts/chromium.mjs';
import { blockTheNetwork, kernelIdle, runCell, startJupyterLab } from '../tests/browser/jupyter.mjs';

const out = process.argv[2] ?? 'docs';
const examples = new URL('../examples/', import.meta.url);
const jupyter = await startJupyterLab({
  'getting-started.ipynb': await readFile(new URL('getting-started.ipynb', examples), 'utf8'),
  'minilm-attention.json': await readFile(new URL('minilm-attention.json', examples), 'utf8'),
});
const browser = await launchChromium();
try {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const refused = await blockTheNetwork(context);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(jupyter.open('getting-started.ipynb'));
  await page.locator('.jp-NotebookPanel .jp-Cell').first().waitFor({ timeout: 60_000 });
  await kernelIdle(page);
  // Every code cell in turn, as a learner runs them; then wait for every widget: two steppers and
  // the geometry view (attn-lab each), and the model's attention.
  const notebook = JSON.parse(await readFile(new URL('getting-started.ipynb', examples), 'utf8'));
  for (const [i, cell] of notebook.cells.entries()) if (cell.cell_type === 'code') await runCell(page, i);
  await page.waitForFunction(() => document.querySelectorAll('attn-lab').length >= 3 && document.querySelector('attn-lab').shadowRoot?.querySelector('[data-role="result"] td[data-value]'), null, { timeout: 60_000 });
  await kernelIdle(page);
  await page.locator('attn-attention-import [data-role="imported"]').waitFor({ timeout: 60_000 });

  // The first stepper's cell at the top of the notebook's panel.
  const shot = async (path) => {
    await page.locator('attn-lab').first().evaluate((l) => l.closest('.jp-Cell').previousElementSibling?.scrollIntoView({ block: 'start' }));
    await page.waitForTimeout(500);
    await page.screenshot({ path });
    console.log(`wrote ${path}`);
  };
  const theme = async (name, value) => {
    await page.locator('.lm-MenuBar-itemLabel', { hasText: 'Settings' }).click();
    await page.locator('.lm-Menu-itemLabel', { hasText: /^Theme$/ }).click();
    await page.locator('.lm-Menu-itemLabel', { hasText: new RegExp(`^${name}$`) }).click();
    await page.waitForFunction((value) => [...document.querySelectorAll('attn-lab')].every((l) => l.getAttribute('theme') === value), value, { timeout: 30_000 });
  };
  // Dark first, then light again: both shots of the widget after the same redraws.
  await theme('JupyterLab Dark', 'dark');
  await shot(`${out}/notebooks-dark.png`);
  // The real model's attention (show_attention), dark.
  await page.locator('attn-attention-import').evaluate((e) => e.closest('.jp-Cell').scrollIntoView({ block: 'start' }));
  await page.waitForTimeout(500);
  await mkdir('test-results/python', { recursive: true });
  await page.screenshot({ path: 'test-results/python/notebooks-attention-dark.png' });
  console.log('wrote test-results/python/notebooks-attention-dark.png');
  await theme('JupyterLab Light', 'light');
  await shot(`${out}/notebooks-light.png`);
  if (refused.length) throw new Error(`requests left 127.0.0.1: ${refused.join(', ')}`);
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
} catch (error) {
  await browser.contexts()[0]?.pages()[0]?.screenshot({ path: `${out}/failed.png` });
  throw error;
} finally {
  await browser.close();
  await jupyter.stop();
}
