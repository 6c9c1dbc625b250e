// CSV exports and spreadsheet formulas: token labels from a shared link that a spreadsheet
// would run (=, +, -, @ first) arrive as text with a leading ', quoted; the numbers stay bare
// numbers, negative ones included. The file is read back with this test's own RFC 4180 parser.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { encodeHash, expectedTrace, presetState } from './support/expected.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');
const LABELS = ['=HYPERLINK("x")', '+1', '@a', '-cmd'];
const state = { ...presetState('two-heads'), tokens: LABELS, step: 'scores' };

/** RFC 4180 fields: rows of { value, quoted }; "" inside quotes is one ". */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let i = 0;
  while (i < text.length) {
    let value = '';
    const quoted = text[i] === '"';
    if (quoted) {
      i += 1;
      while (!(text[i] === '"' && text[i + 1] !== '"')) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        value += text[i];
        i += text[i] === '"' ? 2 : 1;
      }
      i += 1;
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\n') value += text[i++];
    }
    row.push({ value, quoted });
    if (text[i] === ',') i += 1;
    else {
      rows.push(row);
      row = [];
      i += 1; // the \n
    }
  }
  return rows;
}

test('a CSV export neutralises formula-like labels and keeps numbers numeric', async (t) => {
  const { page, problems } = await session.open(t, encodeHash(state));
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('attn-lab [data-export="csv"]').click()]);
  assert.equal(download.suggestedFilename(), 'attnlab-scores-head1.csv');
  const rows = parseCsv(await readFile(await download.path(), 'utf8'));
  const scores = expectedTrace(state).steps.find((step) => step.id === 'scores' && step.head === 0).values;

  const neutralised = LABELS.map((label) => `'${label}`);
  assert.deepEqual(rows[0], [{ value: '', quoted: true }, ...neutralised.map((value) => ({ value, quoted: true }))], 'the header');
  assert.equal(rows.length, 1 + scores.length);
  rows.slice(1).forEach(([label, ...cells], r) => {
    assert.deepEqual(label, { value: neutralised[r], quoted: true }, `row ${r}'s label`);
    assert.deepEqual(
      cells.map((cell) => cell.quoted),
      cells.map(() => false),
      `row ${r}: numbers are bare`,
    );
    assert.deepEqual(
      cells.map((cell) => Number(cell.value)),
      scores[r],
      `row ${r}: the core's numbers`,
    );
  });
  const negatives = rows
    .slice(1)
    .flatMap(([, ...cells]) => cells.map((cell) => cell.value))
    .filter((v) => v.startsWith('-'));
  assert.ok(negatives.length > 0, 'the case has negative scores, written as plain -0.… numbers');
  assert.ok(negatives.every((v) => Number.isFinite(Number(v))));
  assert.deepEqual(problems.pageErrors, []);
});
