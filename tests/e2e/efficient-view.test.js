// The efficient view (issue 37, item 6): cheaper attention beside the exact one. Every matrix
// shown is checked against the core called here from Node on the same inputs (≤ 1e-5): exact
// softmax, and each family's weights (linear, FAVOR+, retention, SVD, Linformer, BigBird,
// strided); hidden keys are hatched where the core's pattern says; the recurrent state S_t at
// a token is the core's over the prefix; a knob changes the numbers; one Tab stop per matrix
// with the arrows inside; axe clean in both themes; 390 px without sideways scrolling; the URL
// round-trips the view state; a refused knob leaves a message and the last good numbers. A
// family or knob change is timed (setState to the view's rendered update) and must stay under
// 100 ms on the default example (the median). The little model with every head or one head
// computed by the chosen family: its loss and next-token bars are the core's from Node with the
// same `replace`; the cost measured live in a Worker: every n timed, the page's thread free.
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

// ---- The consequence for a real model (item 6) and the cost measured in a Worker (item 8) ----

const model = await lab.loadModel();
const SENTENCE = 'We are blessed with peace at home, and are without entangling alliances abroad to forebode trouble.';
const PANEL = `${VIEW} attn-efficient-model`;
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

/** The panel's figures: the text's mean loss as trained and replaced, and the replaced next-token bars. */
const panel = (page) =>
  page.locator(PANEL).evaluate((element) => {
    const root = element.shadowRoot;
    const summary = root.querySelector('[data-role="replace-summary"]');
    const bars = [...root.querySelectorAll('[data-role="replaced-next-tokens"] tbody tr')].map((tr) => [Number(tr.dataset.token), Number(tr.dataset.value)]);
    return { exact: Number(summary?.dataset.exact), replaced: Number(summary?.dataset.replaced), bars, text: root.textContent };
  });

/** Waits until the panel shows `replaced` (the mean loss expected). */
const panelShows = (page, replaced) =>
  page.waitForFunction(
    (replaced) => {
      const summary = document
        .querySelector('attn-lab')
        .shadowRoot.querySelector('attn-efficient-view')
        .shadowRoot.querySelector('attn-efficient-model')
        ?.shadowRoot.querySelector('[data-role="replace-summary"]');
      return summary && Math.abs(Number(summary.dataset.replaced) - replaced) <= 1e-5;
    },
    replaced,
    { timeout: 30_000 },
  );

// The core from Node on the same text: the mean loss and the 10 likeliest next tokens with `replace`.
function expectedReplaced(text, replace) {
  const ids = model.tokenize(text).tokenIds;
  const next = model.nextTokenDistribution(model.forward(ids, { replace }).logits.at(-1));
  return {
    exact: mean(model.loss(ids)),
    replaced: mean(model.loss(ids, { replace })),
    bars: next.tokenIds.slice(0, 10).map((id, i) => [id, next.probabilities[i]]),
  };
}

function sameFigures(got, expected, what) {
  assert.ok(Math.abs(got.exact - expected.exact) <= TOLERANCE, `${what}: as trained ${got.exact} vs ${expected.exact}`);
  assert.ok(Math.abs(got.replaced - expected.replaced) <= TOLERANCE, `${what}: replaced ${got.replaced} vs ${expected.replaced}`);
  assert.deepEqual(
    got.bars.map(([id]) => id),
    expected.bars.map(([id]) => id),
    `${what}: the next tokens`,
  );
  got.bars.forEach(([, p], i) => assert.ok(Math.abs(p - expected.bars[i][1]) <= TOLERANCE, `${what}: bar ${i}`));
  assert.doesNotMatch(got.text, /NaN/, `${what}: no NaN`);
}

test('the little model with every head, then one head, computed by the chosen family: loss and next-token bars are the core’s', async (t) => {
  const { page, problems } = await open(t, { family: 'favor', features: 64 });
  assert.equal(await page.locator(`${PANEL} [data-role="replace-summary"]`).count(), 0, 'the model loads only when asked');
  // The keyboard loads it: the button takes focus and Enter.
  await page.locator(`${PANEL} [data-action="load-model"]`).focus();
  await page.keyboard.press('Enter');
  const favor = { family: 'linear', featureMap: 'favor', features: 64, seed: 1 };
  let expected = expectedReplaced(SENTENCE, { ...favor, heads: 'all' });
  await panelShows(page, expected.replaced);
  sameFigures(await panel(page), expected, 'FAVOR+ m = 64, every head');
  assert.ok(expected.replaced > expected.exact, 'replacing every head costs loss');

  await page.locator(`${PANEL} select[data-control="replace-scope"]`).selectOption('one');
  await page.locator(`${PANEL} select[data-control="replace-layer"]`).selectOption({ value: '1' });
  await page.locator(`${PANEL} select[data-control="replace-head"]`).selectOption({ value: '2' });
  expected = expectedReplaced(SENTENCE, { ...favor, heads: [{ layer: 1, head: 2 }] });
  await panelShows(page, expected.replaced);
  sameFigures(await panel(page), expected, 'FAVOR+, L2 H3 alone');
  assert.match((await panel(page)).text, /L2 H3/);

  // The view's family and knob are the panel's: retention with γ = 0.5.
  await page.evaluate(() => document.querySelector('attn-lab').setState({ viewState: { family: 'retention', decay: 0.5 } }));
  expected = expectedReplaced(SENTENCE, { family: 'retention', decay: 0.5, heads: [{ layer: 1, head: 2 }] });
  await panelShows(page, expected.replaced);
  sameFigures(await panel(page), expected, 'retention γ = 0.5, L2 H3');

  // Another text, typed.
  const text = 'Tonight I have the honor of reporting to you on the State of the Union.';
  await page.locator(`${PANEL} textarea[data-control="model-text"]`).fill(text);
  expected = expectedReplaced(text, { family: 'retention', decay: 0.5, heads: [{ layer: 1, head: 2 }] });
  await panelShows(page, expected.replaced);
  sameFigures(await panel(page), expected, 'a typed text');

  // A text past the model's context: the core's message, the last good numbers kept.
  await page.locator(`${PANEL} textarea[data-control="model-text"]`).fill('the state of the union '.repeat(60));
  await page.locator(`${PANEL} [data-role="model-message"][role="alert"]`).waitFor();
  assert.match(await page.locator(`${PANEL} [data-role="model-message"]`).textContent(), /last good numbers stay/);
  sameFigures(await panel(page), expected, 'the last good numbers');

  // Linformer has no causal form: said, no number, no NaN.
  await page.evaluate(() => document.querySelector('attn-lab').setState({ viewState: { family: 'linformer' } }));
  await page.locator(`${PANEL} [data-role="replace-summary"]:has-text("no causal form")`).waitFor();
  assert.doesNotMatch((await panel(page)).text, /NaN/);
  assertClean(problems);
});

test('with the model loaded a family or knob change still renders the view at once; the panel follows after', async (t) => {
  const { page, problems } = await open(t, { family: 'linear' });
  await page.locator(`${PANEL} [data-action="load-model"]`).click();
  await panelShows(page, expectedReplaced(SENTENCE, { family: 'linear', featureMap: 'elu', heads: 'all' }).replaced);
  const view = [];
  const withPanel = [];
  for (const change of [
    { family: 'svd', rank: 3 },
    { family: 'bigbird' },
    { family: 'favor', features: 32 },
    { family: 'retention', decay: 0.8 },
    { family: 'strided' },
  ]) {
    // setState to the view's rendered update, then on until the panel shows the new family's loss
    // (its passes run a task after the view's render), in one go in the page.
    const [ms, panelMs] = await page.evaluate(async (change) => {
      const host = document.querySelector('attn-lab');
      const efficient = host.shadowRoot.querySelector('attn-efficient-view');
      const summary = () => efficient.shadowRoot.querySelector('attn-efficient-model').shadowRoot.querySelector('[data-role="replace-summary"]');
      const before = summary().dataset.replaced;
      const start = performance.now();
      host.setState({ viewState: change });
      await host.updateComplete;
      await efficient.updateComplete;
      const rendered = performance.now() - start;
      while (summary().dataset.replaced === before) await new Promise((done) => setTimeout(done, 2));
      return [rendered, performance.now() - start];
    }, change);
    view.push(ms);
    withPanel.push(panelMs);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  t.diagnostic(
    `model loaded: view render ms ${view.map((ms) => ms.toFixed(1)).join(', ')} (median ${median(view).toFixed(1)}); the panel updated after, ms ${withPanel.map((ms) => ms.toFixed(0)).join(', ')}`,
  );
  // The budget is 100 ms (the first test holds the default example to it); with the model
  // loaded, 3× that, as other tests' pages share the machine.
  assert.ok(median(view) < 300, `the view's render: median ${median(view)} ms`);
  assert.ok(median(withPanel) < 2000, `the model panel: median ${median(withPanel)} ms`); // 20× the budget: a machine under load
  assertClean(problems);
});

test('the cost measured live in a Worker: exact and the family’s long kernel at n = 128 … 4,096, the FLOPs kept', async (t) => {
  const { page, problems } = await open(t, { family: 'retention' });
  const timing = `${VIEW} attn-efficient-timing`;
  // How long the page's thread was ever busy during the run: the longest gap between frames.
  await page.evaluate(() => {
    window.frameGap = 0;
    let last = performance.now();
    const frame = (now) => {
      window.frameGap = Math.max(window.frameGap, now - last);
      last = now;
      if (!window.stopFrames) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  await page.locator(`${timing} [data-action="measure"]`).focus();
  await page.keyboard.press('Enter');
  await page.locator(`${timing} [data-role="measure-status"]:has-text("Measured in this browser")`).waitFor({ timeout: 120_000 });
  const gap = await page.evaluate(() => ((window.stopFrames = true), window.frameGap));
  const rows = await page
    .locator(`${timing} table[data-role="measured"] tbody tr`)
    .evaluateAll((trs) => trs.map((tr) => ({ n: Number(tr.dataset.n), ms: [...tr.querySelectorAll('td[data-ms]')].map((td) => Number(td.dataset.ms)) })));
  t.diagnostic(
    `measured (ms, exact and retention): ${rows.map((r) => `${r.n}: ${r.ms.map((x) => x.toFixed(2)).join(' / ')}`).join('; ')}; longest frame gap ${gap.toFixed(0)} ms`,
  );
  assert.deepEqual(
    rows.map((r) => r.n),
    [128, 256, 512, 1024, 2048, 4096],
  );
  for (const r of rows) assert.ok(r.ms.length === 2 && r.ms.every((x) => Number.isFinite(x) && x >= 0), `n = ${r.n}: ${r.ms}`);
  // Exact attention's n² work shows: 4,096 tokens take longer than 128.
  assert.ok(rows.at(-1).ms[0] > rows[0].ms[0], 'exact grows with n');
  assert.equal(await page.locator(`${timing} [data-role="worker-note"]`).count(), 0, 'a Worker ran the kernels');
  assert.equal(await page.locator(`${VIEW} [data-role="cost-table"]`).count(), 1, 'the counted FLOPs stay');
  // Another family's kernel: the times measured for retention go.
  await page.evaluate(() => document.querySelector('attn-lab').setState({ viewState: { family: 'linear' } }));
  await settle(page);
  assert.equal(await page.locator(`${timing} table[data-role="measured"]`).count(), 0);
  assertClean(problems);
});

test('axe finds nothing serious with the model panel loaded and the times measured; at 390 px it fits', async (t) => {
  const { page, problems } = await open(t, { family: 'bigbird' });
  await page.locator(`${PANEL} [data-action="load-model"]`).click();
  await page.locator(`${PANEL} [data-role="replace-summary"]`).waitFor({ timeout: 30_000 });
  await page.locator(`${VIEW} attn-efficient-timing [data-action="measure"]`).click();
  await page.locator(`${VIEW} attn-efficient-timing [data-role="measure-status"]:has-text("Measured in this browser")`).waitFor({ timeout: 120_000 });
  assert.deepEqual(await auditThemes(page), []);
  // And on a phone: the bars, the loss chart and the measured table fit its width.
  await page.setViewportSize({ width: 390, height: 844 });
  await settle(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `at 390 px the page is ${overflow} px wider than the screen`);
  assertClean(problems);
});
