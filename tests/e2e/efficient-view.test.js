// The efficient view (issue 37, item 6): cheaper attention beside the exact one. Every matrix
// shown is checked against the core called here from Node on the same inputs (≤ 1e-5): exact
// softmax, and each family's weights (linear, FAVOR+, retention, SVD, Linformer, BigBird,
// strided); hidden keys are hatched where the core's pattern says; the recurrent state S_t at
// a token is the core's over the prefix; a knob changes the numbers; one Tab stop per matrix
// with the arrows inside; axe clean in both themes; 390 px without sideways scrolling; the URL
// round-trips the view state; a refused knob leaves a message and the last good numbers. A
// family or knob change is timed (setState to the view's rendered update) and must stay under
// 100 ms on the default example.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { waitForLinkState } from '../support/state-link.js';
import { auditThemes } from './support/axe.js';
import { encodeHash, expectedTrace, presetState } from './support/expected.js';
import { assertClean, labState, messageText, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const lab = await createAttnLab();
const VIEW = 'attn-lab attn-efficient-view';
const TOLERANCE = 1e-5;
const DEFAULTS = { n: 8, width: 4, seed: 1, causal: true, featureMap: 'elu', features: 16, decay: 0.9, rank: 2, window: 2, globals: 1, random: 1, stride: 3 };

// The view's body loads on first opening (views/efficient/body/): wait for its weights.
const ready = (page) => page.locator(`${VIEW} table[data-matrix="family-weights"]`).waitFor({ timeout: 30_000 });
async function open(t, viewState = {}, options) {
  const opened = await session.open(t, `index.html${encodeHash({ ...presetState('efficient'), viewState })}`, { view: 'efficient', ...options });
  await ready(opened.page);
  return opened;
}

// The random example as the view draws it: rows of lab.normalMatrix, Q then K then V.
function inputs({ n, width: d, seed }) {
  const { data } = lab.normalMatrix({ rows: 3 * n, cols: d, seed });
  const block = (b) => Array.from({ length: n }, (_, i) => Array.from(data.subarray((b * n + i) * d, (b * n + i + 1) * d)));
  return { Q: block(0), K: block(1), V: block(2) };
}

/** Every table of the view by data-matrix: values and hatched cells. */
function shown(page) {
  return page.evaluate(() => {
    const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-efficient-view').shadowRoot;
    const tables = {};
    for (const table of root.querySelectorAll('table[data-matrix]')) {
      const values = [];
      const masked = [];
      for (const cell of table.querySelectorAll('td[data-row]')) {
        const [r, c] = [Number(cell.dataset.row), Number(cell.dataset.col)];
        (values[r] ??= [])[c] = Number(cell.dataset.value);
        (masked[r] ??= [])[c] = cell.classList.contains('masked');
      }
      tables[table.dataset.matrix] = { values, masked };
    }
    return { tables, text: root.textContent };
  });
}

function sameMatrix(got, expected, what) {
  assert.ok(got, `${what}: shown`);
  assert.equal(got.length, expected.length, `${what}: rows`);
  expected.forEach((row, i) => row.forEach((v, j) => assert.ok(Math.abs(got[i][j] - v) <= TOLERANCE, `${what} (${i}, ${j}): ${got[i][j]} vs ${v}`)));
}

// Each family's weights from the core, the way its paper defines them (the request written here).
const FAMILY_WEIGHTS = {
  linear: (x, v) => lab.linearAttention({ ...x, featureMap: v.featureMap, causal: v.causal, form: 'parallel' }).weights,
  favor: (x, v) => lab.linearAttention({ ...x, featureMap: 'favor', features: v.features, seed: v.seed, causal: v.causal }).weights,
  retention: (x, v) => lab.retention({ ...x, decay: v.decay }).weights,
  svd: (x, v) => lab.lowRankAttention({ ...x, rank: v.rank, causal: v.causal }).weights,
  linformer: (x, v) => lab.lowRankAttention({ ...x, rank: v.rank, method: 'linformer', seed: v.seed }).weights,
  bigbird: (x, v) => lab.attention({ ...x, causal: v.causal, mask: bigbird(v).mask }).weights,
  strided: (x, v) => lab.attention({ ...x, causal: v.causal, mask: lab.sparsePattern({ queries: v.n, stride: v.stride, window: v.stride }).mask }).weights,
};
const bigbird = (v) => lab.sparsePattern({ queries: v.n, window: v.window, globalTokens: [0], random: v.random, seed: v.seed });
const causalOf = (family, causal) => (family === 'retention' ? true : family === 'linformer' ? false : causal);

/** setState to the view's rendered update, in ms (performance.now in the page). */
const timedChange = (page, viewState) =>
  page.evaluate(async (viewState) => {
    const host = document.querySelector('attn-lab');
    const start = performance.now();
    host.setState({ viewState });
    await host.updateComplete;
    await host.shadowRoot.querySelector('attn-efficient-view').updateComplete;
    return performance.now() - start;
  }, viewState);

test('#view=efficient opens the view; every family shows the core’s weights beside exact softmax’s, each change under 100 ms', async (t) => {
  const { page, problems } = await session.open(t, 'index.html#view=efficient', { view: 'efficient' });
  await ready(page);
  const x = inputs(DEFAULTS);
  const times = [];
  for (const family of ['linear', 'favor', 'retention', 'svd', 'linformer', 'bigbird', 'strided']) {
    const v = { ...DEFAULTS, family };
    times.push([family, await timedChange(page, { family })]);
    await settle(page);
    const { tables, text } = await shown(page);
    const causal = causalOf(family, v.causal);
    sameMatrix(tables['exact-weights'].values, lab.attention({ ...x, causal }).weights, `${family}: exact weights`);
    const expected = FAMILY_WEIGHTS[family](x, { ...v, causal });
    sameMatrix(tables['family-weights'].values, expected, `${family}: the family's weights`);
    assert.doesNotMatch(text, /NaN/, `${family}: no NaN`);
    if (family === 'bigbird') {
      const mask = bigbird(v).mask;
      tables['family-weights'].masked.forEach((row, i) => row.forEach((m, j) => assert.equal(m, !(mask[i][j] && j <= i), `hatched (${i}, ${j})`)));
    }
  }
  // Knobs too: the time of each, with the family's.
  for (const change of [
    { family: 'favor', features: 64 },
    { family: 'svd', rank: 5 },
    { family: 'retention', decay: 0.5 },
    { family: 'bigbird', window: 3 },
  ])
    times.push([JSON.stringify(change), await timedChange(page, change)]);
  t.diagnostic(`setState to rendered, ms: ${times.map(([what, ms]) => `${what} ${ms.toFixed(1)}`).join(', ')}`);
  const sorted = times.map(([, ms]) => ms).sort((a, b) => a - b);
  const median = sorted[sorted.length >> 1];
  t.diagnostic(`family or knob change: median ${median.toFixed(1)} ms, max ${sorted.at(-1).toFixed(1)} ms`);
  // The median, as the machine may be shared (a single change can wait on another process).
  assert.ok(median < 100, `median ${median} ms`);
  assertClean(problems);
});

test('a knob changes the numbers: FAVOR+ m by its slider, the SVD rank with the Eckart–Young sentence', async (t) => {
  const { page, problems } = await open(t, { family: 'favor' });
  const x = inputs(DEFAULTS);
  const setRange = (control, value) =>
    page.locator(`${VIEW} input[data-control="${control}"]`).evaluate((input, value) => {
      input.value = String(value);
      input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    }, value);
  const before = (await shown(page)).tables['family-weights'].values;
  await setRange('features', 256);
  await settle(page);
  assert.equal((await labState(page)).viewState.features, 256);
  const after = (await shown(page)).tables['family-weights'].values;
  sameMatrix(after, FAMILY_WEIGHTS.favor(x, { ...DEFAULTS, features: 256 }), 'FAVOR+ at m = 256');
  assert.ok(
    after.some((row, i) => row.some((w, j) => Math.abs(w - before[i][j]) > 1e-3)),
    'the weights moved',
  );

  await page.locator(`${VIEW} select[data-control="family"]`).selectOption('svd');
  await settle(page);
  await setRange('rank', 4);
  await settle(page);
  const r = lab.lowRankAttention({ ...x, rank: 4, causal: true });
  sameMatrix((await shown(page)).tables['family-weights'].values, r.weights, 'A_4');
  const sentences = await page.locator(`${VIEW} [data-role="sentences"]`).textContent();
  assert.ok(
    sentences.includes(String(Number(r.spectrumError.toFixed(4)))) || sentences.includes(r.spectrumError.toExponential(3).replace('-', '−')),
    sentences,
  );
  assert.match(sentences, /Eckart–Young/);
  assertClean(problems);
});

test('the recurrent forms step token by token: S_t is the core’s state over the prefix, o_t the parallel row', async (t) => {
  const { page, problems } = await open(t, { family: 'retention', token: 2 });
  const x = inputs(DEFAULTS);
  const parallel = lab.retention({ ...x, decay: 0.9 });
  for (const token of [2, 3]) {
    const prefix = (m) => m.slice(0, token + 1);
    const state = lab.retention({ Q: prefix(x.Q), K: prefix(x.K), V: prefix(x.V), decay: 0.9, form: 'recurrent' }).state;
    const { tables } = await shown(page);
    sameMatrix(tables.state.values, state, `S at token ${token + 1}`);
    sameMatrix(tables['recurrent-output'].values, [parallel.output[token]], `o at token ${token + 1}`);
    await page.locator(`${VIEW} [data-action="next-token"]`).click();
    await settle(page);
  }
  // Linear attention's causal form carries z_t as well.
  await page.locator(`${VIEW} select[data-control="family"]`).selectOption('linear');
  await settle(page);
  const t4 = (await labState(page)).viewState.token;
  const prefix = (m) => m.slice(0, t4 + 1);
  const r = lab.linearAttention({ Q: prefix(x.Q), K: prefix(x.K), V: prefix(x.V), causal: true, form: 'recurrent' });
  const { tables } = await shown(page);
  sameMatrix(tables.state.values, r.kvState, 'S_t of linear attention');
  sameMatrix(tables.normalizer.values, [r.keySum], 'z_t');
  const bytes = await page.locator(`${VIEW} [data-role="cache-growth"] tr[data-tokens="1024"] td`).first().getAttribute('data-bytes');
  assert.equal(Number(bytes), 1024 * lab.kvCacheBytes({ layers: 1, kvHeads: 1, headWidth: 4, bytesPerValue: 4 }));
  assertClean(problems);
});

test('one Tab stop per matrix, the arrows move inside it', async (t) => {
  const { page, problems } = await open(t, { family: 'svd' });
  const stops = await page.evaluate(() =>
    [...document.querySelector('attn-lab').shadowRoot.querySelector('attn-efficient-view').shadowRoot.querySelectorAll('table[data-matrix]')].map(
      (table) => table.querySelectorAll('[tabindex="0"]').length,
    ),
  );
  assert.ok(stops.length >= 2 && stops.every((n) => n === 1), `Tab stops per matrix: ${stops}`);
  await page.locator(`${VIEW} table[data-matrix="family-weights"] td[tabindex="0"]`).focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  const focused = await page.evaluate(() => {
    const cell = document.querySelector('attn-lab').shadowRoot.querySelector('attn-efficient-view').shadowRoot.activeElement;
    return [cell?.dataset.row, cell?.dataset.col];
  });
  assert.deepEqual(focused, ['1', '1']);
  assertClean(problems);
});

test('axe finds nothing serious in either theme, with the sparse pattern and the recurrent part on view', async (t) => {
  const { page, problems } = await open(t, { family: 'bigbird' });
  assert.deepEqual(await auditThemes(page), []);
  await page.evaluate(() => document.querySelector('attn-lab').setState({ viewState: { family: 'retention' } }));
  await settle(page);
  assert.deepEqual(await auditThemes(page), []);
  assertClean(problems);
});

test('at 390 px the view fits the page width, at n = 64 too', async (t) => {
  for (const viewState of [{}, { n: 64, family: 'favor', features: 1024 }]) {
    const { page, problems } = await open(t, viewState, { viewport: { width: 390, height: 844 } });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${JSON.stringify(viewState)}: the page is ${overflow} px wider than the screen`);
    assertClean(problems);
  }
});

test('the URL carries the view state both ways; a refused knob keeps the last good numbers and says why', async (t) => {
  const given = { family: 'linformer', rank: 3, n: 10, seed: 7 };
  const { page, problems } = await open(t, given);
  const { viewState } = await labState(page);
  assert.deepEqual({ family: viewState.family, rank: viewState.rank, n: viewState.n, seed: viewState.seed }, given);
  sameMatrix(
    (await shown(page)).tables['family-weights'].values,
    FAMILY_WEIGHTS.linformer(inputs({ n: 10, width: 4, seed: 7 }), { rank: 3, seed: 7 }),
    'Linformer from the link',
  );
  await page.locator(`${VIEW} select[data-control="family"]`).selectOption('strided');
  await waitForLinkState(page, (linked) => linked.viewState?.family === 'strided' && linked.viewState.n === 10);

  const good = (await shown(page)).tables['family-weights'].values;
  await page.evaluate(() => document.querySelector('attn-lab').setState({ viewState: { family: 'svd', rank: 12, n: 10 } }));
  await settle(page);
  assert.match(await page.locator(`${VIEW} [data-role="view-message"]`).textContent(), /rank/);
  assert.deepEqual((await shown(page)).tables['family-weights'].values, good, 'the last good weights stay');
  assert.doesNotMatch((await shown(page)).text, /NaN/);
  assert.equal(await messageText(page), '');
  assertClean(problems);
});

test('the stepper’s Q, K and V as the example: exact weights are its own', async (t) => {
  const { page, problems } = await open(t, { source: 'stepper', family: 'linear', causal: false });
  const state = await labState(page);
  const trace = expectedTrace(state);
  const of = (m) => (state.mode === 'x' ? trace.steps.find((s) => s.id === `project-${m.toLowerCase()}`).values : state[m]);
  const x = { Q: of('Q'), K: of('K'), V: of('V') };
  const { tables } = await shown(page);
  sameMatrix(tables['exact-weights'].values, lab.attention(x).weights, 'the stepper’s exact weights');
  sameMatrix(tables['family-weights'].values, lab.linearAttention(x).weights, 'linear attention on the stepper’s inputs');
  assertClean(problems);
});
