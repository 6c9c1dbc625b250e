// The teaching views as a whole: each view of the one list (views/list.js) is reachable by a
// tab, by the URL and as a preset, and a malformed view state is rejected with a message
// naming it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TEACHING_VIEW_IDS, VIEW_IDS } from '../../web/element/views/list.js';
import { waitForLinkState } from '../support/state-link.js';
import { encodeHash, presetState } from './support/expected.js';
import { assertClean, labState, messageText, settle, waitForView } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const VIEWS = TEACHING_VIEW_IDS;

test('the tabs switch between the stepper and every view, and the URL follows', async (t) => {
  const { page, problems } = await session.open(t);
  for (const view of VIEWS) {
    await page.locator(`attn-lab [role="tab"][data-view="${view}"]`).click();
    await waitForView(page, view);
    assert.equal((await labState(page)).view, view);
    await waitForLinkState(page, (linked) => linked.view === view);
  }
  await page.locator('attn-lab [role="tab"][data-view="stepper"]').click();
  await settle(page);
  assert.equal(await page.evaluate(() => document.querySelector('attn-lab').dataset.view), 'stepper');
  assert.ok(await page.locator('attn-lab [data-role="result"] table').count(), 'the stepper is back');
  assertClean(problems);
});

test('the tab bar shows the views of the one list, in its order', async (t) => {
  const { page, problems } = await session.open(t);
  const tabs = await page.locator('attn-lab [role="tab"]').evaluateAll((all) => all.map((tab) => tab.dataset.view));
  assert.deepEqual(tabs, VIEW_IDS);
  assertClean(problems);
});

for (const view of VIEWS) {
  test(`view ${view}: opens from the URL and from preset="${view}"`, async (t) => {
    const fromUrl = await session.open(t, `index.html${encodeHash({ ...presetState('tiny'), view })}`, { view });
    assert.equal((await labState(fromUrl.page)).view, view);
    assertClean(fromUrl.problems);

    const page = await session.newPage(t);
    await page.goto(fromUrl.page.url().replace(/index\.html.*$/, 'examples/tutorial.html'));
    await page.evaluate((view) => {
      document.body.replaceChildren(Object.assign(document.createElement('attn-lab'), { preset: view }));
    }, view);
    await waitForView(page, view);
    assert.equal(await page.locator('attn-lab [role="tab"]').count(), 0, 'an embed shows no tabs');
  });
}

test('an unknown view or a bad view state keeps the last good view and says why', async (t) => {
  const { page, problems } = await session.open(t);
  await page.evaluate(() => document.querySelector('attn-lab').setState({ view: 'nowhere' }));
  await settle(page);
  assert.match(await messageText(page), /no view "nowhere"/);
  assert.equal((await labState(page)).view, 'stepper');

  await page.evaluate(() => document.querySelector('attn-lab').setState({ view: 'scaling', viewState: { nonsense: 1 } }));
  await settle(page);
  assert.match(await messageText(page), /scaling view has no field "nonsense"/);
  assert.equal((await labState(page)).view, 'stepper');
  assertClean(problems);
});

test('a view attribute changed to an unknown id says so and keeps the view', async (t) => {
  const { page, problems } = await session.open(t);
  await page.evaluate(() => document.querySelector('attn-lab').setAttribute('view', 'nowhere'));
  await settle(page);
  assert.match(await messageText(page), /There is no view "nowhere", so the stepper view stays/);
  assert.equal((await labState(page)).view, 'stepper');
  assertClean(problems);
});

test('a readable link #view=ID opens that view, and an unknown one says so', async (t) => {
  const { page, problems } = await session.open(t, 'index.html#view=positions', { view: 'positions' });
  assert.equal((await labState(page)).view, 'positions');
  assertClean(problems);

  const other = await session.open(t, 'index.html#view=nowhere');
  assert.match(await messageText(other.page), /no view "nowhere"/);
  assert.equal((await labState(other.page)).view, 'stepper');
});
