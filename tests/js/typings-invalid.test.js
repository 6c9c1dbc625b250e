// The calls tests/types/invalid.ts says the typings refuse are calls the package refuses too:
// each line after an expect-error directive, run against the packed package, throws an
// AttnLabError (so the typings never reject a call that works). The ones the directive marks
// "typings only", and the element's (no DOM here), are left out.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';

import { attnlab } from './support/package.js';

const source = await readFile('tests/types/invalid.ts', 'utf8');
const lines = source.split('\n');
const calls = lines
  .map((line, i) => ({ directive: line, code: lines[i + 1] }))
  .filter(({ directive }) => directive.startsWith('// @ts-expect-error'))
  .filter(({ directive, code }) => !directive.includes('typings only') && !code.includes('document.'));

const AsyncFunction = (async () => {}).constructor;

test('every invalid call of tests/types/invalid.ts that runs here is refused with an AttnLabError', async () => {
  assert.ok(calls.length >= 40, `${calls.length} calls`);
  const lab = await attnlab.createAttnLab();
  await lab.loadLearning();
  const I = [
    [1, 0],
    [0, 1],
  ];
  const names = { X: I, Wq: I, Wk: I, Wv: I, Q: I, K: I, V: I, dOutput: I, lab, AttnLabError: attnlab.AttnLabError };
  for (const { directive, code } of calls) {
    const run = new AsyncFunction(...Object.keys(names), `return ${code}`); // an entry's promise too
    await assert.rejects(run(...Object.values(names)), attnlab.AttnLabError, `${directive}\n${code}\nran without an AttnLabError`);
  }
});
