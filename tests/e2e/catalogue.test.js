// The bad-input catalogue: each case below goes through the JS package (lab.trace) and the
// element (setState, in Chromium), and a few through the URL. Each gets its documented
// error code or its defined result; after an error the element keeps the last good view;
// nothing crashes and "NaN" never reaches the screen. (The C++ API has its own table in
// tests/cpp/errors_test.cpp.)
//
// pkg: what lab.trace gives ('ok' or an error code). el: what setState gives: 'ok', an
// error code (shown as a message; the last good view and inputs kept) or 'state-error' (a
// StateError thrown for a value of the wrong type; nothing changes).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAttnLab } from '../../dist/attnlab.js';
import { encodeHash, presetState } from './support/expected.js';
import { stateToTraceRequest } from '../support/state-request.js';
import { renderedResults, settle } from './support/lab-page.js';
import { browserSession } from './support/session.js';
import { tinyQKV, tinyX } from '../support/tiny-example.js';

const tiny = {
  mode: 'qkv',
  ...tinyQKV(),
  heads: 1,
};
const x = {
  mode: 'x',
  ...tinyX(),
  Wo: null,
  tokens: ['a', 'b', 'c'],
  keyPadding: [false, false, false],
};
const rows = (n, cols, v = 1) => Array.from({ length: n }, () => Array(cols).fill(v));

const CATALOGUE = [
  // non-finite and extreme numbers
  [
    'NaN in Q',
    {
      Q: [
        [NaN, 0],
        [0, 1],
      ],
    },
    'non-finite',
    'non-finite',
  ],
  [
    'Infinity in K',
    {
      K: [
        [Infinity, 0],
        [1, 1],
        [0, 1],
      ],
    },
    'non-finite',
    'non-finite',
  ],
  [
    '-Infinity in V',
    {
      V: [
        [-Infinity, 0],
        [0, 2],
        [1, 1],
      ],
    },
    'non-finite',
    'non-finite',
  ],
  [
    'NaN in X',
    {
      ...x,
      X: [
        [NaN, 0],
        [0, 1],
        [1, 1],
      ],
    },
    'non-finite',
    'non-finite',
  ],
  [
    'Infinity in W_Q',
    {
      ...x,
      Wq: [
        [Infinity, 0],
        [0, 1],
      ],
    },
    'non-finite',
    'non-finite',
  ],
  [
    '1e39 (beyond float32) in V',
    {
      V: [
        [1e39, 0],
        [0, 2],
        [1, 1],
      ],
    },
    'non-finite',
    'non-finite',
  ],
  ['scores that overflow float32', { Q: rows(2, 2, 1e20), K: rows(3, 2, 1e20) }, 'non-finite', 'non-finite'],
  [
    '-0 in Q (defined)',
    {
      Q: [
        [-0, 0],
        [0, 1],
      ],
    },
    'ok',
    'ok',
  ],
  [
    'a subnormal in Q (defined)',
    {
      Q: [
        [1e-40, 0],
        [0, 1],
      ],
    },
    'ok',
    'ok',
  ],
  [
    '1e38 in Q (defined)',
    {
      Q: [
        [1e38, 0],
        [0, 1],
      ],
    },
    'ok',
    'ok',
  ],
  ['all zeros (defined: uniform weights)', { Q: rows(2, 2, 0), K: rows(3, 2, 0) }, 'ok', 'ok'],
  // shapes
  [
    'Q and K of different widths',
    {
      Q: [
        [1, 0, 1],
        [0, 1, 1],
      ],
    },
    'shape-mismatch',
    'shape-mismatch',
  ],
  [
    'K and V of different lengths',
    {
      V: [
        [1, 0],
        [0, 2],
      ],
    },
    'shape-mismatch',
    'shape-mismatch',
  ],
  ['V narrower than Q (defined: d_v may differ)', { V: [[1], [0], [1]] }, 'ok', 'ok'],
  [
    'X and W_Q do not fit',
    {
      ...x,
      Wq: [
        [1, 0],
        [0, 1],
        [1, 1],
      ],
    },
    'shape-mismatch',
    'shape-mismatch',
  ],
  ['W_Q and W_K of different widths', { ...x, Wk: [[1], [0]] }, 'shape-mismatch', 'shape-mismatch'],
  ['X and W_V do not fit', { ...x, Wv: [[1, 0]] }, 'shape-mismatch', 'shape-mismatch'],
  ['W_O rows differ from the heads width', { ...x, Wo: [[1, 0]] }, 'shape-mismatch', 'shape-mismatch'],
  ['W_O rows differ from V width', { Wo: [[1], [0], [1]] }, 'shape-mismatch', 'shape-mismatch'],
  ['ragged rows in Q', { Q: [[1, 0], [0]] }, 'shape-mismatch', 'shape-mismatch'],
  ['a mask of the wrong shape', { mask: [[true]] }, 'shape-mismatch', 'shape-mismatch'],
  ['key padding of the wrong length', { keyPadding: [true] }, 'shape-mismatch', 'shape-mismatch'],
  ['an empty Q', { Q: [] }, 'empty', 'state-error'],
  ['Q with empty rows', { Q: [[], []] }, 'empty', 'empty'],
  ['an empty X', { ...x, X: [[]], tokens: ['a'], keyPadding: [false] }, 'empty', 'empty'],
  ['513 tokens', { Q: rows(513, 2), K: rows(513, 2), V: rows(513, 2) }, 'too-large', 'too-large'],
  ['513 features', { Q: rows(2, 513), K: rows(3, 513), V: rows(3, 2) }, 'too-large', 'too-large'],
  // heads
  ['heads 0', { heads: 0 }, 'invalid-argument', 'state-error'],
  ['heads -1', { heads: -1 }, 'invalid-argument', 'state-error'],
  ['heads 1.5', { heads: 1.5 }, 'invalid-argument', 'state-error'],
  ['heads 3 do not divide a width of 2', { heads: 3 }, 'invalid-argument', 'invalid-argument'],
  ['heads 65', { ...x, heads: 65 }, 'invalid-argument', 'invalid-argument'],
  // scale and temperature
  ['scale 0', { scale: 0 }, 'invalid-argument', 'invalid-argument'],
  ['scale -1', { scale: -1 }, 'invalid-argument', 'invalid-argument'],
  ['scale NaN', { scale: NaN }, 'invalid-argument', 'invalid-argument'],
  ['scale Infinity', { scale: Infinity }, 'invalid-argument', 'invalid-argument'],
  ['temperature 0', { temperature: 0 }, 'invalid-argument', 'invalid-argument'],
  ['temperature -2', { temperature: -2 }, 'invalid-argument', 'invalid-argument'],
  ['temperature NaN', { temperature: NaN }, 'invalid-argument', 'invalid-argument'],
  ['temperature Infinity', { temperature: Infinity }, 'invalid-argument', 'invalid-argument'],
  // masks with defined results
  ['every key padded (defined: zero rows)', { keyPadding: [true, true, true] }, 'ok', 'ok'],
  [
    'a mask that forbids everything (defined: zero rows)',
    {
      mask: [
        [false, false, false],
        [false, false, false],
      ],
    },
    'ok',
    'ok',
  ],
  ['causal with more queries than keys (defined)', { Q: rows(4, 2), causal: true }, 'ok', 'ok'],
  // wrong types
  [
    'a string in a cell',
    {
      Q: [
        ['1', 0],
        [0, 1],
      ],
    },
    'invalid-argument',
    'state-error',
  ],
  [
    'null in a cell',
    {
      K: [
        [1, 0],
        [null, 1],
        [0, 1],
      ],
    },
    'invalid-argument',
    'state-error',
  ],
  ['a string instead of a matrix', { V: 'abc' }, 'invalid-argument', 'state-error'],
  ['tokens that are not strings', { ...x, tokens: [1, 2, 3] }, 'invalid-argument', 'state-error'],
  ['an unknown mode', { mode: 'y' }, null, 'state-error'],
  ['an unknown field', { queries: [] }, null, 'state-error'],
  ['an unknown step id (defined: the first step is shown)', { step: 'softmaxx' }, null, 'ok'],
];

const base = () => ({ ...presetState('tiny'), ...tiny });
const lab = await createAttnLab();

test(`the catalogue lists at least 40 cases (${CATALOGUE.length})`, () => {
  assert.ok(CATALOGUE.length >= 40);
});

test('through the package: each case gives its documented code or a defined, finite result', () => {
  for (const [name, partial, expected] of CATALOGUE) {
    if (expected === null) continue;
    let outcome = 'ok';
    try {
      const trace = lab.trace(stateToTraceRequest({ ...base(), ...partial }));
      for (const step of trace.steps) {
        for (const v of step.values.flat()) assert.ok(!Number.isNaN(v), `${name}: NaN in ${step.id}`);
      }
    } catch (error) {
      assert.equal(error.name, 'AttnLabError', `${name}: ${error}`);
      outcome = error.code;
    }
    assert.equal(outcome, expected, name);
  }
});

const session = browserSession('web/dist');

test('through the element: codes as messages, the last good view kept, no NaN on screen', async (t) => {
  const { page } = await session.open(t, encodeHash(base()));
  const good = await renderedResults(page);
  for (const [name, partial, , expected] of CATALOGUE) {
    const outcome = await page.evaluate((partial) => {
      const lab = document.querySelector('attn-lab');
      try {
        lab.setState(partial);
      } catch (error) {
        return error.name === 'StateError' ? 'state-error' : `threw ${error}`;
      }
      return 'applied';
    }, partial);
    await settle(page);
    const shown = await page.evaluate(() => {
      const root = document.querySelector('attn-lab').shadowRoot;
      const message = root.querySelector('[data-role="message"]');
      // Everything on screen but the error message (wherever the layout puts it), which may name the NaN it rejects.
      const text = root.textContent.replace(message.textContent, ' ');
      return { message: message.textContent.trim(), text };
    });
    assert.ok(!/\bNaN\b/.test(shown.text), `${name}: NaN on screen`);
    if (expected === 'state-error') {
      assert.equal(outcome, 'state-error', name);
    } else if (expected === 'ok') {
      assert.equal(outcome, 'applied', name);
      assert.equal(shown.message, '', `${name}: ${shown.message}`);
    } else {
      assert.equal(outcome, 'applied', name);
      assert.ok(shown.message.length > 0, `${name}: no message`);
      assert.deepEqual(await renderedResults(page), good, `${name}: the last good view changed`);
    }
    // Back to the good state for the next case.
    await page.evaluate((state) => document.querySelector('attn-lab').setState(state), base());
    await settle(page);
  }
});

for (const [name, hash] of [
  ['not base64url', '#s=%%%'],
  ['not JSON', `#s=${Buffer.from('{not json').toString('base64url')}`],
  ['a field of the wrong type', `#s=${Buffer.from('{"heads":"two"}').toString('base64url')}`],
  ['an unknown field', `#s=${Buffer.from('{"colour":"red"}').toString('base64url')}`],
]) {
  test(`through the URL: ${name} shows a message and the default preset`, async (t) => {
    const { page } = await session.open(t, hash);
    const state = await page.evaluate(() => document.querySelector('attn-lab').getState());
    assert.deepEqual(state.Q, presetState('tiny').Q);
    const message = await page.evaluate(() => document.querySelector('attn-lab').shadowRoot.querySelector('[data-role="message"]').textContent);
    assert.match(message, /could not be read/);
  });
}

for (const [name, attribute, value, expected] of [
  ['a state attribute that is not JSON', 'state', '{not json', /could not be read/],
  ['a state attribute with a wrong type', 'state', '{"temperature":"hot"}', /could not be read/],
  ['an unknown preset', 'preset', 'no-such-preset', /no preset "no-such-preset"/],
  ['an unknown step', 'step', 'no-such-step', null],
]) {
  test(`through the attributes: ${name} shows a message (or a defined view) and the default preset`, async (t) => {
    const { page } = await session.open(t);
    const shown = await page.evaluate(
      async ([attribute, value]) => {
        const lab = document.createElement('attn-lab');
        lab.setAttribute(attribute, value);
        document.body.append(lab);
        while (!lab.dataset.step) await new Promise((done) => setTimeout(done, 20));
        await lab.updateComplete;
        const message = lab.shadowRoot.querySelector('[data-role="message"]').textContent.trim();
        return { message, step: lab.dataset.step, Q: lab.getState().Q };
      },
      [attribute, value],
    );
    assert.deepEqual(shown.Q, presetState('tiny').Q);
    if (expected) assert.match(shown.message, expected);
    else assert.equal(shown.step, 'scores'); // the first step of the default preset
  });
}
