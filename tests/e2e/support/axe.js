// axe-core audits of a page (open shadow roots included): the serious and critical
// violations, as readable lines; [] when there are none.
import { createRequire } from 'node:module';

import { settle } from './lab-page.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export async function audit(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const results = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.length}×, e.g. ${v.nodes[0].target.join(' ')})`);
}

/** The audit with the first <attn-lab> in the light theme, then in the dark one. */
export async function auditThemes(page) {
  const found = [];
  for (const theme of ['light', 'dark']) {
    await page.evaluate((theme) => document.querySelector('attn-lab').setAttribute('theme', theme), theme);
    await settle(page);
    found.push(...(await audit(page)).map((line) => `${theme}: ${line}`));
  }
  return found;
}
