// What a learner reads is true and clear (issue 39, item 10, a learner's review): a
// subtraction of a negative number is written with parentheses; the tokens view counts the
// weights as the table shows them; the backward pass names the output as the example does and
// says who picks its gradient; a window of 1 reads in the singular; no quiz question names an
// API call; the KV-cache table states each row's bytes a value; on a phone the view tabs say
// that more lie beyond the edge, the positional heatmap fits, a 340 px embed keeps the
// weights' Σ column in view; the page's Tokens tab opens on words.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { QUESTIONS } from '../../web/element/shared/quiz-questions.js';
import { encodeHash, expectedTrace, presetState } from './support/expected.js';
import { assertClean, goToStep, settle, waitForLabs, waitForView } from './support/lab-page.js';
import { SCREENSHOT_DIR, browserSession } from './support/session.js';

const session = browserSession('.');
const PAGE = 'web/dist/index.html';
const PHONE = { viewport: { width: 390, height: 844 } };
const lab = await createAttnLab();
await lab.loadLearning();

const explanation = (page) => page.evaluate(() => document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="explanation"]').textContent.trim());
const why = (page) =>
  page.evaluate(() => document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="why"]').textContent.replace(/\s+/g, ' ').trim());
// A number written after an operator without parentheses: "− −1.4", "+ −0.5", "× −2".
const BARE_NEGATIVE = /[−+×·/]\s*−[\d∞]/;

test('a softmax hover writes the subtraction of a negative row max with parentheses', async (t) => {
  // Query 1 = (−1, −1) scores −2 against every key of the tiny example, so its row max is −1.4142.
  const state = {
    ...presetState('tiny'),
    Q: [
      [-1, -1],
      [0, 1],
    ],
    step: 'softmax',
  };
  const { page, problems } = await session.open(t, `${PAGE}${encodeHash(state)}`);
  await page.locator('attn-lab [data-role="result"] table[data-matrix="softmax"] td[data-row="0"][data-col="0"]').focus();
  await settle(page);
  const text = await explanation(page);
  assert.match(text, /^a₁₁ = exp\(s̃₁₁ − m₁\) \/ Σ = exp\(−1\.4142 − \(−1\.4142\)\) \/ 3 = 1 \/ 3 = 0\.3333$/, text);
  assert.doesNotMatch(text, BARE_NEGATIVE);
  assertClean(problems);
});

test('no step explanation writes a bare negative number after an operator (every cell of signed traces)', async (t) => {
  // Signed inputs, positions, two heads, W_O, RoPE and ALiBi, and the backward steps: the
  // explanations of every cell, read from the page for the steps a learner hovers.
  const signed = {
    ...presetState('two-heads'),
    X: [
      [-1, 0.5, -2, 1],
      [0.25, -1, 1, -0.5],
      [-0.5, -0.5, 2, 1],
      [1, -2, -1, 0.5],
    ],
    positional: 'sinusoidal',
  };
  const dOutput = expectedTrace(signed).output.map((row, i) => row.map((_, j) => ((i + j) % 3) - 1.5));
  const { page, problems } = await session.open(t, `${PAGE}${encodeHash({ ...signed, backward: true, dOutput })}`);
  await page.waitForFunction(() => document.querySelector('attn-lab').good?.trace.groups.some((g) => g.id === 'grad-output'));
  const ids = await page.evaluate(() => document.querySelector('attn-lab').good.trace.groups.map((g) => g.id));
  let seen = 0;
  for (const id of ids) {
    await goToStep(page, id);
    const cells = page.locator(`attn-lab [data-role="result"] table[data-matrix="${id}"] td[data-row][data-col]`);
    for (let i = 0; i < Math.min(await cells.count(), 12); i++) {
      await cells.nth(i).focus();
      await settle(page);
      const text = await explanation(page);
      assert.doesNotMatch(text, BARE_NEGATIVE, `${id}: ${text}`);
      seen++;
    }
  }
  assert.ok(seen > 100, `${seen} explanations read`);
  assertClean(problems);
});

// The tokens view's sentence, and how many of `row`'s weights the table shows as more than 0.
const tokensSentence = (page) =>
  page.evaluate(() =>
    document.querySelector('attn-lab').shadowRoot.querySelector('attn-tokens-view').shadowRoot.querySelector('[data-role="explanation"]').textContent.trim(),
  );
const showsAboveZero = (row) => row.filter((w) => Number(w.toFixed(4)) !== 0).length;

test('the tokens view counts the weights as its table shows them: a weight shown as 0 is not “looked at”', async (t) => {
  // One query against 4 keys: 10, 0 and −10 times 1/√2, and a padded key. The third key's weight
  // (about 7e-7) shows as 0 at 4 decimals; the padded key's is exactly 0.
  const state = {
    ...presetState('tiny'),
    Q: [[10, 0]],
    K: [
      [1, 0],
      [0, 0],
      [-1, 0],
      [1, 0],
    ],
    V: [
      [1, 0],
      [0, 1],
      [1, 1],
      [0, 0],
    ],
    tokens: ['sun', 'rain', 'snow', 'pad'],
    keyPadding: [false, false, false, true],
    step: 'scores',
    view: 'tokens',
    viewState: {},
  };
  const [row] = expectedTrace(state).steps.find((s) => s.id === 'softmax').values;
  assert.ok(row[2] > 0 && row[2] < 5e-5 && row[3] === 0, `the example: ${row}`);
  const { page, problems } = await session.open(t, `${PAGE}${encodeHash(state)}`, { view: 'tokens' });
  assert.equal(
    await tokensSentence(page),
    '“q₁” gives the most attention to “sun” (0.9992); 2 of the 4 tokens get a weight that shows as more than 0, 1 gets less than 0.00005, shown as 0 and 1 gets exactly 0.',
  );
  assertClean(problems);
});

test("the tokens preset: every token's sentence counts the weights its table shows as more than 0", async (t) => {
  const state = presetState('tokens');
  const weights = expectedTrace(state)
    .steps.filter((s) => s.id === 'softmax')
    .map((s) => s.values);
  const { page, problems } = await session.open(t, `${PAGE}${encodeHash(state)}`, { view: 'tokens' });
  const root = 'attn-lab attn-tokens-view';
  for (const head of [0, 1]) {
    await page.locator(`${root} [data-control="head"][data-head="${head}"]`).click();
    for (let token = 0; token < state.tokens.length; token++) {
      await page.locator(`${root} [data-control="token"][data-token="${token}"]`).focus();
      await settle(page);
      const text = await tokensSentence(page);
      const row = weights[head][token];
      const shown = showsAboveZero(row);
      const counted = shown === row.length ? `all ${row.length} tokens get` : `${shown} of the ${row.length} tokens get`;
      assert.ok(text.includes(counted), `head ${head + 1}, token ${token + 1}: “${counted}” in “${text}” (${row})`);
      assert.doesNotMatch(text, /at all/);
    }
  }
  assertClean(problems);
});

test("the page's Tokens tab opens on the words example, and keeps a learner's own inputs", async (t) => {
  const { page, problems } = await session.open(t, PAGE);
  await page.locator('attn-lab [role="tab"][data-view="tokens"]').click();
  await waitForView(page, 'tokens');
  const words = presetState('tokens').tokens;
  const shown = () => page.locator('attn-lab attn-tokens-view [data-control="token"]').allTextContents();
  assert.deepEqual(
    (await shown()).map((s) => s.trim()),
    words,
  );
  assert.deepEqual((await page.evaluate(() => document.querySelector('attn-lab').getState())).tokens, words);
  await page.screenshot({ path: `${SCREENSHOT_DIR}/learner-review-tokens-tab.png` });

  // Edited inputs stay: the tab shows the learner's own example, not a preset over it.
  await page.locator('attn-lab [role="tab"][data-view="stepper"]').click();
  await waitForLabs(page);
  const own = { ...presetState('tiny'), mode: 'x', X: presetState('tiny').Q, tokens: ['we', 'like'] };
  await page.evaluate((own) => document.querySelector('attn-lab').setState(own), own);
  await settle(page);
  await page.locator('attn-lab [role="tab"][data-view="tokens"]').click();
  await waitForView(page, 'tokens');
  assert.deepEqual(
    (await shown()).map((s) => s.trim()),
    ['we', 'like'],
  );
  assertClean(problems);
});

test('the backward pass starts from ∂L/∂O, chosen by the learner, named as the example names its output', async (t) => {
  for (const [preset, output] of [
    ['tiny', 'O'],
    ['two-heads', 'Y'],
  ]) {
    const state = { ...presetState(preset), backward: true, step: 'grad-output' };
    const { page, problems } = await session.open(t, `${PAGE}${encodeHash(state)}`, { wait: false });
    await page.waitForFunction(
      () =>
        document.querySelector('attn-lab')?.dataset.step === 'grad-output' && document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="why"]'),
    );
    await settle(page);
    const text = await why(page);
    assert.ok(text.startsWith(`Backward starts from ∂L/∂${output}, the upstream gradient`), text);
    assert.match(text, /you choose it/);
    assert.doesNotMatch(text, /L = Σ|is given/, 'L is not defined by its own gradient');
    const formula = await page.locator('attn-lab [data-role="formula"] annotation').first().textContent();
    assert.match(formula, new RegExp(`\\\\partial ${output}\\}`), formula);
    assert.doesNotMatch(formula, /odot/);
    await page.locator('attn-lab [data-role="result"] table[data-matrix="grad-output"] td[data-row="0"][data-col="0"]').focus();
    await settle(page);
    assert.match(await explanation(page), new RegExp(`^∂L/∂${output}₁₁ = −?[\\d.]+: chosen, not computed \\(the upstream gradient\\), where backward starts$`));
    if (preset === 'tiny') await page.screenshot({ path: `${SCREENSHOT_DIR}/learner-review-backward.png` });
    assertClean(problems);
  }
});

test('a sliding window of 1 reads "only to itself", of 2 "at most 1 position away"', async (t) => {
  for (const [window, words] of [
    [1, 'Sliding window of 1: each token attends only to itself (|i − j| < 1)'],
    [2, 'Sliding window of 2: each token attends only to the tokens at most 1 position away, itself included (|i − j| < 2)'],
    [3, 'Sliding window of 3: each token attends only to the tokens at most 2 positions away, itself included (|i − j| < 3)'],
  ]) {
    const { page, problems } = await session.open(t, `${PAGE}${encodeHash({ ...presetState('variants'), viewState: { window } })}`, { view: 'variants' });
    const text = (await page.locator('attn-lab attn-variants-view [data-role="variant-why"] [data-variant="window"]').textContent())
      .replace(/\s+/g, ' ')
      .trim();
    assert.ok(text.startsWith(words), text);
    assertClean(problems);
  }
});

test('no quiz question names an API call', () => {
  for (const [topic, questions] of Object.entries(QUESTIONS))
    for (const q of questions)
      for (const text of [q.prompt, ...q.options, q.explanation]) assert.doesNotMatch(text, /\b[A-Za-z_]\w*\(\)/, `${topic}/${q.id}: ${text}`);
});

test("the KV-cache table states each row's bytes a value, and each row's cache is 2 × layers × K/V heads × head width × those bytes", async (t) => {
  const { page, problems } = await session.open(t, `${PAGE}${encodeHash({ ...presetState('variants'), viewState: { kvCache: true } })}`, { view: 'variants' });
  const rows = await page.locator('attn-lab attn-variants-view [data-role="kv-bytes"] tbody tr').evaluateAll((trs) =>
    trs.map((tr) => ({
      name: tr.querySelector('th').textContent.trim(),
      cells: [...tr.querySelectorAll('td')].map((td) => td.textContent.trim()),
      bytesPerValue: Number(tr.querySelector('[data-bytes-per-value]')?.dataset.bytesPerValue),
      perToken: Number(tr.querySelector('td[data-value]').dataset.value),
    })),
  );
  assert.ok(rows.length >= 5);
  for (const { name, cells, bytesPerValue, perToken } of rows) {
    const [layers, , kvHeads, width] = cells.map(Number);
    assert.equal(perToken, 2 * layers * kvHeads * width * bytesPerValue, `${name}: ${cells}`);
    assert.equal(perToken, lab.kvCacheBytes({ layers, kvHeads, headWidth: width, bytesPerValue }), name);
    assert.doesNotMatch(name, /float|fp16|bf16/, `${name}: the type is in its own column`);
    assert.ok(
      cells.some((c) => c.startsWith(`${bytesPerValue} (`)),
      `${name}: states ${bytesPerValue} bytes a value`,
    );
  }
  assert.deepEqual(
    rows.map((r) => [r.name, r.bytesPerValue]),
    [
      ['This example', 4],
      ['Llama 2 7B', 2],
      ['Mistral 7B', 2],
      ['Llama 2 70B', 2],
      ['Falcon 7B', 2],
    ],
  );
  assert.equal(rows[1].cells.at(-2), '512 KiB', "Llama 2 7B's cache at 2 bytes a value");
  assertClean(problems);
});

// The view tabs' "›" cue (.tabs::after) and the strip: { opacity, content, scrolls }.
const tabsCue = (page) =>
  page.evaluate(
    () =>
      new Promise((done) =>
        requestAnimationFrame(() =>
          requestAnimationFrame(() => {
            const root = document.querySelector('attn-lab').shadowRoot;
            const list = root.querySelector('[role="tablist"]');
            const after = getComputedStyle(root.querySelector('.tabs'), '::after');
            done({ opacity: Number(after.opacity), content: after.content, scrolls: list.scrollWidth > list.clientWidth });
          }),
        ),
      ),
  );

test('390 px: the view tabs show a "›" where more tabs lie beyond the edge, and none at the end of the strip', async (t) => {
  const { page, problems } = await session.open(t, PAGE, PHONE);
  const atStart = await tabsCue(page);
  assert.ok(atStart.scrolls && atStart.opacity > 0.9 && atStart.content.includes('›'), JSON.stringify(atStart));
  await page.screenshot({ path: `${SCREENSHOT_DIR}/learner-review-tabs-390.png`, clip: { x: 0, y: 0, width: 390, height: 260 } });
  await page.evaluate(() => {
    const list = document.querySelector('attn-lab').shadowRoot.querySelector('[role="tablist"]');
    list.scrollLeft = list.scrollWidth;
  });
  const atEnd = await tabsCue(page);
  assert.ok(atEnd.opacity < 0.1, `scrolled to the end: ${JSON.stringify(atEnd)}`);
  assertClean(problems);
});

test('1280 px: the tabs fit, with no "›" cue', async (t) => {
  const { page, problems } = await session.open(t, PAGE);
  const cue = await tabsCue(page);
  assert.ok(!cue.scrolls && !(cue.opacity > 0 && cue.content.includes('›')), JSON.stringify(cue));
  assertClean(problems);
});

// The positional heatmap's box: { scrollWidth, clientWidth, fadeEnd }.
const heatmapBox = (page) =>
  page.evaluate(() => {
    const root = document.querySelector('attn-lab').shadowRoot.querySelector('attn-positions-view').shadowRoot;
    const box = root.querySelector('table.encoding').closest('figure');
    return { scrollWidth: box.scrollWidth, clientWidth: box.clientWidth, fadeEnd: parseFloat(getComputedStyle(box).getPropertyValue('--attn-fade-end')) };
  });

test('390 px: the positional-encoding heatmap fits at its default 16 dimensions, and 64 scroll with a fade', async (t) => {
  const positions = (viewState) => `${PAGE}${encodeHash({ ...presetState('positions'), viewState })}`;
  let { page, problems } = await session.open(t, positions({}), { ...PHONE, view: 'positions' });
  const fits = await heatmapBox(page);
  assert.ok(fits.scrollWidth <= fits.clientWidth, `16 dimensions fit: ${JSON.stringify(fits)}`);
  await page.locator('attn-lab attn-positions-view figure:has(table.encoding)').screenshot({ path: `${SCREENSHOT_DIR}/learner-review-positions-390.png` });
  assertClean(problems);
  ({ page, problems } = await session.open(t, positions({ width: 64 }), { ...PHONE, view: 'positions' }));
  const wide = await heatmapBox(page);
  assert.ok(wide.scrollWidth > wide.clientWidth && wide.fadeEnd > 0, `64 dimensions scroll, with a fade: ${JSON.stringify(wide)}`);
  assertClean(problems);
});

// Each Σ column header of the element's weights (and of nested views'): inside its box, on top.
const sumColumns = (page) =>
  page.evaluate(() => {
    const roots = [document.querySelector('attn-lab').shadowRoot];
    for (let i = 0; i < roots.length; i++) for (const el of roots[i].querySelectorAll('*')) if (el.shadowRoot) roots.push(el.shadowRoot);
    return roots.flatMap((root) =>
      [...root.querySelectorAll('th[title="row sum"]')].map((th) => {
        th.scrollIntoView({ block: 'center' });
        const box = th.closest('figure').getBoundingClientRect();
        const sum = th.getBoundingClientRect();
        const onTop = root.elementFromPoint(sum.left + sum.width / 2, sum.top + sum.height / 2) === th;
        return {
          matrix: th.closest('table').dataset.matrix,
          inside: sum.left >= box.left - 0.5 && sum.right <= box.right + 0.5,
          onTop,
          mask: getComputedStyle(th.closest('figure')).maskImage,
        };
      }),
    );
  });

for (const [what, width, host] of [
  ['a 340 px screen', 340, null],
  ['a 340 px element on a wide page', 1280, '340px'],
]) {
  test(`${what}: the weights' Σ column is in view, never behind the fade`, async (t) => {
    for (const [preset, step] of [
      ['two-heads', 'softmax'],
      ['causal', 'softmax'],
      ['variants', null],
    ]) {
      const { page, problems } = await session.open(t, 'tests/e2e/fixtures/blank.html', { viewport: { width, height: 800 }, wait: false });
      await page.addScriptTag({ type: 'module', url: '/dist/element.js' });
      await page.evaluate(
        ([preset, step, host]) => {
          const el = document.createElement('attn-lab');
          el.setAttribute('preset', preset);
          if (step) el.setAttribute('step', step);
          if (host) el.style.width = host;
          document.body.append(el);
        },
        [preset, step, host],
      );
      await page.waitForFunction(
        (view) => {
          const el = document.querySelector('attn-lab');
          const root = view ? el?.shadowRoot?.querySelector(`attn-${view}-view`)?.shadowRoot : el?.shadowRoot;
          return root?.querySelector('th[title="row sum"]');
        },
        step ? null : preset,
      );
      await settle(page);
      const sums = await sumColumns(page);
      assert.ok(sums.length > 0, `${preset}: a Σ column`);
      for (const sum of sums) {
        assert.ok(sum.inside && sum.onTop, `${preset}, ${sum.matrix}: Σ in view (${JSON.stringify(sum)})`);
        assert.doesNotMatch(sum.mask, /100%/, `${preset}, ${sum.matrix}: no fade on the right (${sum.mask})`);
      }
      if (preset !== 'variants') await page.screenshot({ path: `${SCREENSHOT_DIR}/learner-review-sum-${preset}-${width}.png` });
      assertClean(problems);
    }
  });
}
