// One message style (issue 25, item 7): the same cell is named the same way whichever check
// refuses it, the element's own ("abc" is not a number) or the core's (1e40 is beyond float32):
// positions 1-based as the learner reads them, shapes as 2×2.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assertClean, cellInput, messageText, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';

const session = browserSession('web/dist');

test('"abc" and 1e40 in the same Q cell are named alike: row 1, column 2, shapes as 2×2', async (t) => {
  const { page, problems } = await session.open(t);
  const messages = [];
  for (const text of ['abc', '1e40']) {
    await page.locator(cellInput('Q', 0, 1)).fill(text);
    await settle(page);
    messages.push(await messageText(page));
  }
  for (const message of messages) {
    assert.match(message, /row 1, column 2/, message);
    assert.doesNotMatch(message, /row 0|column 1\b|\d+x\d+/, message);
  }
  assert.match(messages[1], /Q \(2×2\)/, messages[1]);
  assertClean(problems);
});
