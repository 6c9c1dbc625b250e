// Phones: at 390 × 844 no preset (every stepper preset at every step, every view preset)
// makes the page scroll sideways; a matrix wider than the screen scrolls inside its own box,
// which shows a fade on the side where more of it lies.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { encodeHash, PRESET_IDS, presetState, stepIds, expectedTrace } from './support/expected.js';
import { audit } from './support/axe.js';
import { assertClean, settle, waitForView } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('.');
const PHONE = { viewport: { width: 390, height: 844 } };
const PAGE = 'web/dist/index.html';

const pageWidth = (page) => page.evaluate(() => document.documentElement.scrollWidth);

// The matrix boxes of the element (the stepper's own shadow root and those of nested views)
// whose content is wider than the box: [{ matrix, scrollWidth, clientWidth }].
const scrollingBoxes = (page) =>
  page.evaluate(() => {
    const roots = [document.querySelector('attn-lab').shadowRoot];
    for (let i = 0; i < roots.length; i++) for (const el of roots[i].querySelectorAll('*')) if (el.shadowRoot) roots.push(el.shadowRoot);
    return roots
      .flatMap((root) => [...root.querySelectorAll('figure.matrix')])
      .filter((box) => box.scrollWidth > box.clientWidth)
      .map((box) => ({ matrix: box.querySelector('table')?.dataset.matrix, scrollWidth: box.scrollWidth, clientWidth: box.clientWidth }));
  });

for (const id of PRESET_IDS) {
  const state = presetState(id);
  test(`390 px: the ${id} preset does not widen the page${state.view === 'stepper' ? ', at any step' : ''}`, async (t) => {
    const { page, problems } = await session.open(t, `${PAGE}${encodeHash(state)}`, { ...PHONE, ...(state.view === 'stepper' ? {} : { view: state.view }) });
    const steps = state.view === 'stepper' ? stepIds(expectedTrace(state)) : [null];
    for (const step of steps) {
      if (step) {
        await page.evaluate((step) => document.querySelector('attn-lab').goToStep(step), step);
        await settle(page);
      }
      const width = await pageWidth(page);
      assert.ok(width <= 390, `${id}${step ? ` at step ${step}` : ''}: the page is ${width} px wide at a 390 px viewport`);
    }
    assertClean(problems);
  });
}

test("390 px: the causal preset's 6 × 6 matrices scroll inside their boxes, with a fade where more lies", async (t) => {
  const { page, problems } = await session.open(t, `${PAGE}${encodeHash({ ...presetState('causal'), step: 'softmax' })}`, PHONE);
  const boxes = await scrollingBoxes(page);
  assert.ok(
    boxes.some((box) => box.matrix === 'softmax'),
    `the softmax weights scroll in their own box: ${JSON.stringify(boxes)}`,
  );
  assert.ok((await pageWidth(page)) <= 390);
  // The fade: the box's edges are transparent in its mask where it can scroll further.
  const fades = async (position) =>
    page.evaluate((position) => {
      const box = document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="result"] table[data-matrix="softmax"]').closest('figure');
      box.scrollLeft = position === 'start' ? 0 : box.scrollWidth;
      return new Promise((done) =>
        requestAnimationFrame(() =>
          requestAnimationFrame(() => {
            const style = getComputedStyle(box);
            done({ start: parseFloat(style.getPropertyValue('--attn-fade-start')), end: parseFloat(style.getPropertyValue('--attn-fade-end')) });
          }),
        ),
      );
    }, position);
  const atStart = await fades('start');
  assert.ok(atStart.start === 0 && atStart.end > 0, `scrolled to the start: a fade on the right only (${JSON.stringify(atStart)})`);
  const atEnd = await fades('end');
  assert.ok(atEnd.start > 0 && atEnd.end === 0, `scrolled to the end: a fade on the left only (${JSON.stringify(atEnd)})`);
  assert.deepEqual(await audit(page), [], 'axe at 390 px');
  assertClean(problems);
});

test('1280 px: a matrix that fits has no fade', async (t) => {
  const { page, problems } = await session.open(t, `${PAGE}${encodeHash({ ...presetState('tiny'), step: 'softmax' })}`);
  assert.deepEqual(await scrollingBoxes(page), []);
  const fade = await page.evaluate(() => {
    const box = document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="result"] figure.matrix');
    const style = getComputedStyle(box);
    return [style.getPropertyValue('--attn-fade-start'), style.getPropertyValue('--attn-fade-end')].map(parseFloat);
  });
  assert.deepEqual(fade, [0, 0]);
  assertClean(problems);
});

test("390 px: the positions view's heatmap scrolls in its box at its largest size, the page does not", async (t) => {
  const { page, problems } = await session.open(t, `${PAGE}${encodeHash({ ...presetState('positions'), viewState: { tokens: 64, width: 64 } })}`, {
    ...PHONE,
    view: 'positions',
  });
  await waitForView(page, 'positions');
  assert.ok((await scrollingBoxes(page)).some((box) => box.matrix === 'encoding'));
  assert.ok((await pageWidth(page)) <= 390);
  assertClean(problems);
});

test("390 px: the cost view's table of measurements scrolls in its box, the page does not", async (t) => {
  const { page, problems } = await session.open(t, `${PAGE}${encodeHash({ ...presetState('cost'), viewState: { maxN: 256 } })}`, { ...PHONE, view: 'cost' });
  await page.locator('attn-lab attn-cost-view [data-action="measure"]').click();
  await page.locator('attn-lab attn-cost-view [data-role="cost-runs"] tr[data-n="256"] td[data-kernel="flash"][data-bytes]').waitFor({ timeout: 60_000 });
  await settle(page);
  assert.ok((await pageWidth(page)) <= 390, `the page is ${await pageWidth(page)} px wide`);
  assert.deepEqual(await audit(page), [], 'axe at 390 px: the scrolling table can be reached by keyboard');
  assertClean(problems);
});
