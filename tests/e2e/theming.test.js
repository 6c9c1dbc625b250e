// Host theming (issue 18, item 3): a plain page restyles <attn-lab> through its documented
// CSS custom properties and ::part() names, and the nested teaching views follow.
//
// Oracles: the page's own style sheet (the colours and font it sets), and the browser's
// canvas, which turns any computed colour into sRGB bytes; never the element's code.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { assertClean, settle, waitForLabs, waitForView } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('.');
const FIXTURE = 'tests/e2e/fixtures/blank.html';

const HOST_CSS = `
  attn-lab {
    --attn-bg: rgb(250, 240, 230);
    --attn-accent: rgb(200, 0, 120);
    --attn-font: 'DejaVu Serif', serif;
    --attn-heat-low: rgb(255, 255, 255);
    --attn-heat-high: rgb(0, 0, 139);
    --attn-score-low: rgb(0, 100, 0);
    --attn-score-high: rgb(128, 0, 128);
  }
  attn-lab::part(why) { border-left: 6px solid rgb(0, 128, 0); }
  attn-lab::part(result) { outline: 2px dashed rgb(1, 2, 3); }
  attn-lab::part(step) { background: rgb(240, 248, 255); }
  attn-lab::part(view) { border-top: 4px solid rgb(9, 8, 7); }
`;

// In the page (window.colourBytes): a CSS colour as [r, g, b] bytes, through a canvas, so
// color-mix(), oklab() and rgb() all compare alike.
const COLOUR_BYTES = `(colour) => {
  const context = Object.assign(document.createElement('canvas'), { width: 1, height: 1 }).getContext('2d');
  context.fillStyle = colour;
  context.fillRect(0, 0, 1, 1);
  return [...context.getImageData(0, 0, 1, 1).data.slice(0, 3)];
}`;

/** A blank page with HOST_CSS and the given <attn-lab> markup, loaded: its stepper, or teaching view `view`. */
async function themedPage(t, markup, view) {
  const { page, problems } = await session.open(t, FIXTURE, { wait: false });
  await page.addStyleTag({ content: HOST_CSS });
  await page.evaluate((markup) => document.body.insertAdjacentHTML('beforeend', markup), markup);
  await page.addScriptTag({ content: `window.colourBytes = ${COLOUR_BYTES};` });
  await page.addScriptTag({ type: 'module', url: '/dist/element.js' });
  await (view ? waitForView(page, view) : waitForLabs(page));
  await settle(page);
  return { page, problems };
}

const near = (actual, expected, what) =>
  assert.ok(
    actual.every((v, i) => Math.abs(v - expected[i]) <= 2),
    `${what}: ${JSON.stringify(actual)} vs ${JSON.stringify(expected)}`,
  );

test('custom properties restyle the element: background, font, and both heat scales by their ends', async (t) => {
  // Every query of the sharp preset picks "cat", at T = 0.01 with weight exactly 1 (the others 0,
  // none of them masked: a masked weight is hatched, not coloured).
  const { page, problems } = await themedPage(t, `<attn-lab preset="sharp" step="softmax" state='{"temperature":0.01}'></attn-lab>`);
  const seen = await page.evaluate(async () => {
    const bytes = window.colourBytes;
    const lab = document.querySelector('attn-lab');
    const root = lab.shadowRoot;
    const cells = (matrix) => [...root.querySelectorAll(`[data-role="result"] table[data-matrix="${matrix}"] td[data-row]`)];
    const look = (td) =>
      td && { value: Number(td.dataset.value), background: bytes(getComputedStyle(td).backgroundColor), text: bytes(getComputedStyle(td).color) };
    const result = {
      background: bytes(getComputedStyle(lab).backgroundColor),
      font: getComputedStyle(root.querySelector('[data-role="step"] h2')).fontFamily,
      one: look(cells('softmax').find((td) => Number(td.dataset.value) === 1)),
      zero: look(cells('softmax').find((td) => Number(td.dataset.value) === 0)),
      ramp: getComputedStyle(root.querySelector('[data-role="result"] .legend .ramp')).backgroundImage,
    };
    lab.applyPreset('tiny');
    lab.setState({
      K: [
        [1, 0],
        [1, 1],
        [0, 1],
      ],
    }); // its first keys: scores 0 and 1 only
    lab.goToStep('scores');
    await lab.updateComplete;
    result.scores = cells('scores').map(look);
    return result;
  });
  near(seen.background, [250, 240, 230], 'background');
  assert.match(seen.font, /DejaVu Serif/);
  // Weight 1 takes the high end, 0 the low end.
  near(seen.one.background, [0, 0, 139], 'weight 1');
  near(seen.one.text, [255, 255, 255], 'text on the dark high end');
  near(seen.zero.background, [255, 255, 255], 'weight 0');
  near(seen.zero.text, [0, 0, 0], 'text on the white low end');
  assert.match(seen.ramp, /rgb\(255, 255, 255\).*rgb\(0, 0, 139\)/);
  // Those scores are 0 and 1 (max |score| 1): 0 takes the default zero colour,
  // 1 the positive end the page set.
  assert.deepEqual([...new Set(seen.scores.map((c) => c.value))].sort(), [0, 1]);
  for (const cell of seen.scores) near(cell.background, cell.value === 0 ? [247, 247, 247] : [128, 0, 128], `score ${cell.value}`);
  assertClean(problems);
});

test('::part() names reach the regions the README lists', async (t) => {
  const { page, problems } = await themedPage(t, '<attn-lab preset="tiny" step="scores"></attn-lab>');
  const seen = await page.evaluate(() => {
    const bytes = window.colourBytes;
    const root = document.querySelector('attn-lab').shadowRoot;
    const style = (part) => getComputedStyle(root.querySelector(`[part~="${part}"]`));
    return {
      why: [style('why').borderLeftWidth, bytes(style('why').borderLeftColor)],
      result: [style('result').outlineStyle, bytes(style('result').outlineColor)],
      step: bytes(style('step').backgroundColor),
      parts: [...new Set([...root.querySelectorAll('[part]')].flatMap((node) => node.getAttribute('part').split(' ')))].sort(),
    };
  });
  assert.deepEqual(seen.why, ['6px', [0, 128, 0]]);
  assert.deepEqual(seen.result, ['dashed', [1, 2, 3]]);
  assert.deepEqual(seen.step, [240, 248, 255]);
  // Every part the stepper shows is one the manifest documents, and the other way round.
  const manifest = JSON.parse(await readFile('custom-elements.json', 'utf8'));
  const documented = manifest.modules
    .flatMap((m) => m.declarations ?? [])
    .find((d) => d.tagName === 'attn-lab')
    .cssParts.map((p) => p.name);
  const stepperParts = documented.filter((name) => !['tabs', 'view'].includes(name)).sort();
  assert.deepEqual(seen.parts, stepperParts);
  assertClean(problems);
});

test("a teaching view inside the element inherits the host page's properties, and its part is styled", async (t) => {
  const { page, problems } = await themedPage(t, '<attn-lab view="softmax"></attn-lab>', 'softmax');
  const seen = await page.evaluate(() => {
    const bytes = window.colourBytes;
    const root = document.querySelector('attn-lab').shadowRoot;
    const section = root.querySelector('[part~="view"]');
    const view = root.querySelector('attn-softmax-view');
    const heading = view.shadowRoot.querySelector('h2');
    return {
      border: [getComputedStyle(section).borderTopWidth, bytes(getComputedStyle(section).borderTopColor)],
      accent: getComputedStyle(view).getPropertyValue('--attn-accent').trim(),
      font: getComputedStyle(heading).fontFamily,
    };
  });
  assert.deepEqual(seen.border, ['4px', [9, 8, 7]]);
  assert.equal(seen.accent, 'rgb(200, 0, 120)');
  assert.match(seen.font, /DejaVu Serif/);
  assertClean(problems);
});
