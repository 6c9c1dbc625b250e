// web/examples/tutorial.html, served from the repository root the way a static host would:
// plain HTML loading ../../dist/element.js, with two differently configured instances.
// The site carries a copy (web/dist/examples/, loading ../pkg/element.js), tested the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, dataStep, labState, renderedResults } from './support/lab-page.js';
import { TOLERANCE, diffStep, expectedTrace, presetState } from './support/expected.js';
import { SCREENSHOT_DIR, browserSession } from './support/session.js';

const session = browserSession('.');

// What the tutorial's two <attn-lab> tags ask for.
const INSTANCES = [
  { preset: 'tiny', step: 'softmax', editable: true },
  { preset: 'causal', step: 'mask', editable: false },
];

const writableInputs = (page, index) =>
  page.evaluate(
    (i) =>
      [...document.querySelectorAll('attn-lab')[i].shadowRoot.querySelectorAll('[data-role="inputs"] input')].filter(
        (input) => !input.readOnly && !input.disabled,
      ).length,
    index,
  );

async function assertInstance(page, index, { preset, step, editable }) {
  const name = `instance ${index + 1}`;
  assert.equal(await dataStep(page, index), step, `${name}: step attribute`);
  const state = await labState(page, index);
  assert.deepEqual(state, { ...presetState(preset), step }, `${name}: preset attribute`);

  const tables = await renderedResults(page, index);
  assert.ok(tables.length > 0, `${name}: result tables`);
  assert.ok(
    tables.every((table) => table.values.flat().every((v) => typeof v === 'number' && !Number.isNaN(v))),
    `${name}: numeric data-value`,
  );
  const diff = diffStep(tables, expectedTrace(state), step);
  assert.ok(diff <= TOLERANCE, `${name}: max abs diff ${diff} from lab.trace()`);

  const writable = await writableInputs(page, index);
  if (editable) assert.ok(writable > 0, `${name}: editable inputs`);
  else assert.equal(writable, 0, `${name}: editable="false" leaves no writable input`);
}

for (const [where, path] of [
  ['in the repository', 'web/examples/tutorial.html'],
  ['in the built site', 'web/dist/examples/tutorial.html'],
]) {
  test(`the tutorial ${where} shows two working, independently configured instances`, async (t) => {
    const { page, problems } = await session.open(t, path, { labs: INSTANCES.length });
    for (const [index, expected] of INSTANCES.entries()) await assertInstance(page, index, expected);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/tutorial-${where.split(' ').at(-1)}.png`, fullPage: true });
    assertClean(problems);
  });
}
