// Saves screenshots of the stepper's teaching views into docs/views/ (for the README):
// node scripts/view-screenshots.mjs [ID …], after `npm run build` (every view without IDs;
// `stepper` is the README's first picture, docs/screenshot.png).
import { mkdir } from 'node:fs/promises';

import { TEACHING_VIEW_IDS } from '../web/element/views/list.js';
import { launchChromium } from './chromium.mjs';
import { serveStatic } from './serve.mjs';

const VIEWS = process.argv.length > 2 ? process.argv.slice(2) : TEACHING_VIEW_IDS;
const TEACHING = VIEWS.filter((view) => view !== 'stepper');

// The model view's first layer of heads, as wide as its four thumbnails.
async function modelClip(page) {
  const layer = await page.locator('attn-model-view .layer').first().boundingBox();
  return { x: layer.x, y: layer.y, width: Math.min(layer.width, 720), height: layer.height };
}

await mkdir('docs/views/all', { recursive: true });
const server = await serveStatic('web/dist');
const browser = await launchChromium();
// Each view at a laptop's and a phone's width, light and dark: docs/views/all/ID-WIDTH-THEME.jpg
// (kept out of the npm package); the README's picture, docs/views/ID.jpg, is the 1280 px light one.
for (const [width, theme] of [
  [1280, 'light'],
  [1280, 'dark'],
  [390, 'light'],
  [390, 'dark'],
]) {
  const page = await browser.newPage({ viewport: { width, height: 800 }, colorScheme: theme });
  for (const view of TEACHING) {
    await page.goto(`${server.url}/index.html#view=${view}`);
    const lab = page.locator('attn-lab');
    await page.waitForFunction((view) => document.querySelector('attn-lab')?.dataset.view === view, view);
    if (view === 'tokens') {
      // The tokens preset's two heads, the lines of "cat".
      await page.evaluate(() => document.querySelector('attn-lab').applyPreset('tokens'));
      await page.locator('attn-tokens-view [data-control="token"][data-token="1"]').focus();
    }
    if (view === 'flash') await page.evaluate(() => document.querySelector('attn-lab').setState({ viewState: { event: 3 } }));
    // Softcap and a bias with a −∞ cell (the bias step open), and the two causal alignments below.
    if (view === 'variants')
      await page.evaluate(() =>
        document
          .querySelector('attn-lab')
          .setState({ viewState: { softcap: 1, bias: '+-00000+-00000+-00000+-0x000+-00000+', alignments: true, kvHeads: 2, step: 'bias' } }),
      );
    if (view === 'train') {
      // Mid-run: a few seconds of previous-token at the default speed.
      await page.locator('attn-train-view [data-action="train"]').click();
      await page.waitForTimeout(3000);
    }
    if (view === 'model') {
      // Ten tokens generated after the first sentence, the figures drawn.
      await page.evaluate(() => document.querySelector('attn-lab').setState({ viewState: { generated: 10, temperature: 0.8, topK: 20 } }));
      await page.locator('attn-model-view [data-role="next-tokens"]').waitFor({ timeout: 60_000 });
    }
    // The efficient view's body loads on first opening: wait for its weights.
    if (view === 'efficient') await page.locator('attn-efficient-view table[data-matrix="family-weights"]').waitFor({ timeout: 60_000 });
    if (view === 'cost') {
      await page.locator('attn-cost-view [data-action="measure"]').click();
      await page.locator('attn-cost-view [data-role="cost-runs"] tr[data-n="1024"] td[data-kernel="flash"][data-bytes]').waitFor({ timeout: 60_000 });
    }
    await page.waitForTimeout(300);
    const box = await lab.boundingBox();
    const clip = { ...box, height: Math.min(box.height, width < 600 ? 1600 : 900) };
    // The README's train picture is docs/train.png, so the train view has no docs/views/ copy.
    const readme = width === 1280 && theme === 'light' && view !== 'train';
    const paths = [`docs/views/all/${view}-${width}-${theme}.jpg`, ...(readme ? [`docs/views/${view}.jpg`] : [])];
    for (const path of paths) {
      // The README's model picture is packaged within the rest's budget (tests/js/pack.test.js):
      // its first layer's heads only (the whole view is in docs/views/all/), more compressed.
      const small = view === 'model' && !path.includes('/all/');
      await page.screenshot({ path, type: 'jpeg', quality: small ? 40 : 55, fullPage: true, clip: small ? await modelClip(page) : clip });
      console.log(path);
    }
    // The in-context demo (issue 38) lies below the clip: the element alone, once it has figures.
    if (view === 'model') {
      const demo = page.locator('attn-model-view attn-model-incontext');
      await demo.locator('[data-role="incontext-summary"]').waitFor({ timeout: 60_000 });
      const path = `docs/views/all/model-incontext-${width}-${theme}.jpg`;
      await demo.screenshot({ path, type: 'jpeg', quality: 55 });
      console.log(path);
    }
  }
  await page.close();
}
const page = await browser.newPage({ viewport: { width: 1100, height: 800 }, colorScheme: 'light' });
// The README's first picture: the stepper at the softmax step of the two-head preset.
if (VIEWS === TEACHING_VIEW_IDS || VIEWS.includes('stepper')) {
  await page.goto(`${server.url}/index.html`);
  await page.waitForFunction(() => document.querySelector('attn-lab')?.dataset.step);
  await page.evaluate(async () => {
    const lab = document.querySelector('attn-lab');
    lab.applyPreset('two-heads');
    lab.goToStep('softmax');
    await lab.updateComplete;
  });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.locator('attn-lab [data-role="step"]').screenshot({ path: 'docs/screenshot.png' });
  console.log('docs/screenshot.png');
}
await browser.close();
await server.close();
