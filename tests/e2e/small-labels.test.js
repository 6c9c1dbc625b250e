// Issue 25's small items: "Scale by 1/√dₖ" keeps its subscript attached; the backward step
// chips write ∂W_O with a subscript; grad-scores names its query and key like its
// neighbours; no quiz option writes "e^"; the geometry plane's numbers sit on the frame, off
// the points and the values' triangle; the scaling view's 16-key table fits at 1280 px.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { encodeHash, presetState } from './support/expected.js';
import { assertClean, goToStep, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');

// How far the subscript of the label around `control` starts after the "d" before it, in px.
const subscriptGap = (page, view, control) =>
  page.evaluate(
    ([view, control]) => {
      const lab = document.querySelector('attn-lab').shadowRoot;
      const root = view ? lab.querySelector(`attn-${view}-view`).shadowRoot : lab;
      const sub = root.querySelector(`[data-control="${control}"]`).closest('label').querySelector('sub');
      const text = [...sub.parentNode.childNodes]
        .filter((node) => node.nodeType === Node.TEXT_NODE && /d\s*$/.test(node.textContent))
        .find((node) => node.nextSibling === sub);
      const range = document.createRange();
      range.setStart(text, text.textContent.trimEnd().length - 1);
      range.setEnd(text, text.textContent.trimEnd().length);
      return sub.getBoundingClientRect().left - range.getBoundingClientRect().right;
    },
    [view, control],
  );

test('"Scale by 1/√dₖ" and the views\' dₖ labels: the k sits right after the d', async (t) => {
  const { page, problems } = await session.open(t);
  for (const [view, control] of [
    [null, 'scaling'],
    ['scaling', 'headWidth'],
    ['geometry', 'scaled'],
  ]) {
    if (view) {
      await page.evaluate((view) => document.querySelector('attn-lab').showView(view), view);
      await page.waitForFunction(
        (view) => document.querySelector('attn-lab').shadowRoot.querySelector(`attn-${view}-view`)?.shadowRoot?.querySelector('label sub'),
        view,
      );
      await settle(page);
    }
    const gap = await subscriptGap(page, view, control);
    assert.ok(Math.abs(gap) < 1.5, `${view ?? 'stepper'}: the subscript starts ${gap}px after the d`);
  }
  assertClean(problems);
});

test('the backward steps: chips without a raw underscore; grad-scores names its query and key', async (t) => {
  const { page, problems } = await session.open(t, `index.html${encodeHash({ ...presetState('two-heads'), backward: true })}`, { wait: false });
  await page.waitForSelector('attn-lab [data-goto="grad-wo"]');
  const chips = await page.locator('attn-lab [data-goto]').allTextContents();
  assert.deepEqual(
    chips.filter((chip) => chip.includes('_')),
    [],
  );
  assert.equal(await page.locator('attn-lab [data-goto="grad-wo"] sub').textContent(), 'O');
  await goToStep(page, 'grad-scores');
  const live = await page.locator('attn-lab [data-role="why-live"]').textContent();
  assert.match(live, /at query “[^”]+”, key “[^”]+”/);
  assertClean(problems);
});

test('quiz options write powers of e as superscripts, never "e^"', async (t) => {
  const { page, problems } = await session.open(t, 'index.html#view=quiz', { view: 'quiz' });
  const texts = await page.evaluate(() => {
    const roots = [document.querySelector('attn-lab').shadowRoot];
    for (let i = 0; i < roots.length; i++) for (const el of roots[i].querySelectorAll('*')) if (el.shadowRoot) roots.push(el.shadowRoot);
    return roots.flatMap((root) => [...root.querySelectorAll('label, legend, p')].map((node) => node.textContent));
  });
  assert.ok(texts.length > 10, 'the quizzes are there');
  assert.deepEqual(
    texts.filter((text) => /e\^/.test(text)),
    [],
  );
  assertClean(problems);
});

test("geometry: the axes' numbers sit off the points, their labels and the values' triangle", async (t) => {
  const { page, problems } = await session.open(t, 'index.html#view=geometry', { view: 'geometry' });
  const overlaps = await page.evaluate(() => {
    const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-geometry-view').shadowRoot;
    const plane = root.querySelector('[data-role="plane"]');
    const boxes = (selector) => [...plane.querySelectorAll(selector)].map((node) => [node.textContent || node.tagName, node.getBoundingClientRect()]);
    const ticks = boxes('.axis text');
    const content = [...boxes('[data-role="hull"]'), ...boxes('g:not(.axis) text'), ...boxes('g:not(.axis) circle, g:not(.axis) rect')];
    const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    return ticks.flatMap(([tick, a]) => content.filter(([, b]) => meet(a, b)).map(([what]) => `${tick} meets ${what}`));
  });
  assert.deepEqual(overlaps, []);
  assertClean(problems);
});

test('scaling: the 16-key example table fits in the view at 1280 px', async (t) => {
  const { page, problems } = await session.open(t, 'index.html#view=scaling', { view: 'scaling', viewport: { width: 1280, height: 800 } });
  const box = await page.evaluate(() => {
    const figure = document
      .querySelector('attn-lab')
      .shadowRoot.querySelector('attn-scaling-view')
      .shadowRoot.querySelector('table[data-matrix="example"]')
      .closest('figure');
    return { scroll: figure.scrollWidth, client: figure.clientWidth, keys: figure.querySelectorAll('tbody th').length };
  });
  assert.equal(box.keys, 16);
  assert.ok(box.scroll <= box.client, `the table is ${box.scroll}px wide in a ${box.client}px box`);
  assertClean(problems);
});
