// The model view a learner can follow (issue 38, items 2–4), every number checked against the
// core computed again in Node from the built package (dist/attnlab.js, the packaged model/):
// typing updates the bars without a blur; a head opened in the stepper names its layer, head
// and text, and its weights are the core's; Back returns to the model view, inside an embed
// too; switching heads off changes the losses as model.loss() does; the in-context demo's
// losses and induction weights are the core's; the rollout row sums to 1 and is the core's.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { launchChromium } from '../../scripts/chromium.mjs';
import { serveStatic } from '../../scripts/serve.mjs';
import { SENTENCES } from '../../web/element/views/model/sentences.js';
import { assertClean, labState, renderedResults, settle, waitForLabs, waitForView } from './support/lab-page.js';
import { browserSession } from './support/session.js';
import { openModel as openPage, shownNext } from './support/model-page.js';

const TOLERANCE = 1e-5;
const session = browserSession('web/dist');
const lab = await createAttnLab();
const model = await lab.loadModel();
const view = 'attn-lab attn-model-view';
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const close = (a, b, what) => assert.ok(Math.abs(a - b) <= TOLERANCE, `${what}: ${a} against ${b}`);

const openModel = (t, viewState, options) => openPage(session, t, viewState, options);
const textOf = async (page) => (await labState(page)).viewState.text;
const tokensOf = (text) => model.tokenize(text).tokenIds;

function assertNext(shown, tokenIds, { temperature = 1, topK = 0 } = {}) {
  const next = model.nextTokenDistribution(model.forward(tokenIds).logits.at(-1), { temperature, topK });
  assert.equal(shown.length, 10);
  shown.forEach(([token, p], i) => {
    assert.equal(token, next.tokenIds[i], `candidate ${i}`);
    close(p, next.probabilities[i], `candidate ${i}`);
  });
}

test('typing updates the bars and the heads about 150 ms after a pause, without leaving the text box', async (t) => {
  const { page, problems } = await openModel(t);
  const box = page.locator(`${view} textarea[data-control="text"]`);
  await box.fill('');
  await box.pressSequentially('The Congress shall', { delay: 20 });
  // No blur, no change event: the text box keeps the focus throughout.
  await page.waitForFunction(() => document.querySelector('attn-lab').getState().viewState.text === 'The Congress shall', null, { timeout: 5_000 });
  await settle(page);
  assert.equal(await box.evaluate((el) => el.matches(':focus')), true, 'the text box still has the focus');
  assertNext(await shownNext(page), tokensOf('The Congress shall'));
  const heads = await page.locator(`${view} li[data-role-name]`).evaluateAll((items) => items.map((li) => li.dataset.roleName));
  assert.deepEqual(
    heads,
    model
      .headScores(tokensOf('The Congress shall'))
      .flat()
      .map((s) => s.role),
  );
  assertClean(problems);
});

test('every head card has its buttons and a sentence; a head opened in the stepper names its layer, head and text, and its weights are the core’s', async (t) => {
  const { page, problems } = await openModel(t);
  const text = await textOf(page);
  const { layers, heads } = model.config;
  assert.equal(await page.locator(`${view} button[data-control="open-head"]`).count(), layers * heads);
  assert.equal(await page.locator(`${view} button[data-control="open-tokens"]`).count(), layers * heads);
  const sentences = await page.locator(`${view} [data-role="head-sentence"]`).allTextContents();
  assert.equal(sentences.length, layers * heads);
  const scores = model.headScores(tokensOf(text));
  // The sentence carries the score it names, as the core gives it.
  sentences.forEach((sentence, i) => {
    const s = scores[Math.floor(i / heads)][i % heads];
    const named = s.role === 'first-token' ? s.firstToken : s.previousToken;
    assert.ok(sentence.includes(named.toFixed(2)), `${sentence} names ${named.toFixed(2)}`);
  });

  const [layer, head] = [1, 2];
  await page.locator(`${view} button[data-control="open-head"][data-layer="${layer}"][data-head="${head}"]`).click();
  await page.waitForFunction(() => document.querySelector('attn-lab').dataset.view === 'stepper');
  await waitForLabs(page);
  const label = await page.locator('attn-lab [data-role="origin-label"]').textContent();
  assert.match(label, /little model · layer 2 · head 3 · “We are blessed/);
  const preset = await page.locator('attn-lab select[data-control="preset"]').evaluate((s) => s.selectedOptions[0].textContent);
  assert.match(preset, /little model · layer 2 · head 3/, 'the preset menu names the head, not another example');
  const forward = model.forward(tokensOf(text));
  const [softmax] = (await renderedResults(page)).filter((table) => table.matrix === 'softmax');
  let [diff, cells] = [0, 0];
  softmax.values.forEach((row, i) =>
    row.forEach((v, j) => ([diff, cells] = [Math.max(diff, Math.abs(v - forward.blocks[layer].attention[head][i][j])), cells + 1])),
  );
  assert.ok(cells >= 100 && diff <= TOLERANCE, `the stepper's weights: ${diff} over ${cells} cells`);

  // Back to the model view, the same text.
  await page.locator('attn-lab button[data-action="back"]').click();
  await waitForView(page, 'model');
  assert.equal(await textOf(page), text);

  // The tokens view names the head as the model view does.
  await page.locator(`${view} button[data-control="open-tokens"][data-layer="${layer}"][data-head="${head}"]`).click();
  await waitForView(page, 'tokens');
  const captions = await page.locator('attn-lab attn-tokens-view [data-role="heads"] caption').allTextContents();
  assert.ok(
    captions.some((c) => c.includes('L2 H3')),
    captions.join(' | '),
  );
  assert.ok(!captions.some((c) => /Head 1\b/.test(c)), captions.join(' | '));
  assertClean(problems);
});

test('inside an embed (preset="model"), a head opens in the stepper and Back returns to the model view', async (t) => {
  const server = await serveStatic('.');
  const browser = await launchChromium();
  t.after(async () => {
    await browser.close();
    await server.close();
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${server.url}/tests/e2e/fixtures/blank.html`);
  await page.addScriptTag({ type: 'module', url: '/dist/element.js' });
  await page.evaluate(() => document.body.append(Object.assign(document.createElement('attn-lab'), { preset: 'model' })));
  await page.locator(`${view} button[data-control="open-head"]`).first().waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('attn-lab [role="tablist"]').count(), 0, 'an embed has no tabs to go back with');
  await page.locator(`${view} button[data-control="open-head"][data-layer="0"][data-head="1"]`).click();
  await page.waitForFunction(() => document.querySelector('attn-lab').dataset.view === 'stepper');
  assert.match(await page.locator('attn-lab [data-role="origin-label"]').textContent(), /layer 1 · head 2/);
  await page.locator('attn-lab button[data-action="back"]').click();
  await page.waitForFunction(() => document.querySelector('attn-lab').dataset.view === 'model');
  await page.locator(`${view} [data-role="next-tokens"]`).waitFor();
  assert.deepEqual(errors, []);
});

test('switching heads off changes the bars, the text’s loss and the held-out sample’s loss as model.loss() does', async (t) => {
  const { page, problems } = await openModel(t);
  const ids = tokensOf(await textOf(page));
  const part = `${view} attn-model-interventions`;
  const sample = (options) => mean(SENTENCES.flatMap(([, s]) => model.loss(tokensOf(s), options)));
  const read = async () => ({
    text: Number(await page.locator(`${part} [data-role="text-loss"]`).getAttribute('data-value')),
    sample: Number(await page.locator(`${part} [data-role="sample-loss"]`).getAttribute('data-value')),
  });
  let shown = await read();
  close(shown.text, mean(model.loss(ids)), 'every head on');
  close(shown.sample, sample(), 'the sample, every head on');

  await page.locator(`${part} input[data-control="ablate"][data-layer="0"][data-head="2"]`).check();
  await page.locator(`${part} input[data-control="ablate"][data-layer="2"][data-head="0"]`).check();
  await settle(page);
  const ablate = [
    { layer: 0, head: 2 },
    { layer: 2, head: 0 },
  ];
  shown = await read();
  const zero = mean(model.loss(ids, { ablate }));
  assert.notEqual(zero.toFixed(4), mean(model.loss(ids)).toFixed(4), 'the ablation changes the loss');
  close(shown.text, zero, 'two heads off (zero)');
  close(shown.sample, sample({ ablate }), 'the sample, two heads off');
  const bars = await page
    .locator(`${part} [data-role="ablated-next-tokens"] tbody tr`)
    .evaluateAll((rows) => rows.map((r) => [Number(r.dataset.token), Number(r.dataset.value)]));
  const next = model.nextTokenDistribution(model.forward(ids, { ablate }).logits.at(-1));
  bars.forEach(([token, p], i) => {
    assert.equal(token, next.tokenIds[i]);
    close(p, next.probabilities[i], `ablated candidate ${i}`);
  });

  await page.locator(`${part} select[data-control="ablation"]`).selectOption('mean');
  await settle(page);
  close((await read()).text, mean(model.loss(ids, { ablate, ablation: 'mean' })), 'two heads off (mean)');

  // The ranking: every head alone, each row the core's loss change.
  await page.locator(`${part} button[data-action="rank"]`).click();
  await page.locator(`${part} [data-role="ranking-summary"]`).waitFor({ timeout: 30_000 });
  const rows = await page
    .locator(`${part} [data-role="ranking"] tbody tr`)
    .evaluateAll((trs) => trs.map((tr) => ({ layer: Number(tr.dataset.layer), head: Number(tr.dataset.head), value: Number(tr.dataset.value) })));
  assert.equal(rows.length, model.config.layers * model.config.heads);
  const base = mean(model.loss(ids));
  for (const { layer, head, value } of rows)
    close(value, mean(model.loss(ids, { ablate: [{ layer, head }], ablation: 'mean' })) - base, `L${layer + 1} H${head + 1}`);
  for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].value >= rows[i].value, 'ranked by effect');
  assertClean(problems);
});

test('in-context demo: the losses of both copies and the best induction head’s weights are the core’s; rollout rows sum to 1', async (t) => {
  const { page, problems } = await openModel(t);
  const part = `${view} attn-model-incontext`;
  const T = 20;
  const ids = model.inductionProbe(T, 1);
  const loss = model.loss(ids);
  const series = await page.locator(`${part} path[data-series]`).evaluateAll((paths) => Object.fromEntries(paths.map((p) => [p.dataset.series, p.values])));
  series.first.slice(1).forEach((v, k) => close(v, loss[k], `first copy, token ${k + 2}`));
  series.second.forEach((v, k) => close(v, loss[T - 1 + k], `second copy, token ${k + 1}`));
  const scores = model.headScores(ids, T).flatMap((heads, layer) => heads.map((s, head) => ({ layer, head, induction: s.induction })));
  const best = scores.reduce((a, b) => (b.induction > a.induction ? b : a));
  const weights = model.forward(ids).blocks[best.layer].attention[best.head];
  const strip = await page.locator(`${part} [data-role="induction-weights"]`).evaluate((el) => el.values);
  strip.forEach((w, k) => close(w, weights[T + k][k + 1], `token ${k + 1} of the second copy`));
  close(mean(strip), best.induction, 'the mean is the induction score');
  const summary = await page.locator(`${part} [data-role="incontext-summary"]`).textContent();
  assert.ok(summary.includes(`L${best.layer + 1} H${best.head + 1}`), summary);

  const text = await textOf(page);
  const rollout = model.rollout(tokensOf(text)).at(-1);
  const shown = await page.locator(`${view} [data-role="rollout"]`).evaluate((el) => el.values);
  close(
    shown.reduce((a, b) => a + b, 0),
    1,
    'the rollout row sums to 1',
  );
  shown.forEach((v, j) => close(v, rollout.at(-1)[j], `rollout, token ${j + 1}`));
  for (const row of rollout)
    close(
      row.reduce((a, b) => a + b, 0),
      1,
      'every row of the core’s rollout',
    );
  assertClean(problems);
});
