// The first screen teaches: on the page, at a laptop's 1280 × 800 and a phone's 390 × 844,
// the step on view leads with its result and its why inside the first viewport; the options
// and inputs are one tap away (beside the step when the element is wide, below it behind a
// jump button when narrow); on a phone the view tabs are one scrolling strip.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { audit } from './support/axe.js';
import { assertClean } from './support/lab-page.js';
import { SCREENSHOT_DIR, browserSession } from './support/session.js';

const session = browserSession('web/dist');
const SIZES = [
  ['1280×800', { width: 1280, height: 800 }],
  ['390×844', { width: 390, height: 844 }],
];

// The box of the first match of `selector` in the element's shadow root, in viewport pixels.
const box = (page, selector) =>
  page.evaluate((selector) => {
    const found = document.querySelector('attn-lab').shadowRoot.querySelector(selector);
    if (!found) return null;
    const { top, bottom, left, right, height } = found.getBoundingClientRect();
    return { top, bottom, left, right, height };
  }, selector);

for (const [size, viewport] of SIZES) {
  test(`${size}: the page's first screen shows the step's why and result; the options are a tap away`, async (t) => {
    const { page, problems } = await session.open(t, '', { viewport });
    const why = await box(page, '[data-role="why"]');
    const result = await box(page, '[data-role="result"] table[data-matrix="scores"]');
    assert.ok(why && why.top >= 0 && why.bottom <= viewport.height, `the why (${JSON.stringify(why)}) is in the first ${viewport.height} px`);
    assert.ok(result && result.bottom <= viewport.height, `the result (${JSON.stringify(result)}) is in the first ${viewport.height} px`);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/first-screen-${viewport.width}.png` });

    const preset = await box(page, '[data-control="preset"]');
    if (viewport.width >= 1000) {
      // Wide: the options sit beside the step, in the first screen too.
      assert.ok(preset.left > result.right, 'the options are to the right of the result');
      assert.ok(preset.bottom <= viewport.height, 'the preset selector is in the first screen');
      assert.equal((await box(page, '[data-action="to-setup"]')).height, 0, 'no jump button beside them');
    } else {
      // Narrow: one tap on the jump button brings the options into view and focus.
      assert.ok(preset.top > viewport.height, 'the options wait below the step');
      await page.locator('attn-lab [data-action="to-setup"]').click();
      await page.waitForFunction(() => {
        const root = document.querySelector('attn-lab').shadowRoot;
        const top = root.querySelector('[data-control="preset"]').getBoundingClientRect().top;
        return root.activeElement?.dataset.role === 'setup' && top >= 0 && top < innerHeight;
      });
      // The tabs: one row that scrolls sideways, not rows of buttons.
      const tabs = await page.evaluate(() => {
        const list = document.querySelector('attn-lab').shadowRoot.querySelector('[role="tablist"]');
        const tops = new Set([...list.querySelectorAll('[role="tab"]')].map((tab) => Math.round(tab.getBoundingClientRect().top)));
        return { rows: tops.size, scrolls: list.scrollWidth > list.clientWidth };
      });
      assert.deepEqual(tabs, { rows: 1, scrolls: true });
    }
    assertClean(problems);
  });
}

// The views that lead with a result of their own: the variants view's step (each head's result
// before its inputs on a phone, the switches one scrolling row) and the model view's tokens.
const viewBox = (page, view, selector) =>
  page.evaluate(
    ([view, selector]) => {
      const found = document.querySelector('attn-lab').shadowRoot.querySelector(`attn-${view}-view`).shadowRoot.querySelector(selector);
      if (!found) return null;
      const { top, bottom, left, right, height } = found.getBoundingClientRect();
      return { top, bottom, left, right, height };
    },
    [view, selector],
  );

for (const [size, viewport] of SIZES) {
  test(`${size}: the variants view's step result and the model view's tokens start in the first screen`, async (t) => {
    const variants = await session.open(t, '#view=variants', { view: 'variants', viewport });
    const result = await viewBox(variants.page, 'variants', '[data-role="step"] table[data-matrix="softmax"]');
    assert.ok(
      result && result.top >= 0 && result.top < viewport.height - 80,
      `head 1's weights start at ${result?.top} px, within the first ${viewport.height} px`,
    );
    const switches = await viewBox(variants.page, 'variants', '[data-role="switches"]');
    assert.ok(switches.right <= viewport.width, `the switches (right edge ${switches.right}) stay within the page`);
    await variants.page.screenshot({ path: `${SCREENSHOT_DIR}/first-screen-variants-${viewport.width}.png` });
    assert.deepEqual(await audit(variants.page), [], 'the scrolling rows are axe-clean');
    assertClean(variants.problems);

    const model = await session.open(t, '#view=model', { view: 'model', viewport });
    await model.page.locator('attn-lab attn-model-view [data-role="tokens"]').waitFor({ timeout: 30_000 });
    const tokens = await viewBox(model.page, 'model', '[data-role="tokens"]');
    assert.ok(tokens.top >= 0 && tokens.top < viewport.height - 40, `the model's tokens start at ${tokens.top} px, within the first ${viewport.height} px`);
    assertClean(model.problems);
  });
}
