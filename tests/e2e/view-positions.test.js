// The positions view: its heatmap is lab.sinusoidalEncoding at the size the sliders set, its
// cell explanation follows the keyboard, and its permutation demonstration shows exactly what
// lab.permutationCheck returns: the same rows reordered without positions, changed outputs
// with them, and the order the learner picks.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { permutationRequest, SENTENCE, shuffledOrder } from '../../web/element/views/positions/positions-demo.js';
import { encodeHash, maxAbsDiff, presetState, TOLERANCE } from './support/expected.js';
import { assertClean, labState, messageText, settle, viewTable } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const lab = await createAttnLab();
const VIEW = 'attn-lab attn-positions-view';

const openView = (t, viewState = {}) =>
  session.open(t, `index.html${encodeHash({ ...presetState('tiny'), view: 'positions', viewState })}`, { view: 'positions' });

const shownRowLabels = (page, name) => page.locator(`${VIEW} table[data-matrix="${name}"] tbody th`).allTextContents();
const shownOrder = async (page) => (await page.locator(`${VIEW} [data-role="sentence-reordered"]`).getAttribute('data-order')).split(',').map(Number);
const verdict = (page) => page.locator(`${VIEW} [data-role="verdict"]`).getAttribute('data-verdict');
const difference = async (page) => Number(await page.locator(`${VIEW} [data-role="difference"]`).getAttribute('data-value'));

async function setRange(page, control, value) {
  await page.locator(`${VIEW} input[data-control="${control}"]`).evaluate((input, value) => {
    input.value = String(value);
    input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  }, value);
  await settle(page);
}

/** Asserts the three output tables, the difference and the verdict are lab.permutationCheck's. */
async function assertDemoMatchesCore(page) {
  const { viewState } = await labState(page);
  const want = lab.permutationCheck(permutationRequest(viewState), viewState.order);
  for (const name of ['original', 'permuted', 'predicted']) {
    const diff = maxAbsDiff(await viewTable(page, 'positions', `table[data-matrix="${name}"]`), want[name]);
    assert.ok(diff <= TOLERANCE, `${name}: max abs diff ${diff} from lab.permutationCheck`);
  }
  assert.equal(await difference(page), want.maxDifference);
  assert.equal(await verdict(page), want.reorderedOnly ? 'reordered' : 'changed');
  assert.deepEqual(await shownOrder(page), viewState.order);
  assert.deepEqual(await shownRowLabels(page, 'original'), SENTENCE);
  assert.deepEqual(
    await shownRowLabels(page, 'permuted'),
    viewState.order.map((i) => SENTENCE[i]),
  );
  return want;
}

test('the heatmap is lab.sinusoidalEncoding at the size the sliders set', async (t) => {
  const { page, problems } = await openView(t);
  await setRange(page, 'positions', 11);
  await setRange(page, 'width', 7);
  const { viewState } = await labState(page);
  assert.equal(viewState.positions, 11);
  assert.equal(viewState.width, 7);
  const shown = await viewTable(page, 'positions', 'table[data-matrix="encoding"]');
  assert.equal(shown.length, 11);
  assert.equal(shown[0].length, 7);
  const diff = maxAbsDiff(shown, lab.sinusoidalEncoding(11, 7));
  assert.ok(diff <= TOLERANCE, `max abs diff ${diff} from lab.sinusoidalEncoding(11, 7)`);
  assertClean(problems);
});

test('a focused heatmap cell is explained, and the arrow keys move between cells', async (t) => {
  const { page, problems } = await openView(t, { positions: 8, width: 6 });
  const encoding = lab.sinusoidalEncoding(8, 6);
  const explanation = page.locator(`${VIEW} [data-role="cell-explanation"]`);
  await page.locator(`${VIEW} table.encoding td[data-row="5"][data-col="2"]`).hover();
  await settle(page);
  assert.equal(await explanation.getAttribute('data-row'), '5');
  assert.equal(Number(await explanation.getAttribute('data-value')), encoding[5][2]);
  assert.match(await explanation.textContent(), /even dimension uses the sine/);

  await page.locator(`${VIEW} table.encoding td[tabindex="0"]`).focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await settle(page);
  assert.equal(await explanation.getAttribute('data-row'), '6');
  assert.equal(await explanation.getAttribute('data-col'), '3');
  assert.equal(Number(await explanation.getAttribute('data-value')), encoding[6][3]);
  assert.match(await explanation.textContent(), /odd dimension uses the cosine/);
  const focused = await page.evaluate(() => {
    const cell = document.querySelector('attn-lab').shadowRoot.querySelector('attn-positions-view').shadowRoot.activeElement;
    return [cell?.dataset.row, cell?.dataset.col];
  });
  assert.deepEqual(focused, ['6', '3'], 'keyboard focus follows the arrows');
  assertClean(problems);
});

test('without positions the outputs are the same rows reordered; with them they change', async (t) => {
  const { page, problems } = await openView(t, { positional: false, order: [0, 4, 2, 3, 1] });
  const off = await assertDemoMatchesCore(page);
  assert.equal(await verdict(page), 'reordered');
  assert.ok(off.maxDifference <= 1e-5, `difference ${off.maxDifference} without positions`);
  assert.match(await page.locator(`${VIEW} [data-role="verdict"]`).textContent(), /The same rows, just reordered/);

  await page.locator(`${VIEW} input[data-control="positional"]`).check();
  await settle(page);
  assert.equal((await labState(page)).viewState.positional, true);
  const on = await assertDemoMatchesCore(page);
  assert.equal(await verdict(page), 'changed');
  assert.ok(on.maxDifference > 1e-2, `difference ${on.maxDifference} with positions`);
  assert.match(await page.locator(`${VIEW} [data-role="verdict"]`).textContent(), /The outputs changed/);
  assertClean(problems);
});

test('reverse, swap and shuffle change the order shown, and the numbers follow', async (t) => {
  const { page, problems } = await openView(t, { positional: true, order: [0, 1, 2, 3, 4], seed: 5 });
  await assertDemoMatchesCore(page);
  assert.equal(await difference(page), 0, 'the original order changes nothing');

  await page.locator(`${VIEW} [data-action="reverse"]`).click();
  await settle(page);
  assert.deepEqual(await shownOrder(page), [4, 3, 2, 1, 0]);
  await assertDemoMatchesCore(page);

  await page.locator(`${VIEW} select[data-control="swap-a"]`).selectOption('0');
  await page.locator(`${VIEW} select[data-control="swap-b"]`).selectOption('2');
  await page.locator(`${VIEW} [data-action="swap"]`).click();
  await settle(page);
  assert.deepEqual(await shownOrder(page), [2, 3, 4, 1, 0]);
  await assertDemoMatchesCore(page);

  await page.locator(`${VIEW} [data-action="shuffle"]`).click();
  await settle(page);
  const { viewState } = await labState(page);
  assert.equal(viewState.seed, 6);
  assert.deepEqual(await shownOrder(page), shuffledOrder(6));
  await assertDemoMatchesCore(page);
  assertClean(problems);
});

test('a bad or empty seed is refused with a message, and the last good seed and order stay', async (t) => {
  const { page, problems } = await openView(t, { seed: 5, order: shuffledOrder(5) });
  const seed = page.locator(`${VIEW} [data-control="seed"]`);
  for (const text of ['', '-3', '2.5']) {
    await seed.fill(text);
    await seed.press('Enter');
    await settle(page);
    const message = await page.locator(`${VIEW} [data-role="view-message"]`).textContent();
    assert.match(message, new RegExp(`seed must be a whole number from 0 to 2147483647, not "${text.replace('.', '\\.')}"`), `seed "${text}"`);
    assert.equal(await seed.getAttribute('aria-invalid'), 'true');
    const { viewState } = await labState(page);
    assert.equal(viewState.seed, 5, `seed "${text}" is refused`);
    assert.deepEqual(viewState.order, shuffledOrder(5));
  }
  await seed.fill('9'); // a good seed clears the message and shuffles
  await seed.press('Enter');
  await settle(page);
  assert.equal((await labState(page)).viewState.seed, 9);
  assert.deepEqual(await shownOrder(page), shuffledOrder(9));
  assert.equal((await page.locator(`${VIEW} [data-role="view-message"]`).textContent()).trim(), '');
  assertClean(problems);
});

test('an order that is not a permutation is refused with its reason, and the view stays', async (t) => {
  const { page, problems } = await openView(t, { order: [4, 3, 2, 1, 0] });
  await page.evaluate(() => document.querySelector('attn-lab').setState({ view: 'positions', viewState: { order: [0, 0, 1, 2, 3] } }));
  await settle(page);
  assert.match(await messageText(page), /positions view's "order" must be a permutation/);
  assert.deepEqual((await labState(page)).viewState.order, [4, 3, 2, 1, 0]);
  assert.deepEqual(await shownOrder(page), [4, 3, 2, 1, 0]);
  assertClean(problems);
});

test('the view follows the host theme (theme="dark" and "light" pin it)', async (t) => {
  const { page, problems } = await openView(t);
  for (const theme of ['dark', 'light']) {
    await page.evaluate((theme) => document.querySelector('attn-lab').setAttribute('theme', theme), theme);
    await settle(page);
    const [host, view] = await page.evaluate(() => {
      const lab = document.querySelector('attn-lab');
      const view = lab.shadowRoot.querySelector('attn-positions-view');
      return [getComputedStyle(lab).backgroundColor, getComputedStyle(view).backgroundColor];
    });
    assert.equal(view, host, `${theme}: the view's background matches the host's`);
  }
  assertClean(problems);
});
