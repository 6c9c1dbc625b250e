// Saves a screenshot of every stepper step, at 1280 and 390 px wide, light and dark, into
// docs/steps/STEP-WIDTH-THEME.jpg: node scripts/step-screenshots.mjs, after `npm run build`.
// The states have every step the stepper shows: two heads with W_O, sinusoidal positions, a
// causal mask, then the same with the backward pass (the grad-* steps). The variants' steps
// (rotate-q, rotate-k, bias, dropout) are the variants view's: scripts/view-screenshots.mjs.
import { mkdir } from 'node:fs/promises';

import { launchChromium } from './chromium.mjs';
import { serveStatic } from './serve.mjs';

const OUT = process.env.OUT ?? 'docs/steps'; // OUT=… with EXT=png for pictures to look at
const WIDTHS = [1280, 390];
const THEMES = ['light', 'dark'];

await mkdir(OUT, { recursive: true });
const server = await serveStatic('web/dist');
const browser = await launchChromium();
for (const width of WIDTHS) {
  for (const theme of THEMES) {
    const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: theme });
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => document.querySelector('attn-lab')?.dataset.step);
    const shot = new Set();
    for (const backward of [false, true]) {
      const steps = await page.evaluate(async (backward) => {
        const lab = document.querySelector('attn-lab');
        lab.applyPreset('two-heads');
        lab.setState({ positional: 'sinusoidal', causal: true, backward });
        await lab.updateComplete;
        // The backward steps come once the learning module has loaded.
        for (let i = 0; backward && i < 100 && !lab.shadowRoot.querySelector('[data-goto="grad-x"]'); i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          await lab.updateComplete;
        }
        return [...lab.shadowRoot.querySelectorAll('[data-goto]')].map((button) => button.dataset.goto);
      }, backward);
      for (const step of steps.filter((id) => !shot.has(id))) {
        shot.add(step);
        await page.evaluate((step) => document.querySelector('attn-lab').goToStep(step), step);
        await page.evaluate(() => document.querySelector('attn-lab').updateComplete);
        const section = page.locator('attn-lab [data-role="step"]');
        await section.scrollIntoViewIfNeeded();
        const ext = process.env.EXT ?? 'jpg';
        const path = `${OUT}/${step}-${width}-${theme}.${ext}`;
        await section.screenshot({ path, ...(ext === 'jpg' ? { type: 'jpeg', quality: 60 } : { type: 'png' }) });
        console.log(path);
      }
    }
    await page.close();
  }
}
await browser.close();
await server.close();
