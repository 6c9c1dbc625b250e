// Embeds that lead with their step: <attn-lab preset="…" step="…"> on a bare page shows that
// step's result in the first viewport, on a laptop and on a phone; `inputs`, `controls`,
// `no-predict` and `no-quiz` let an author show only what a tutorial needs.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { launchChromium } from '../../scripts/chromium.mjs';
import { serveStatic } from '../../scripts/serve.mjs';
import { SCREENSHOT_DIR } from './support/session.js';

let server;
let browser;
test.before(async () => {
  server = await serveStatic('.');
  browser = await launchChromium();
});
test.after(async () => {
  await browser?.close();
  await server?.close();
});

// A bare page (no styles of its own) with one embed carrying `attributes`.
async function embed(t, attributes, viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ viewport });
  t.after(() => context.close());
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${server.url}/tests/e2e/fixtures/blank.html`);
  await page.addScriptTag({ type: 'module', url: '/dist/element.js' });
  await page.evaluate((attributes) => {
    const lab = document.createElement('attn-lab');
    for (const [name, value] of Object.entries(attributes)) lab.setAttribute(name, value);
    document.body.append(lab);
  }, attributes);
  await page.waitForFunction(() => document.querySelector('attn-lab')?.dataset.view);
  await page.evaluate(() => document.querySelector('attn-lab').updateComplete);
  return { page, errors };
}

const shadow = (page, selector) =>
  page.evaluate((selector) => {
    const found = document.querySelector('attn-lab').shadowRoot.querySelector(selector);
    if (!found) return null;
    const box = found.getBoundingClientRect();
    return { top: box.top, bottom: box.bottom, visible: box.height > 0 && getComputedStyle(found).visibility !== 'hidden' };
  }, selector);

for (const [device, viewport] of [
  ['1280×800', { width: 1280, height: 800 }],
  ['390×844', { width: 390, height: 844 }],
]) {
  for (const [preset, step] of [
    ['causal', 'softmax'],
    ['tiny', 'scores'],
    ['two-heads', 'aggregate'],
  ]) {
    test(`<attn-lab preset="${preset}" step="${step}"> shows its result in the first viewport at ${device}`, async (t) => {
      const { page, errors } = await embed(t, { preset, step }, viewport);
      const result = await shadow(page, `[data-role="result"] table[data-matrix="${step}"]`);
      assert.ok(result?.visible, 'the result table is there');
      assert.ok(result.top >= 0 && result.top < viewport.height - 60, `the result starts at ${result.top}px, within the first ${viewport.height}px`);
      await page.screenshot({ path: `${SCREENSHOT_DIR}/embed-${preset}-${step}-${viewport.width}.png` });
      assert.deepEqual(errors, []);
    });
  }
}

test('inputs="shown|collapsed|hidden" and controls="full|minimal|none" show what they say', async (t) => {
  const { page } = await embed(t, { preset: 'tiny', step: 'softmax', inputs: 'collapsed', controls: 'minimal' });
  assert.equal(await page.evaluate(() => document.querySelector('attn-lab').shadowRoot.querySelector('details[data-role="inputs-toggle"]')?.open), false);
  assert.equal(await shadow(page, '[data-control="preset"]'), null, 'minimal: no options bar');
  assert.ok(await shadow(page, '[data-action="next"]'), 'minimal: the step navigation');

  const count = (selector) => page.evaluate((s) => document.querySelector('attn-lab').shadowRoot.querySelectorAll(s).length, selector);
  const set = async (name, value) => {
    await page.evaluate(([n, v]) => document.querySelector('attn-lab').setAttribute(n, v), [name, value]);
    await page.evaluate(() => document.querySelector('attn-lab').updateComplete);
  };
  await set('inputs', 'shown');
  assert.equal(await count('details[data-role="inputs-toggle"]'), 0);
  assert.ok((await count('[data-role="inputs"] table[data-matrix="Q"]')) === 1, 'Q is shown');
  await set('inputs', 'hidden');
  assert.equal(await count('[data-role="inputs"]'), 0);
  await set('controls', 'full');
  assert.equal(await count('[data-control="preset"]'), 1);
  await set('controls', 'none');
  assert.equal((await count('[data-control="preset"]')) + (await count('[data-action="next"]')), 0);
  assert.equal(await count('[data-role="result"] table[data-matrix="softmax"]'), 1, 'the result stays');

  await set('controls', 'sideways');
  const message = await page.evaluate(() => document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="message"]').textContent);
  assert.match(message, /controls="sideways" is not one of full, minimal, none/);
});

test('by default an embed shows its controls and inputs (below a given step); no-predict hides the predict switch', async (t) => {
  const led = await embed(t, { preset: 'tiny', step: 'softmax' });
  const before = (selector) =>
    led.page.evaluate((s) => {
      const root = document.querySelector('attn-lab').shadowRoot;
      const [a, b] = [root.querySelector('[data-role="step"]'), root.querySelector(s)];
      return Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
    }, selector);
  assert.equal(await before('[data-control="preset"]'), true, 'the options follow the step');
  assert.equal(await before('[data-role="inputs"] table[data-matrix="Q"]'), true, 'the inputs follow the step');

  const { page } = await embed(t, { preset: 'tiny' });
  const count = (selector) => page.evaluate((s) => document.querySelector('attn-lab').shadowRoot.querySelectorAll(s).length, selector);
  assert.equal(await count('[data-control="predict"]'), 1);
  assert.equal(await count('[data-role="inputs"] table[data-matrix="Q"]'), 1);
  await page.evaluate(() => document.querySelector('attn-lab').setAttribute('no-predict', ''));
  await page.evaluate(() => document.querySelector('attn-lab').updateComplete);
  assert.equal(await count('[data-control="predict"]'), 0);
});

test('no-quiz hides the self-check at the end of a teaching view', async (t) => {
  const { page } = await embed(t, { preset: 'softmax' });
  const quizShown = () =>
    page.evaluate(() => {
      const view = document.querySelector('attn-lab').shadowRoot.querySelector('attn-softmax-view');
      const quiz = view?.shadowRoot?.querySelector('attn-topic-quiz');
      return quiz ? quiz.getBoundingClientRect().height > 0 : null;
    });
  await page.waitForFunction(() =>
    document.querySelector('attn-lab').shadowRoot.querySelector('attn-softmax-view')?.shadowRoot?.querySelector('attn-topic-quiz'),
  );
  assert.equal(await quizShown(), true);
  await page.evaluate(() => document.querySelector('attn-lab').setAttribute('no-quiz', ''));
  assert.equal(await quizShown(), false);
});

test('a bad inputs or controls value is named on screen from the first render', async (t) => {
  for (const [name, value] of [
    ['inputs', 'weird'],
    ['controls', 'tiny'],
  ]) {
    const { page, errors } = await embed(t, { preset: 'tiny', [name]: value });
    await page.waitForFunction(() => document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="result"] table'));
    const message = await page.evaluate(() => document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="message"]').textContent);
    assert.match(message, new RegExp(`${name}="${value}" is not one of`), `${name}="${value}": ${message}`);
    assert.deepEqual(errors, []);
  }
});

test('controls="minimal" and "none" leave no empty band or rule above the step', async (t) => {
  for (const controls of ['none', 'minimal']) {
    for (const step of [undefined, 'softmax']) {
      const { page } = await embed(t, { preset: 'tiny', controls, inputs: 'hidden', ...(step ? { step } : {}) });
      await page.waitForFunction(() => document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="result"] table'));
      const gap = await page.evaluate((controls) => {
        const lab = document.querySelector('attn-lab');
        const root = lab.shadowRoot;
        const first = root.querySelector(root.querySelector('nav[part="nav"]') && !lab.step ? 'nav[part="nav"]' : '[data-role="step"]');
        const style = getComputedStyle(root.querySelector('[data-role="step"]'));
        return {
          above:
            first.getBoundingClientRect().top -
            lab.getBoundingClientRect().top -
            parseFloat(getComputedStyle(lab).paddingTop) -
            parseFloat(getComputedStyle(lab).borderTopWidth),
          rule: !lab.step && controls === 'minimal' ? '0px' : style.borderTopWidth,
        };
      }, controls);
      // At most the step title's own margin (the band was about 45 px).
      assert.ok(gap.above <= 8, `controls="${controls}"${step ? ` step="${step}"` : ''}: ${gap.above}px above the first content`);
      assert.equal(gap.rule, '0px', `controls="${controls}"${step ? ` step="${step}"` : ''}: no rule on top`);
    }
  }
});
