// The geometry view: dragging the query (mouse and keyboard) recomputes scores, weights and
// output in the core; the output point lies inside the values' triangle; the simplex point
// is the barycentric drawing of the weights.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { encodeHash, maxAbsDiff, presetState, TOLERANCE } from './support/expected.js';
import { assertClean, labState, messageText, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const lab = await createAttnLab();
const VIEW = 'attn-lab attn-geometry-view';

const openGeometry = (t, viewState = {}) =>
  session.open(t, `index.html${encodeHash({ ...presetState('tiny'), view: 'geometry', viewState })}`, { view: 'geometry' });

/** What the view should show for its state: the core's result for Q = [query], K = keys, V = values. */
const expected = ({ query, keys, values, scaled, temperature }) =>
  lab.attention({ Q: [query], K: keys, V: values, scale: scaled ? undefined : 1, temperature });

/** Everything the view shows, read from its hooks. */
function shown(page) {
  return page.evaluate(() => {
    const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-geometry-view').shadowRoot;
    const table = (name) => {
      const values = [];
      for (const cell of root.querySelectorAll(`[data-role="numbers"] table[data-matrix="${name}"] td[data-row]`)) {
        (values[Number(cell.dataset.row)] ??= [])[Number(cell.dataset.col)] = Number(cell.dataset.value);
      }
      return values;
    };
    const translate = (el) =>
      el
        .getAttribute('transform')
        .match(/translate\(([-\d.e]+) ([-\d.e]+)\)/)
        .slice(1)
        .map(Number);
    const output = root.querySelector('[data-role="output-point"]');
    const point = root.querySelector('[data-role="simplex-point"]');
    return {
      scores: table('scores'),
      scaled: table('scaled'),
      weights: table('weights'),
      output: table('output'),
      outputPoint: [Number(output.dataset.x), Number(output.dataset.y)],
      outputPixel: translate(output),
      hullPixels: root
        .querySelector('[data-role="hull"]')
        .getAttribute('points')
        .split(' ')
        .map((p) => p.split(',').map(Number)),
      simplexPoint: [Number(point.getAttribute('cx')), Number(point.getAttribute('cy'))],
      simplexWeights: point.dataset.weights.split(',').map(Number),
      corners: [...root.querySelectorAll('[data-role="corner"]')].map((c) => [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))]),
    };
  });
}

/** Asserts that the view shows the core's numbers for its current state; returns both. */
async function assertMatchesCore(page) {
  const { viewState } = await labState(page);
  const want = expected(viewState);
  const got = await shown(page);
  for (const name of ['scores', 'scaled', 'weights', 'output']) {
    const diff = maxAbsDiff(got[name], want[name]);
    assert.ok(diff <= TOLERANCE, `${name}: max abs diff ${diff} from lab.attention()`);
  }
  assert.ok(maxAbsDiff([got.outputPoint], want.output) <= TOLERANCE, 'the output point sits at the core output');
  assert.ok(maxAbsDiff([got.simplexWeights], want.weights) <= TOLERANCE, 'the simplex point carries the weights');
  return { viewState, want, got };
}

// Barycentric coordinates of p in triangle abc (plain geometry, to check the drawing).
function barycentric(p, [a, b, c]) {
  const det = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);
  const l2 = ((p[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (p[1] - a[1])) / det;
  const l3 = ((b[0] - a[0]) * (p[1] - a[1]) - (p[0] - a[0]) * (b[1] - a[1])) / det;
  return [1 - l2 - l3, l2, l3];
}

const center = async (locator) => {
  const box = await locator.boundingBox();
  return [box.x + box.width / 2, box.y + box.height / 2];
};

test("the scores, weights and output shown are the core's, with and without scaling and temperature", async (t) => {
  const { page, problems } = await openGeometry(t);
  await assertMatchesCore(page);
  await page.locator(`${VIEW} [data-control="scaled"]`).uncheck();
  await settle(page);
  assert.equal((await labState(page)).viewState.scaled, false);
  const { want } = await assertMatchesCore(page);
  assert.equal(want.scale, 1);
  await page.locator(`${VIEW} [data-control="temperature"]`).fill('2.5');
  await settle(page);
  assert.equal((await labState(page)).viewState.temperature, 2.5);
  await assertMatchesCore(page);
  assertClean(problems);
});

test('dragging the query onto k₁ with the mouse updates the numbers live and raises w₁', async (t) => {
  const { page, problems } = await openGeometry(t);
  const before = await assertMatchesCore(page);
  const start = await center(page.locator(`${VIEW} [data-control="query"] circle`).first());
  const target = await center(page.locator(`${VIEW} [data-control="key"][data-index="0"] rect`));

  await page.mouse.move(...start);
  await page.mouse.down();
  await page.mouse.move((start[0] + target[0]) / 2, (start[1] + target[1]) / 2, { steps: 4 });
  await settle(page);
  const midway = await assertMatchesCore(page); // live: the numbers follow before the button is released
  assert.notDeepEqual(midway.viewState.query, before.viewState.query, 'the query moves while dragging');
  await page.mouse.move(...target, { steps: 4 });
  await page.mouse.up();
  await settle(page);

  const after = await assertMatchesCore(page);
  const k1 = after.viewState.keys[0];
  assert.ok(Math.hypot(after.viewState.query[0] - k1[0], after.viewState.query[1] - k1[1]) < 0.05, `query ${after.viewState.query} is on k₁ ${k1}`);
  const w = after.want.weights[0];
  assert.ok(w[0] > before.want.weights[0][0], 'w₁ grew');
  assert.ok(w[0] > w[1] && w[0] > w[2], 'k₁ has the largest weight');
  assert.deepEqual(after.viewState.keys, before.viewState.keys, 'the keys stay put');
  assertClean(problems);
});

test('the arrow keys move the focused query (Shift for bigger steps) and a value', async (t) => {
  const { page, problems } = await openGeometry(t, { query: [0, 0] });
  const handle = page.locator(`${VIEW} [data-control="query"]`);
  await handle.focus();
  for (const key of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowUp', 'ArrowUp', 'Shift+ArrowDown']) await page.keyboard.press(key);
  await settle(page);
  const { viewState } = await assertMatchesCore(page);
  assert.deepEqual(viewState.query, [0.3, -0.3]);
  assert.equal(await handle.getAttribute('aria-valuetext'), 'q at (0.3, −0.3)');
  assert.equal((await labState(page)).view, 'geometry', 'the host does not step the stepper on arrow keys');

  const before = (await labState(page)).viewState.values;
  await page.locator(`${VIEW} [data-control="value"][data-index="1"]`).focus();
  await page.keyboard.press('ArrowLeft');
  await settle(page);
  const moved = await assertMatchesCore(page);
  assert.deepEqual(moved.viewState.values[1], [before[1][0] - 0.1, before[1][1]]);
  assert.deepEqual(moved.viewState.query, [0.3, -0.3], 'moving a value leaves the query alone');

  await page.locator(`${VIEW} [data-control="reset"]`).click();
  await settle(page);
  const reset = await assertMatchesCore(page);
  assert.deepEqual(reset.viewState.query, [1, 0.5], 'reset brings the default points back');
  assert.deepEqual(reset.viewState.values[1], [-2, 1]);
  assertClean(problems);
});

test("the output point lies inside the values' triangle, and the simplex point is w₁·c₁ + w₂·c₂ + w₃·c₃", async (t) => {
  const { page, problems } = await openGeometry(t);
  const states = [
    {},
    { query: [-2.5, 2.9], temperature: 0.25 },
    {
      query: [3, -3],
      keys: [
        [0, 3],
        [3, 0],
        [-3, -3],
      ],
      values: [
        [-3, -3],
        [3, -2],
        [0.2, 2.7],
      ],
      scaled: false,
    },
    {
      query: [0.4, 0.1],
      keys: [
        [1, 1],
        [1, 1.1],
        [0.9, 1],
      ],
      values: [
        [1, 0],
        [0, 1],
        [-1, -1],
      ],
      temperature: 4,
    },
  ];
  for (const viewState of states) {
    await page.evaluate((viewState) => document.querySelector('attn-lab').setState({ viewState }), viewState);
    await settle(page);
    const { want, got, viewState: full } = await assertMatchesCore(page);
    // In data coordinates: the output's barycentric coordinates in the values' triangle are the weights, all ≥ 0.
    const inData = barycentric(got.outputPoint, full.values);
    inData.forEach((l, i) => assert.ok(l >= -1e-6, `barycentric coordinate ${i} = ${l} is not negative`));
    assert.ok(maxAbsDiff([inData], want.weights) < 1e-5, `barycentric ${inData} equals the weights ${want.weights[0]}`);
    // In pixels: the drawn output point is inside the drawn triangle.
    barycentric(got.outputPixel, got.hullPixels).forEach((l) => assert.ok(l >= -1e-6, `drawn output outside the drawn triangle (${l})`));
    // The simplex point is the weights' barycentric combination of the drawn corners.
    const drawn = [0, 1].map((axis) => got.corners.reduce((acc, corner, i) => acc + want.weights[0][i] * corner[axis], 0));
    assert.ok(Math.hypot(drawn[0] - got.simplexPoint[0], drawn[1] - got.simplexPoint[1]) < 1e-3, 'simplex point');
  }
  assertClean(problems);
});

test('a view state off the plane is refused with a message, and the last good view stays', async (t) => {
  const { page, problems } = await openGeometry(t, { query: [1, 1] });
  await page.evaluate(() => document.querySelector('attn-lab').setState({ viewState: { query: [9, 0] } }));
  await settle(page);
  assert.match(await messageText(page), /geometry view's "query" must be a point/);
  assert.deepEqual((await labState(page)).viewState.query, [1, 1]);
  await assertMatchesCore(page);
  assertClean(problems);
});
