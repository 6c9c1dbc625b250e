// Small things a learner meets: theme="auto" follows the host page's declared colour
// scheme; names such as d_k are written with real subscripts everywhere; the positions
// heatmap is legible; the cost view's conclusion quotes what it measured, and its memory
// axis is labelled up to its top.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { encodeHash, PRESET_IDS, presetState } from './support/expected.js';
import { assertClean, settle, waitForLabs, waitForView } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('.');
const PAGE = 'web/dist/index.html';
const FIXTURE = 'tests/e2e/fixtures/blank.html';

// ---- (a) theme="auto" and the host page's colour scheme ----

// A plain page with one <attn-lab theme="auto">, the host's colour scheme set by `setup`
// (run in the page before the element loads); returns the element's background colour
// in auto, and its backgrounds when pinned light and dark, for comparison.
async function autoBackground(t, { system, setup }) {
  const { page, problems } = await session.open(t, FIXTURE, { wait: false, colorScheme: system });
  await page.evaluate(setup);
  await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<attn-lab theme="auto"></attn-lab>'));
  await page.addScriptTag({ type: 'module', url: '/dist/element.js' });
  await waitForLabs(page);
  const background = async (theme) => {
    await page.evaluate((theme) => document.querySelector('attn-lab').setAttribute('theme', theme), theme);
    await settle(page);
    return page.evaluate(() => getComputedStyle(document.querySelector('attn-lab')).backgroundColor);
  };
  const auto = await background('auto');
  const [light, dark] = [await background('light'), await background('dark')];
  assert.notEqual(light, dark);
  assertClean(problems);
  return { auto, light, dark, page };
}

const HOSTS = [
  ['CSS color-scheme: dark on the root, system light', 'light', () => (document.documentElement.style.colorScheme = 'dark'), 'dark'],
  ['CSS color-scheme: light on the root, system dark', 'dark', () => (document.documentElement.style.colorScheme = 'light'), 'light'],
  [
    '<meta name="color-scheme" content="dark">, system light',
    'light',
    () => document.head.insertAdjacentHTML('beforeend', '<meta name="color-scheme" content="dark">'),
    'dark',
  ],
  ['CSS color-scheme: dark on the parent only, system light', 'light', () => (document.body.style.colorScheme = 'dark'), 'dark'],
  ['nothing declared, system dark', 'dark', () => {}, 'dark'],
  ['nothing declared, system light', 'light', () => {}, 'light'],
];

for (const [name, system, setup, expected] of HOSTS) {
  test(`theme="auto" with ${name}: the element is ${expected}`, async (t) => {
    const result = await autoBackground(t, { system, setup });
    assert.equal(result.auto, result[expected]);
  });
}

test('theme="auto" follows a host page that changes its colour scheme later', async (t) => {
  const { page, auto, light, dark } = await autoBackground(t, { system: 'light', setup: () => {} });
  assert.equal(auto, light);
  await page.evaluate(() => document.querySelector('attn-lab').setAttribute('theme', 'auto'));
  await page.evaluate(() => (document.documentElement.style.colorScheme = 'dark'));
  await page.waitForFunction((dark) => getComputedStyle(document.querySelector('attn-lab')).backgroundColor === dark, dark);
});

// ---- (b) real subscripts ----

// The text a learner sees in the element, nested views included: text nodes outside KaTeX's
// output (whose MathML keeps the TeX source for screen readers), and option labels.
const visibleText = (page) =>
  page.evaluate(() => {
    const out = [];
    const walk = (root) => {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
      for (let node = walker.currentNode; node; node = walker.nextNode()) {
        if (node.nodeType === Node.TEXT_NODE) {
          if (!node.parentElement?.closest('.katex, style, script')) out.push(node.textContent);
        } else if (node.shadowRoot) walk(node.shadowRoot);
      }
    };
    walk(document.querySelector('attn-lab').shadowRoot);
    return out.join(' ');
  });

const UNDERSCORED = /\b[A-Za-z]_[A-Za-z0-9]+\b/g;

for (const id of PRESET_IDS) {
  test(`no underscored names (d_k, W_Q…) in the text of the ${id} preset`, async (t) => {
    const state = presetState(id);
    const { page, problems } = await session.open(t, `${PAGE}${encodeHash(state)}`, state.view === 'stepper' ? {} : { view: state.view });
    const seen = new Set();
    const steps =
      state.view === 'stepper'
        ? await page.evaluate(() => [...document.querySelector('attn-lab').shadowRoot.querySelectorAll('[data-goto]')].map((b) => b.dataset.goto))
        : [null];
    for (const step of steps) {
      if (step) {
        await page.evaluate((step) => document.querySelector('attn-lab').goToStep(step), step);
        await settle(page);
      }
      for (const match of (await visibleText(page)).matchAll(UNDERSCORED)) seen.add(`${match[0]}${step ? ` (step ${step})` : ''}`);
    }
    assert.deepEqual([...seen], []);
    assertClean(problems);
  });
}

test('the stepper writes W_Q and d_k with <sub>, and the scaling tab with a subscript k', async (t) => {
  const { page, problems } = await session.open(t, `${PAGE}${encodeHash({ ...presetState('self'), step: 'project-q' })}`);
  const found = await page.evaluate(() => {
    const root = document.querySelector('attn-lab').shadowRoot;
    return {
      captions: [...root.querySelectorAll('caption')].filter((c) => c.querySelector('sub')).map((c) => c.textContent.trim()),
      scaleLabel: root.querySelector('input[data-control="scaling"]').closest('label').innerHTML.includes('<sub>k</sub>'),
      tab: root.querySelector('[role="tab"][data-view="scaling"]').textContent.trim(),
    };
  });
  assert.ok(
    found.captions.some((c) => /^WQ \(6×6\)/.test(c)),
    `a caption W<sub>Q</sub> (6×6): ${JSON.stringify(found.captions)}`,
  );
  assert.ok(found.scaleLabel);
  assert.equal(found.tab, 'Why 1/√dₖ');
  assertClean(problems);
});

test('an error message from the core writes W_Q and d_k with <sub> too', async (t) => {
  const { page, problems } = await session.open(t, `${PAGE}${encodeHash(presetState('self'))}`);
  const shown = await page.evaluate(async () => {
    const lab = document.querySelector('attn-lab');
    const state = lab.getState();
    // X has 6 columns; a W_Q with 3 rows cannot multiply it, so the core's message names W_Q.
    lab.setState({
      ...state,
      Wq: [
        [1, 0],
        [0, 1],
        [1, 1],
      ],
    });
    await lab.updateComplete;
    const message = lab.shadowRoot.querySelector('[data-role="message"]');
    return { text: message.textContent, subs: [...message.querySelectorAll('sub')].map((s) => s.textContent) };
  });
  assert.match(shown.text, /WQ/, shown.text);
  assert.doesNotMatch(shown.text, /[A-Za-z]_[A-Za-z0-9]/, shown.text);
  assert.ok(shown.subs.includes('Q'), JSON.stringify(shown.subs));
  assertClean(problems);
});

// ---- (c) the positions heatmap ----

test("positions: the heatmap's cells and labels are at a legible size", async (t) => {
  const { page, problems } = await session.open(t, `${PAGE}${encodeHash(presetState('positions'))}`, { view: 'positions' });
  const sizes = await page.evaluate(() => {
    const table = document.querySelector('attn-lab').shadowRoot.querySelector('attn-positions-view').shadowRoot.querySelector('table[data-matrix="encoding"]');
    const cell = table.querySelector('td[data-row="0"][data-col="0"]').getBoundingClientRect();
    const labels = [...table.querySelectorAll('th')];
    return {
      cell: [cell.width, cell.height],
      fontPx: Math.min(...labels.map((th) => parseFloat(getComputedStyle(th).fontSize))),
      clipped: labels.filter((th) => th.scrollWidth > th.clientWidth + 1).map((th) => th.textContent),
    };
  });
  // Legible: labels at 12 px or more (WCAG's usual floor for small text), cells a finger-tip
  // target of at least 16 px.
  assert.ok(sizes.fontPx >= 12, `labels at ${sizes.fontPx} px`);
  assert.ok(sizes.cell[0] >= 16 && sizes.cell[1] >= 16, `cells ${sizes.cell.join(' × ')} px`);
  assert.deepEqual(sizes.clipped, []);
  assertClean(problems);
});

// ---- (d, e) the cost view ----

const costRoot = 'document.querySelector("attn-lab").shadowRoot.querySelector("attn-cost-view").shadowRoot';

test('cost: the conclusion quotes the measured figures and growth, and the memory axis is labelled at its top', async (t) => {
  const { page, problems } = await session.open(t, `${PAGE}${encodeHash({ ...presetState('cost'), viewState: { maxN: 512, headWidth: 32 } })}`, {
    view: 'cost',
  });
  await waitForView(page, 'cost');
  await page.locator('attn-lab attn-cost-view [data-action="measure"]').click();
  await page.waitForFunction(`${costRoot}.querySelectorAll('[data-role="cost-runs"] td[data-bytes]').length === 8`, null, { timeout: 60_000 });
  await settle(page);
  const read = await page.evaluate(`(() => {
    const root = ${costRoot};
    const row = (n) => {
      const tr = root.querySelector('[data-role="cost-runs"] tr[data-n="' + n + '"]');
      const cell = (kernel, key) => tr.querySelector('td[data-kernel="' + kernel + '"][data-' + key + ']');
      return Object.fromEntries(['naive', 'flash'].flatMap((k) => [[k + 'Ms', Number(cell(k, 'ms').dataset.ms)], [k + 'MsText', cell(k, 'ms').textContent.trim()],
        [k + 'Bytes', Number(cell(k, 'bytes').dataset.bytes)], [k + 'BytesText', cell(k, 'bytes').textContent.trim()]]));
    };
    const conclusion = root.querySelector('[data-role="cost-conclusion"]');
    const chart = root.querySelector('svg[aria-label^="Peak memory"]');
    const yAxis = [...chart.querySelectorAll('.axis > line')].find((l) => l.getAttribute('x1') === l.getAttribute('x2'));
    const ticks = [...chart.querySelectorAll('.axis g')].filter((g) => g.querySelector('line[x2]'))
      .map((g) => ({ y: Number(/translate\\([^,]+,([^)]+)\\)/.exec(g.getAttribute('transform'))[1]), label: g.textContent.trim() }));
    return { last: row(512), previous: row(256), text: conclusion.textContent.replace(/\\s+/g, ' ').trim(),
      axisTop: Math.min(Number(yAxis.getAttribute('y1')), Number(yAxis.getAttribute('y2'))), ticks };
  })()`);
  const { last, previous, text } = read;
  // The figures of the largest n, as the table shows them.
  assert.match(text, /At n = 512,/);
  for (const figure of [last.naiveMsText, last.naiveBytesText, last.flashMsText, last.flashBytesText])
    assert.ok(text.includes(figure), `"${figure}" in: ${text}`);
  // The growth over the last doubling, from the table's own numbers (1 decimal).
  const ratio = (a, b) => (a / b).toFixed(1);
  assert.ok(text.includes(`memory grew ×${ratio(last.naiveBytes, previous.naiveBytes)}`), text);
  assert.ok(text.includes(`memory grew ×${ratio(last.flashBytes, previous.flashBytes)}`), text);
  // The memory axis: a labelled tick exactly at the top of the axis line.
  const top = read.ticks.find((tick) => Math.abs(tick.y - read.axisTop) < 0.5);
  assert.ok(top && top.label, `a labelled tick at the axis top y=${read.axisTop}: ${JSON.stringify(read.ticks)}`);
  assertClean(problems);
});
