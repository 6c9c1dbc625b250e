// lab.flashPlan(): the rules the WGSL kernel applies, decided by the core (issue 28: no rule of
// attention in web/). Each query's key band, the rows that see no key, ALiBi's slopes and the
// queries' positions, against a brute-force oracle written here from the definitions, over
// random configurations (seeded; ATTNLAB_PLAN_SEED=<seed> replays one run).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { random } from './support/fuzz-requests.js';
import { attnlab } from './support/package.js';

const lab = await attnlab.createAttnLab();
const SEED = Number(process.env.ATTNLAB_PLAN_SEED ?? Date.now() % 2 ** 31);
console.log(`flash-plan: seed ${SEED} (replay with ATTNLAB_PLAN_SEED=${SEED})`);

const flat = (rows, cols, value) => ({ rows, cols, data: new Float32Array(rows * cols).fill(value) });

// Whether query i (of nQ) may attend to key j (of nK) by position: every key checked alone.
function allowedByPosition({ nQ, nK, causal, alignment, window }, i, j) {
  const position = alignment === 'bottom-right' ? i + nK - nQ : i;
  if (causal && j > position) return false;
  if (typeof window === 'number') return window === 0 || Math.abs(position - j) < window;
  if (window.left !== undefined && j < position - window.left) return false;
  if (window.right !== undefined && j > position + window.right) return false;
  return true;
}

function randomConfig(r) {
  const heads = r.pick([1, 2, 4]);
  const config = {
    nQ: r.int(1, 40),
    nK: r.int(1, 40),
    heads,
    causal: r.chance(0.5),
    alignment: r.pick(['top-left', 'bottom-right']),
    window: r.pick([0, r.int(1, 12), {}, { left: r.int(0, 12) }, { right: r.int(0, 12) }, { left: r.int(0, 12), right: r.int(0, 12) }]),
    padding: r.chance(0.5) ? null : [],
    bias: null,
  };
  if (config.padding) for (let j = 0; j < config.nK; j++) config.padding.push(r.chance(0.3));
  if (r.chance(0.5)) {
    const rows = r.chance(0.5) ? config.nQ : heads * config.nQ;
    config.bias = { rows, cols: config.nK, data: Float32Array.from({ length: rows * config.nK }, () => (r.chance(0.4) ? -Infinity : r.float())) };
  }
  return config;
}

test('the key bands, fully masked rows, slopes and positions of random configurations match a brute-force oracle', () => {
  const r = random(SEED);
  for (let run = 0; run < 600; run++) {
    const c = randomConfig(r);
    const what = `seed ${SEED}, run ${run}: ${JSON.stringify({ ...c, bias: c.bias && `${c.bias.rows}×${c.bias.cols}` })}`;
    const request = {
      Q: flat(c.nQ, 2 * c.heads, 0.5),
      K: flat(c.nK, 2 * c.heads, 0.5),
      V: flat(c.nK, 2 * c.heads, 1),
      heads: c.heads,
      causal: c.causal,
      causalAlignment: c.alignment,
      window: c.window,
      alibi: run % 2 === 0,
      ...(c.padding ? { keyPadding: c.padding } : {}),
      ...(c.bias ? { bias: c.bias } : {}),
    };
    const plan = lab.flashPlan(request);
    assert.ok(plan.keyBands instanceof Uint32Array, what);
    assert.equal(plan.keyBands.length, 2 * c.nQ, what);
    const fullyMasked = [];
    let previous = [0, 0];
    for (let i = 0; i < c.nQ; i++) {
      const seen = [];
      for (let j = 0; j < c.nK; j++) if (allowedByPosition(c, i, j)) seen.push(j);
      const [begin, end] = plan.keyBands.subarray(2 * i, 2 * i + 2);
      if (seen.length === 0) assert.ok(begin === end && end <= c.nK, `${what}: row ${i} sees no key, band [${begin}, ${end})`);
      else assert.deepEqual([begin, end], [seen[0], seen.at(-1) + 1], `${what}: row ${i}`);
      assert.equal(end - begin, seen.length, `${what}: row ${i}'s band has gaps`);
      // The shader walks a block of rows from its first row's begin to its last row's end.
      assert.ok(begin >= previous[0] && end >= previous[1], `${what}: row ${i}'s band goes back`);
      previous = [begin, end];
      const blind = (h) => seen.every((j) => c.padding?.[j] || (c.bias && c.bias.data[((c.bias.rows === c.nQ ? 0 : h * c.nQ) + i) * c.nK + j] === -Infinity));
      if (Array.from({ length: c.heads }, (_, h) => h).every(blind)) fullyMasked.push(i);
    }
    assert.deepEqual(plan.fullyMaskedRows, fullyMasked, `${what}: fully masked rows`);
    assert.deepEqual(plan.fullyMaskedRows, lab.flashAttention(request).fullyMaskedRows, `${what}: as flashAttention lists them`);
    assert.equal(plan.positionOffset, c.alignment === 'bottom-right' ? c.nK - c.nQ : 0, what);
    assert.equal(plan.biasPerHead, Boolean(c.bias) && c.bias.rows !== c.nQ, what);
    const slopes = run % 2 === 0 ? Array.from({ length: c.heads }, (_, h) => Math.fround(2 ** ((-8 * (h + 1)) / c.heads))) : [];
    assert.deepEqual([...plan.slopes], slopes, what);
  }
});

test("kvGroup is the query heads per K/V head (grouped-query attention), for the shader's K/V head of each query head", () => {
  for (const [heads, kvHeads] of [
    [4, 0],
    [4, 4],
    [4, 2],
    [4, 1],
    [6, 3],
    [8, 2],
  ]) {
    const request = {
      Q: flat(3, 2 * heads, 0.5),
      K: flat(5, 2 * (kvHeads || heads), 0.5),
      V: flat(5, 2 * (kvHeads || heads), 1),
      heads,
      ...(kvHeads ? { kvHeads } : {}),
    };
    assert.equal(lab.flashPlan(request).kvGroup, kvHeads ? heads / kvHeads : 1, `heads ${heads}, kvHeads ${kvHeads}`);
  }
});
