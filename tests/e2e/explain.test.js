// Hover and focus explain a result cell with its actual numbers, and light up the row and
// column that produced it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { encodeHash, presetState } from './support/expected.js';
import { assertClean, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');

const explanation = (page) => page.evaluate(() => document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="explanation"]').textContent.trim());
const highlighted = (page, role, matrix) =>
  page.evaluate(
    ([role, matrix]) => {
      const table = document.querySelector('attn-lab').shadowRoot.querySelector(`[data-role="${role}"] table[data-matrix="${matrix}"]`);
      return [...table.querySelectorAll('td.hl')].map((td) => `${td.dataset.row},${td.dataset.col}`);
    },
    [role, matrix],
  );

test('hovering a score shows q·k written out and lights up its query row and its key, a column of Kᵀ', async (t) => {
  const { page, problems } = await session.open(t, encodeHash({ ...presetState('tiny'), step: 'scores' }));
  await page.locator('attn-lab [data-role="result"] table[data-matrix="scores"] td[data-row="0"][data-col="1"]').hover();
  await settle(page);
  // The tiny example: q₁ = (1, 0), k₂ = (1, 1).
  assert.equal(await explanation(page), 'q₁·k₂ = 1×1 + 0×1 = 1');
  assert.deepEqual(await highlighted(page, 'operands', 'Q'), ['0,0', '0,1']);
  // K is drawn as Kᵀ (2×3), as S = QKᵀ writes it: key 2 is its column 2.
  assert.deepEqual(await highlighted(page, 'operands', 'K'), ['0,1', '1,1']);
  assertClean(problems);
});

test('focusing a softmax weight shows it as its exp over the row sum', async (t) => {
  // The tiny example's first keys, k₁ = (1, 0), k₂ = (1, 1), k₃ = (0, 1): a tie in row 1.
  const { page, problems } = await session.open(
    t,
    encodeHash({
      ...presetState('tiny'),
      K: [
        [1, 0],
        [1, 1],
        [0, 1],
      ],
      step: 'softmax',
    }),
  );
  await page.locator('attn-lab [data-role="result"] table[data-matrix="softmax"] td[data-row="0"][data-col="2"]').focus();
  await settle(page);
  // Row 1 of that example: logits (1/√2, 1/√2, 0) and max 1/√2, so the shifted
  // exponentials are (1, 1, e^−0.7071 = 0.4931) and Σ = 2.4931.
  assert.match(await explanation(page), /^a₁₃ = exp\(s̃₁₃ − m₁\) \/ Σ = exp\(0 − 0\.7071\) \/ 2\.4931 = 0\.4931 \/ 2\.4931 = 0\.1978$/);
  assertClean(problems);
});
