// Honest colour scales (issue 13, item 1): weights on one fixed 0-to-1 scale, scores on a
// scale symmetric around 0 shared by the heads of a step, legends that name the scale, the
// same colours in the stepper, the patterns view and the SVG export, and a hover highlight
// that stands out on every colour of the scale.
//
// Oracles: the numbers come from the built core in Node (expectedTrace); the colours are
// checked against the published palettes, not against the element's code: for weights,
// viridis' ends and middle (rgb(68, 1, 84) purple at 0, rgb(33, 144, 141) teal at 0.5,
// rgb(253, 231, 37) yellow at 1) and its luminance rising with the value; for scores,
// ColorBrewer RdBu's ends and middle (rgb(33, 102, 172) blue at the negative end,
// rgb(247, 247, 247) at 0, rgb(178, 24, 43) red at the positive end); WCAG's contrast formula.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { encodeHash, expectedTrace, presetState } from './support/expected.js';
import { assertClean, goToStep, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';
import { contrast, luminance } from './support/wcag.js';

const session = browserSession('web/dist');

// The weights scale's bottom and middle colours (the viridis stops at 0 and 0.5).
const BOTTOM = 'rgb(68, 1, 84)';
const MIDDLE = 'rgb(33, 144, 141)';
// The scores scale's ends and zero (RdBu's blue end, middle and red end).
const SCORE_BOTTOM = 'rgb(33, 102, 172)';
const SCORE_ZERO = 'rgb(247, 247, 247)';
const SCORE_TOP = 'rgb(178, 24, 43)';
// On a dark background the diverging palette's ends are lighter and its zero a dark grey.
const SCORE_DARK = { bottom: 'rgb(146, 197, 240)', zero: 'rgb(46, 49, 56)', top: 'rgb(250, 160, 138)' };

/** Every cell of the tables named `matrix` in `role` ("result" or "operands"): [{ head, row, col, value, background }]. */
function cells(page, role, matrix) {
  return page.evaluate(
    ([role, matrix]) => {
      const root = document.querySelector('attn-lab').shadowRoot;
      return [...root.querySelectorAll(`[data-role="${role}"] table[data-matrix="${matrix}"]`)].flatMap((table) =>
        [...table.querySelectorAll('td[data-row]')].map((td) => ({
          head: Number(table.dataset.head || 0),
          row: Number(td.dataset.row),
          col: Number(td.dataset.col),
          value: Number(td.dataset.value),
          background: getComputedStyle(td).backgroundColor,
        })),
      );
    },
    [role, matrix],
  );
}

/** The legend under each table named `matrix` in `role`: its parts' texts, space-separated. */
const legends = (page, role, matrix) =>
  page.evaluate(
    ([role, matrix]) =>
      [...document.querySelector('attn-lab').shadowRoot.querySelectorAll(`[data-role="${role}"] table[data-matrix="${matrix}"]`)].map((table) =>
        [...(table.closest('figure').querySelector('[data-role="legend"]')?.children ?? [])]
          .map((part) => part.textContent.trim())
          .filter(Boolean)
          .join(' '),
      ),
    [role, matrix],
  );

const near = (list, value, tolerance = 5e-5) => {
  const found = list.find((c) => Math.abs(c.value - value) <= tolerance);
  assert.ok(found, `no cell holds ${value}: ${list.map((c) => c.value).join(', ')}`);
  return found;
};

// The tiny example with its first keys (a tie in each row), which these tests' numbers come from.
const tiny = (extra) => ({
  ...presetState('tiny'),
  K: [
    [1, 0],
    [1, 1],
    [0, 1],
  ],
  ...extra,
});
// A Q/K/V state of the tiny example's form, with as many padding flags as keys.
const qkv = (extra) => tiny({ ...extra, keyPadding: extra.K.map(() => false) });

test('weights are on one fixed 0-to-1 scale: T = 0.1 and T = 4 colour 0.0004 and 0.2953 differently', async (t) => {
  const shown = {};
  for (const temperature of [0.1, 4]) {
    const state = tiny({ temperature, step: 'softmax' });
    const { page, problems } = await session.open(t, encodeHash(state));
    const got = await cells(page, 'result', 'softmax');
    // The numbers are the core's (so the weights below are the issue's).
    const want = expectedTrace(state).steps.find((s) => s.id === 'softmax').values;
    for (const c of got) assert.ok(Math.abs(c.value - want[c.row][c.col]) <= 1e-6);
    shown[temperature] = got;
    assertClean(problems);
  }
  const [small, large] = [near(shown[0.1], 0.0004, 1e-4), near(shown[0.1], 0.4998, 1e-4)];
  const [low4, high4] = [near(shown[4], 0.2953, 1e-4), near(shown[4], 0.3524, 1e-4)];
  assert.notEqual(small.background, low4.background, '0.0004 (T = 0.1) and 0.2953 (T = 4) share a colour');
  assert.notEqual(large.background, high4.background, '0.4998 (T = 0.1) and 0.3524 (T = 4) share a colour');
  // On 0…1: almost 0 is the bottom colour, almost ½ the middle one, whatever the matrix holds.
  assert.equal(small.background, BOTTOM);
  assert.equal(large.background, MIDDLE);
  // Viridis gets lighter as the value grows: across both matrices, a larger weight is never darker.
  const all = [...shown[0.1], ...shown[4]].sort((a, b) => a.value - b.value);
  for (let i = 1; i < all.length; i++) {
    assert.ok(luminance(all[i].background) >= luminance(all[i - 1].background) - 1e-9, `${all[i].value} is darker than ${all[i - 1].value}`);
  }
});

// Two heads of width 2 whose scores share the values 0 and 1 but not their ranges (head 1
// spans 0…1, head 2 spans 0…2), and whose weights share 1/3 (a query of zeros).
const twoHeads = qkv({
  Q: [
    [1, 0, 1, 0],
    [0, 0, 0, 0],
  ],
  K: [
    [1, 0, 1, 0],
    [0, 0, 0, 0],
    [0, 1, 2, 0],
  ],
  V: [
    [1, 0, 1, 0],
    [0, 1, 0, 1],
    [1, 1, 1, 1],
  ],
  tokens: [],
  heads: 2,
});

test('equal values get equal colours across the two heads, scores and weights alike', async (t) => {
  const { page, problems } = await session.open(t, encodeHash({ ...twoHeads, step: 'scores' }));
  const trace = expectedTrace(twoHeads);
  const scores = trace.steps.filter((s) => s.id === 'scores').map((s) => s.values);
  assert.deepEqual(
    scores,
    [
      [
        [1, 0, 0],
        [0, 0, 0],
      ],
      [
        [1, 0, 2],
        [0, 0, 0],
      ],
    ],
    'the inputs make the scores this test is about',
  );
  const shownScores = await cells(page, 'result', 'scores');
  for (const value of [0, 1]) {
    const colours = new Set(shownScores.filter((c) => c.value === value).map((c) => c.background));
    assert.equal(colours.size, 1, `score ${value}: ${[...colours].join(', ')}`);
  }
  // Symmetric around 0 out to max |score| = 2, shared: 0 is the middle, 2 the top, in both heads.
  assert.equal(shownScores.find((c) => c.value === 0 && c.head === 0).background, SCORE_ZERO);
  assert.equal(shownScores.find((c) => c.value === 2).background, SCORE_TOP);
  assert.deepEqual(await legends(page, 'result', 'scores'), Array(2).fill('scores, symmetric around 0, shared by the 2 heads: −2 2'));

  await goToStep(page, 'softmax');
  const weights = trace.steps.filter((s) => s.id === 'softmax').map((s) => s.values);
  const shownWeights = await cells(page, 'result', 'softmax');
  const third = shownWeights.filter((c) => Math.abs(c.value - 1 / 3) < 1e-6);
  assert.deepEqual(third.map((c) => c.head).sort(), [0, 0, 0, 1, 1, 1], `1/3 in both heads: ${JSON.stringify(weights)}`);
  assert.equal(new Set(third.map((c) => c.background)).size, 1);
  // The softmax step's operand (the scaled scores) shares one scale across the heads too.
  const operands = await cells(page, 'operands', 'scale');
  assert.equal(new Set(operands.filter((c) => c.value === 0).map((c) => c.background)).size, 1);
  assert.deepEqual(await legends(page, 'result', 'softmax'), Array(2).fill('weights, fixed 0 to 1: 0 1'));
  assertClean(problems);
});

test('a score of 0 sits at the middle of the scores scale, and each legend names its scale', async (t) => {
  const { page, problems } = await session.open(t, encodeHash(tiny({ step: 'scores' })));
  // The tiny example's scores are [[1, 1, 0], [0, 1, 1]]: symmetric scale −1…1.
  const scores = await cells(page, 'result', 'scores');
  assert.deepEqual(
    scores.map((c) => [c.value, c.background]),
    [
      [1, SCORE_TOP],
      [1, SCORE_TOP],
      [0, SCORE_ZERO],
      [0, SCORE_ZERO],
      [1, SCORE_TOP],
      [1, SCORE_TOP],
    ],
  );
  assert.deepEqual(await legends(page, 'result', 'scores'), ['scores, symmetric around 0: −1 1']);
  await goToStep(page, 'softmax');
  assert.match((await legends(page, 'operands', 'scale'))[0], /^scores, symmetric around 0: /);
  assert.match((await legends(page, 'result', 'softmax'))[0], /^weights, fixed 0 to 1: 0 1$/);
  assertClean(problems);
});

test('the same weights look the same in the stepper and in the patterns gallery', async (t) => {
  const stepper = await session.open(t, encodeHash({ ...presetState('local'), step: 'softmax' }));
  const inStepper = await cells(stepper.page, 'result', 'softmax');
  const gallery = await session.open(t, 'index.html#view=patterns', { view: 'patterns' });
  const inGallery = await gallery.page.evaluate(() => {
    const view = document.querySelector('attn-lab').shadowRoot.querySelector('attn-patterns-view').shadowRoot;
    return [...view.querySelectorAll('[data-pattern="local"] table[data-matrix="softmax"] td[data-row]')].map((td) => ({
      value: Number(td.dataset.value),
      background: getComputedStyle(td).backgroundColor,
    }));
  });
  assert.equal(inGallery.length, inStepper.length);
  inGallery.forEach((cell, i) => {
    assert.ok(Math.abs(cell.value - inStepper[i].value) <= 1e-6);
    assert.equal(cell.background, inStepper[i].background, `cell ${i} (${cell.value})`);
  });
  assert.ok(new Set(inStepper.map((c) => c.background)).size > 2, 'the band shows more than two colours');
});

test('the SVG export colours each cell as the screen does', async (t) => {
  const { page } = await session.open(t, encodeHash({ ...twoHeads, step: 'scores' }));
  const shown = await cells(page, 'result', 'scores');
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('attn-lab [data-export="svg"]').click()]);
  const svg = (await readFile(await download.path())).toString();
  const fills = [...svg.matchAll(/<rect x="[^"]*" y="[^"]*" width="[^"]*" height="[^"]*" fill="rgb\(([^)]*)\)"/g)].map(
    ([, rgb]) => `rgb(${rgb.split(',').join(', ')})`,
  );
  // The first file is head 1: its six cells, on the scale shared with head 2 (1 is not the top).
  assert.deepEqual(
    fills,
    shown.filter((c) => c.head === 0).map((c) => c.background),
  );
  assert.notEqual(fills[0], SCORE_TOP);
  assert.match(svg, /Colour: scores, symmetric around 0, shared by the 2 heads/);
});

test('the hover highlight stands out on every colour of the scale, light and dark', async (t) => {
  // Scores −2…2 in steps of 0.5 give cells from the bottom colour to the top one.
  const state = qkv({ Q: [[1, 0]], K: [-4, -3, -2, -1, 0, 1, 2, 3, 4].map((k) => [k / 2, 0]), V: Array(9).fill([1, 0]), tokens: [], step: 'scores' });
  for (const colorScheme of ['light', 'dark']) {
    const { page, problems } = await session.open(t, encodeHash(state), { colorScheme });
    const shown = await cells(page, 'result', 'scores');
    assert.equal(shown[0].background, colorScheme === 'dark' ? SCORE_DARK.bottom : SCORE_BOTTOM);
    assert.equal(shown.at(-1).background, colorScheme === 'dark' ? SCORE_DARK.top : SCORE_TOP);
    for (const { col } of shown) {
      const cell = page.locator(`attn-lab [data-role="result"] td[data-row="0"][data-col="${col}"]`);
      await cell.hover();
      await settle(page);
      const look = await cell.evaluate((td) => {
        const style = getComputedStyle(td);
        const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2 ? [style.outlineColor] : [];
        return { classes: td.className, background: style.backgroundColor, outline, shadow: style.boxShadow };
      });
      assert.match(look.classes, /\bhl-cell\b/);
      // The rings: a drawn outline and the inset shadows' colours. One of them must stand out
      // (3:1, WCAG's contrast for graphical objects) against the cell's own colour.
      const rings = [...look.outline, ...(look.shadow.match(/rgba?\([^)]*\)/g) ?? [])].filter((c) => !/rgba\([^)]*, 0\)/.test(c));
      const best = Math.max(0, ...rings.map((ring) => contrast(ring, look.background)));
      assert.ok(best >= 3, `${colorScheme}, ${look.background}: rings ${rings.join(' / ')} reach ${best.toFixed(2)}:1`);
    }
    assertClean(problems);
  }
});

test("a step draws its input and result scores on one scale: the mask keeps the survivors' colours, the scale step shows the shrink", async (t) => {
  const { page, problems } = await session.open(t, encodeHash({ ...presetState('two-heads'), causal: true, step: 'mask' }));
  const inputs = await cells(page, 'operands', 'scale');
  const results = await cells(page, 'result', 'mask');
  const kept = results.filter((c) => Number.isFinite(c.value));
  assert.ok(kept.length > 0 && kept.length < results.length, 'some cells are masked, some kept');
  for (const c of kept) {
    const input = inputs.find((i) => i.head === c.head && i.row === c.row && i.col === c.col);
    assert.equal(c.background, input.background, `head ${c.head + 1} (${c.row}, ${c.col}) = ${c.value}: same colour before and after the mask`);
  }
  // Scaling divides every score by √d_k > 1: the largest scaled score is no longer the top colour.
  await goToStep(page, 'scale');
  const [before] = await legends(page, 'operands', 'scores');
  const [after] = await legends(page, 'result', 'scale');
  assert.equal(after, before, 'one legend for the step');
  const scaled = await cells(page, 'result', 'scale');
  const largest = scaled.reduce((a, b) => (b.value > a.value ? b : a));
  assert.notEqual(largest.background, SCORE_TOP, `the largest scaled score ${largest.value} sits below the top of the scores' scale`);
  assertClean(problems);
});

test('the scores scale fits what a step shows: S̃ and the scores at the scale step share one, the mask step fits S̃; masked weights are hatched', async (t) => {
  const state = { ...presetState('two-heads'), causal: true, step: 'scale' };
  const trace = expectedTrace(state);
  const { page, problems } = await session.open(t, encodeHash(state));
  const bound = (ids) => Math.max(...trace.steps.filter((s) => ids.includes(s.id)).flatMap((s) => s.values.flat().filter(Number.isFinite).map(Math.abs)));
  const end = (legend) => Number(legend.split(' ').at(-1).replace('−', '-')); // the legend's top
  const near = (a, b) => Math.abs(a - b) <= 0.001 * b;
  const [scaleLegend] = await legends(page, 'result', 'scale');
  // The scale step shows S and S̃: one scale out to the larger, so the shrink shows.
  assert.ok(near(end(scaleLegend), bound(['scores', 'scale'])), `${scaleLegend} against ${bound(['scores', 'scale'])}`);
  await goToStep(page, 'mask');
  // The mask step shows S̃ and the masked S̃ alone: its scale fits them, not the unscaled S.
  const [maskLegend] = await legends(page, 'operands', 'scale');
  assert.ok(near(end(maskLegend), bound(['scale', 'mask'])), `${maskLegend} against ${bound(['scale', 'mask'])}`);
  assert.ok(bound(['scale', 'mask']) < bound(['scores']), 'the unscaled scores are larger than what the mask step shows');
  const atMask = await cells(page, 'operands', 'scale');
  const top = atMask.reduce((a, c) => (Math.abs(c.value) > Math.abs(a.value) ? c : a));
  assert.equal(top.background, top.value > 0 ? SCORE_TOP : SCORE_BOTTOM, 'the largest S̃ reaches the end of the mask step’s scale');

  // The weights a mask blocked (the core's logits are −∞ there) are hatched, at softmax and as A at the outputs step.
  const blocked = new Set(
    trace.steps
      .filter((s) => s.id === 'softmax')
      .flatMap((s) => s.operands[0].values.flatMap((row, r) => row.flatMap((v, col) => (v === -Infinity ? [`${s.head},${r},${col}`] : [])))),
  );
  assert.ok(blocked.size > 0, 'the causal mask blocks some weights');
  for (const [step, role] of [
    ['softmax', 'result'],
    ['aggregate', 'operands'],
  ]) {
    await goToStep(page, step);
    const hatched = await page.evaluate((role) => {
      const root = document.querySelector('attn-lab').shadowRoot;
      return [...root.querySelectorAll(`[data-role="${role}"] table[data-matrix="softmax"]`)].flatMap((table) =>
        [...table.querySelectorAll('td[data-row]')].map((td) => [
          `${table.dataset.head || 0},${td.dataset.row},${td.dataset.col}`,
          getComputedStyle(td).backgroundImage.includes('repeating-linear-gradient'),
        ]),
      );
    }, role);
    for (const [cell, isHatched] of hatched) assert.equal(isHatched, blocked.has(cell), `${step}: weight ${cell} hatched iff masked`);
  }
  assertClean(problems);
});

test('dark mode: a score of 0 is a quiet dark grey, not a glaring white cell', async (t) => {
  const { page, problems } = await session.open(t, encodeHash(tiny({ step: 'scores' })), { colorScheme: 'dark' });
  const zero = (await cells(page, 'result', 'scores')).find((c) => c.value === 0);
  assert.equal(zero.background, SCORE_DARK.zero);
  const host = await page.evaluate(() => getComputedStyle(document.querySelector('attn-lab')).backgroundColor);
  assert.ok(contrast(zero.background, host) < 1.5, `zero ${zero.background} sits close to the background ${host}`);
  assertClean(problems);
});

test('masked weights are hatched in the views too: the patterns gallery and the tokens thumbnails', async (t) => {
  const causal = presetState('causal');
  const logits = expectedTrace(causal).steps.find((s) => s.id === 'softmax').operands[0].values;
  const want = logits.flatMap((row, r) => row.map((v, c) => [`${r},${c}`, v === -Infinity]));
  assert.ok(want.some(([, masked]) => masked) && want.some(([, masked]) => !masked));
  const hatched = (page, view, selector) =>
    page.evaluate(
      ([view, selector]) => {
        const root = document.querySelector('attn-lab').shadowRoot.querySelector(`attn-${view}-view`).shadowRoot;
        return [...root.querySelectorAll(`${selector} td[data-row]`)].map((td) => [
          `${td.dataset.row},${td.dataset.col}`,
          getComputedStyle(td).backgroundImage.includes('repeating-linear-gradient'),
        ]);
      },
      [view, selector],
    );
  const patterns = await session.open(t, 'index.html#view=patterns', { view: 'patterns' });
  assert.deepEqual(await hatched(patterns.page, 'patterns', '[data-pattern="causal"] table'), want);
  assertClean(patterns.problems);
  const tokens = await session.open(t, `index.html${encodeHash({ ...causal, view: 'tokens', viewState: {} })}`, { view: 'tokens' });
  assert.deepEqual(await hatched(tokens.page, 'tokens', '[data-role="heads"] table'), want);
  assertClean(tokens.problems);
});

test("masked weights are hatched in the train view's heads: every cell above the diagonal, none on or below it", async (t) => {
  const { page, problems } = await session.open(t, 'index.html#view=train', { view: 'train' });
  const table = 'attn-lab attn-train-view [data-layer="0"] table';
  await page.locator(`${table} td[data-row]`).first().waitFor();
  const cells = await page
    .locator(`${table} td[data-row]`)
    .evaluateAll((tds) =>
      tds.map((td) => [Number(td.dataset.row), Number(td.dataset.col), getComputedStyle(td).backgroundImage.includes('repeating-linear-gradient')]),
    );
  // The trainer's heads are causal: query position i sees keys 1 … i, so the key after it is masked.
  assert.ok(cells.length >= 16, `${cells.length} cells`);
  for (const [row, col, hatched] of cells) assert.equal(hatched, col > row, `row ${row + 1}, column ${col + 1}`);
  assertClean(problems);
});

test('the variants view keeps one colour per value across steps, hatches its masked weights, and its dark zero is quiet', async (t) => {
  for (const colorScheme of ['light', 'dark']) {
    const { page, problems } = await session.open(t, 'index.html#view=variants', { view: 'variants', colorScheme });
    const read = (matrix) =>
      page.evaluate((matrix) => {
        const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-variants-view').shadowRoot;
        return [...root.querySelectorAll(`table[data-matrix="${matrix}"]`)].flatMap((table) =>
          [...table.querySelectorAll('td[data-row]')].map((td) => ({
            key: `${table.dataset.head || 0},${td.dataset.row},${td.dataset.col}`,
            row: Number(td.dataset.row),
            col: Number(td.dataset.col),
            value: Number(td.dataset.value),
            background: getComputedStyle(td).backgroundColor,
            hatched: getComputedStyle(td).backgroundImage.includes('repeating-linear-gradient'),
          })),
        );
      }, matrix);
    // A sliding window of 2 (|i − j| < 2): the mask step shows S̃ as its input, the scale step as its result.
    const show = async (step, matrix) => {
      await page.evaluate((step) => document.querySelector('attn-lab').setState({ viewState: { window: 2, step } }), step);
      await page.locator(`attn-lab attn-variants-view [data-role="step"][data-step="${step}"] table[data-matrix="${matrix}"]`).first().waitFor();
      return read(matrix);
    };
    const atScale = new Map((await show('scale', 'scale')).map((c) => [c.key, c.background]));
    const atMask = await show('mask', 'scale');
    assert.equal(atMask.length, atScale.size);
    for (const c of atMask) assert.equal(c.background, atScale.get(c.key), `${colorScheme}: S̃ ${c.key} = ${c.value}: one colour at both steps`);
    if (colorScheme === 'dark') {
      const zero = atMask.reduce((best, c) => (Math.abs(c.value) < Math.abs(best.value) ? c : best));
      assert.ok(Math.abs(zero.value) < 0.05, `a score near 0: ${zero.value}`);
      assert.equal(zero.background, SCORE_DARK.zero, `dark: S̃ = ${zero.value} is the quiet grey`);
    }
    const weights = await show('softmax', 'softmax');
    assert.ok(weights.length >= 36);
    for (const c of weights) assert.equal(c.hatched, Math.abs(c.row - c.col) >= 2, `${colorScheme}: weight ${c.key} hatched iff outside the window`);
    assertClean(problems);
  }
});
