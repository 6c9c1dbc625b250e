// An axe-core audit of the page and the tutorial (the element's open shadow roots
// included): no serious or critical violations.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TEACHING_VIEW_IDS } from '../../web/element/views/list.js';
import { audit, auditThemes } from './support/axe.js';
import { encodeHash, presetState } from './support/expected.js';
import { settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('.');

for (const step of ['scores', 'softmax']) {
  test(`the page at the ${step} step has no serious or critical axe violations`, async (t) => {
    const { page } = await session.open(t, `web/dist/index.html${encodeHash({ ...presetState('two-heads'), step })}`);
    await settle(page);
    assert.deepEqual(await audit(page), []);
  });
}

test('the tutorial (a dark, read-only instance included) has no serious or critical axe violations', async (t) => {
  const { page } = await session.open(t, 'web/examples/tutorial.html', { labs: 2 });
  assert.deepEqual(await audit(page), []);
});

for (const view of TEACHING_VIEW_IDS) {
  test(`the ${view} view has no serious or critical axe violations, light or dark`, async (t) => {
    const { page } = await session.open(t, `web/dist/index.html#view=${view}`, { view });
    // The model view's figures follow its download: audit them, not "Loading…".
    if (view === 'model') await page.locator('attn-lab attn-model-view [data-role="next-tokens"]').waitFor({ timeout: 30_000 });
    assert.deepEqual(await auditThemes(page), []);
  });
}
