// The flash view: the tile walk stepped one event at a time. Every tile's scores, running
// max, rescale factor, sum and accumulator, the finished output and the memory figures are
// the core's (lab.flashWalk called from Node with the same seeded inputs), and the walk's
// final output equals the stepper's O (lab.attention) within 1e-6.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { encodeHash, presetState } from './support/expected.js';
import { assertClean, settle, viewTables } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const lab = await createAttnLab();
const VIEW = 'attn-lab attn-flash-view';

// The view's inputs for a seed: Q, K, V of n rows and 2 columns from the core's generator.
function walkOf({ n = 8, queryRows = 2, keyRows = 2, causal = false, seed = 1 }) {
  const nested = (m) => Array.from({ length: m.rows }, (_, r) => Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols)));
  const [Q, K, V] = [0, 1, 2].map((i) => nested(lab.normalMatrix({ rows: n, cols: 2, seed: seed * 3 + i })));
  return { walk: lab.flashWalk({ Q, K, V, causal, queryRows, keyRows }), stepper: lab.attention({ Q, K, V, causal }).output };
}

const open = (t, viewState = {}, options) => session.open(t, `index.html${encodeHash({ ...presetState('flash'), viewState })}`, { view: 'flash', ...options });

/** The tables of the event on view, by data-matrix, and the grid's tile states. */
async function shown(page) {
  const tables = await viewTables(page, 'flash');
  return page.evaluate((tables) => {
    const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-flash-view').shadowRoot;
    return {
      kind: root.querySelector('[data-role="event"]').dataset.kind,
      tables,
      grid: [...root.querySelectorAll('[data-role="tile-grid"] td')].map((td) => td.dataset.state),
      memory: [...root.querySelectorAll('[data-role="memory"] [data-value]')].map((s) => Number(s.dataset.value)),
    };
  }, tables);
}

const close = (a, b, what, tolerance = 1e-6) => {
  if (b === -Infinity) return assert.equal(a, -Infinity, what);
  assert.ok(Math.abs(a - b) <= tolerance, `${what}: ${a} vs ${b}`);
};
const column = (values) => values.map((v) => [v]);
const sameMatrix = (shownValues, expected, what) => expected.forEach((row, i) => row.forEach((v, j) => close(shownValues[i][j], v, `${what} (${i}, ${j})`)));

function assertEvent(view, event) {
  assert.equal(view.kind, event.kind);
  if (event.kind === 'tile') {
    sameMatrix(view.tables['tile-scores'], event.scores, 'tile scores');
    sameMatrix(view.tables['old-max'], column(event.oldMax), 'm before');
    sameMatrix(view.tables['new-max'], column(event.newMax), 'm after');
    sameMatrix(view.tables.rescale, column(event.rescale), 'rescale');
    sameMatrix(view.tables.sum, column(event.sum), 'l');
    sameMatrix(view.tables.acc, event.acc, 'acc');
  } else {
    sameMatrix(view.tables['block-output'], event.output, 'block output');
  }
}

test("every event of the walk shows the core's numbers, stepping with Next", async (t) => {
  const { walk } = walkOf({});
  const { page, problems } = await open(t);
  for (let i = 0; i < walk.events.length; i++) {
    assertEvent(await shown(page), walk.events[i]);
    if (i < walk.events.length - 1) {
      await page.locator(`${VIEW} [data-action="next"]`).click();
      await settle(page);
    }
  }
  assertClean(problems);
});

test("the last event shows the whole output, equal to the stepper's O within 1e-6; memory figures are the core's", async (t) => {
  const settings = { n: 12, queryRows: 3, keyRows: 4, causal: true, seed: 5 };
  const { walk, stepper } = walkOf(settings);
  const { page, problems } = await open(t, { ...settings, event: walk.events.length - 1 });
  const view = await shown(page);
  sameMatrix(view.tables['walk-output'], walk.output, "the walk's O");
  sameMatrix(view.tables['attention-output'], stepper, "attention()'s O");
  sameMatrix(view.tables['walk-output'], stepper, "the walk's O against the stepper's");
  assert.deepEqual(view.memory, [walk.tileFloats, walk.matrixFloats]);
  // Causal: the blocks skip the tiles wholly after their last query.
  const visits = walk.events.filter((e) => e.kind === 'tile').length;
  assert.equal(view.grid.filter((s) => s === 'skipped').length, Math.ceil(12 / 3) * Math.ceil(12 / 4) - visits);
  assertClean(problems);
});

test('changing the tile sizes walks again from the first event', async (t) => {
  const { page, problems } = await open(t, { event: 5 });
  await page.locator(`${VIEW} select[data-control="keyRows"]`).selectOption('4');
  await settle(page);
  const { walk } = walkOf({ keyRows: 4 });
  assertEvent(await shown(page), walk.events[0]);
  assert.equal((await page.evaluate(() => document.querySelector('attn-lab').getState().viewState)).event, 0);
  assertClean(problems);
});

test('at 390 px the flash view fits the page width', async (t) => {
  const { page, problems } = await open(t, {}, { viewport: { width: 390, height: 844 } });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
  assertClean(problems);
});

// What the text must say about a tile, from the core's walk in Node: each kind of row the
// tile holds (m was −∞: nothing held yet; the max rose: rescaled; it stayed: factor 1; every
// key of the tile masked: nothing added).
function rowKinds(event) {
  const kinds = new Set();
  event.scores.forEach((scores, r) => {
    if (!scores.some(Number.isFinite)) kinds.add('masked');
    else if (event.oldMax[r] === -Infinity) kinds.add('fresh');
    else if (event.newMax[r] > event.oldMax[r]) kinds.add('raised');
    else kinds.add('kept');
  });
  return kinds;
}
const SAYS = {
  fresh: /m starts at −∞ and nothing is held yet/,
  raised: /The max rose in/,
  kept: /no score beat m, so the factor is 1/,
  masked: /every key of this tile comes later \(the causal mask\)/,
};

test("the walk's text follows its numbers at every event: −∞ at a block's first tile, no factor where nothing is held", async (t) => {
  // Causal, one query per block and one key per tile: every kind of row shows up.
  const viewState = { n: 6, queryRows: 2, keyRows: 1, causal: true, seed: 2 };
  const { walk } = walkOf(viewState);
  const seen = new Set();
  const { page, problems } = await open(t, viewState);
  for (const [index, event] of walk.events.entries()) {
    await page.evaluate((viewState) => document.querySelector('attn-lab').setState({ viewState }), { ...viewState, event: index });
    await settle(page);
    const { why, factors } = await page.evaluate(() => {
      const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-flash-view').shadowRoot;
      return {
        why: root.querySelector('[data-role="event"] [data-role="why"]').textContent.replace(/\s+/g, ' '),
        factors: [...root.querySelectorAll('table[data-matrix="rescale"] td[data-row]')].map((td) => td.textContent.trim()),
      };
    });
    if (event.kind !== 'tile') {
      seen.add(event.kind);
      assert.match(why, /O = acc \/ l/);
      continue;
    }
    const kinds = rowKinds(event);
    for (const kind of kinds) seen.add(kind);
    for (const [kind, text] of Object.entries(SAYS)) assert.equal(text.test(why), kinds.has(kind), `event ${index + 1} (${[...kinds]}): ${kind} in "${why}"`);
    // exp(m_old − m_new) of a row that held nothing is no factor at all (exp(−∞) = 0 times nothing).
    event.oldMax.forEach((m, r) => {
      if (m === -Infinity) assert.equal(factors[r], 'nothing held yet', `event ${index + 1}, row ${r + 1}`);
      else assert.notEqual(factors[r], 'nothing held yet');
    });
    if (event.keyBlock === 0) assert.ok(kinds.has('fresh') && !/nothing is rescaled/.test(why), "a block's first tile starts from −∞");
  }
  assert.deepEqual([...seen].sort(), ['finish', 'fresh', 'kept', 'masked', 'raised'], 'the walk holds every kind of event');
  assertClean(problems);
});
