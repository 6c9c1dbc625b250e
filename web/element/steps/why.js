// The "why" of each step: what it does and why attention needs it, said with the numbers of
// the trace on view. Each function takes { panel, labels } (the step's first panel) and
// returns { idea, live, before? }: `idea` holds without the numbers (shown while a
// prediction hides the result, as `before` where the idea would give its answer away),
// `live` quotes the trace. The numbers are read off the core's
// results and operands; the only arithmetic is a difference quoted in words.
import { html } from 'lit';

import { fmt, largestEntries, namedLargest, sub } from '../shared/format.js';

const list = (values) => values.map(fmt).join(', ');
// A token's label inside a sentence: quoted, so "the" reads as a token and not as a word.
const q = (label) => `“${label}”`;
const row = (values) => `[${list(values.slice(0, 4))}${values.length > 4 ? ', …' : ''}]`;
// A long row in a sentence: its first entries and how many there are (512 weights are a wall).
const some = (values, most = 8) => (values.length > most ? `${list(values.slice(0, most))}, … (${values.length} in all)` : list(values));

// The entries sharing a row's smallest finite value (largestEntries of the negated row).
const smallestEntries = (values) => largestEntries(values.map((v) => (Number.isFinite(v) ? -v : v)));

export const encodingWhy = ({ panel, labels }) => {
  const pe = panel.step.values;
  return {
    idea: 'Attention on its own sees the tokens as a set: shuffle them and each output only moves with its token. PE gives each position its own row of sines and cosines (fast waves in the first features, slow ones in the last) so that order can matter.',
    live: `Here position 1 (${q(labels.queries[0])}) gets ${row(pe[0])}${pe.length > 1 ? ` and position 2 (${q(labels.queries[1])}) ${row(pe[1])}` : ''}.`,
  };
};

export const positionalWhy = ({ panel, labels }) => {
  const [x] = panel.operands;
  return {
    idea: 'Adding PE to X makes the same word at two places look different to the projections that follow, so a query can prefer near or far keys.',
    live: `${q(labels.queries[0])}’s row goes from ${row(x.values[0])} to ${row(panel.step.values[0])}.`,
  };
};

/** Q, K or V (`symbol`) from X: every token's `noun`, which is its `role`. */
export const projectionWhy =
  (symbol, noun, role) =>
  ({ panel, labels }) => {
    const weights = html`W<sub>${symbol}</sub>`;
    return {
      idea: html`${symbol} = X·${weights} gives every token a ${noun}: ${role}. The same learned matrix ${weights} is applied to every token’s row of X.`,
      live: `${q(labels.queries[0])}’s ${noun} is ${row(panel.step.values[0])}.`,
    };
  };

export const scoresWhy = ({ panel, labels }) => {
  const s = panel.step.values[0];
  const best = largestEntries(s);
  const tie = best.length > 1 ? ' equally' : '';
  return {
    idea: 'S = QKᵀ: every query against every key. A score is a dot product, large when the query and the key point the same way; each key is one column of Kᵀ.',
    live: best.length ? `Row ${q(labels.queries[0])} scores ${list(s)}: it matches ${namedLargest(s, best, (j) => labels.keys[j])} best${tie}.` : '',
  };
};

export const scaleWhy = ({ panel, labels }) => {
  const { scale, temperature, dk, defaultScale } = panel.step;
  const before = panel.operands[0].values[0];
  const after = panel.step.values[0];
  const [highs, lows] = [largestEntries(before), smallestEntries(before)];
  const [hi, lo] = [highs[0] ?? -1, lows[0] ?? -1];
  const names = (indices) => indices.map((j) => q(labels.keys[j])).join(' and ');
  const by = defaultScale ? `√${dk} = ${fmt(1 / scale)}` : `1/${fmt(scale)}`;
  const idea = defaultScale
    ? 'A dot product of dₖ numbers spreads out like √dₖ: unscaled, softmax would give almost all the weight to one key and learning would stall. Dividing by √dₖ keeps the spread near 1 whatever dₖ is.'
    : 'The scores are multiplied by the factor given instead of 1/√dₖ.';
  const heat = temperature !== 1 ? ` Dividing by the temperature T = ${fmt(temperature)} then ${temperature > 1 ? 'flattens' : 'sharpens'} the weights.` : '';
  const gap =
    hi >= 0 && lo >= 0 && fmt(before[hi]) !== fmt(before[lo])
      ? ` In row ${q(labels.queries[0])}, the gap between the largest score (${names(highs)}) and the smallest (${names(lows)}) goes from ${fmt(before[hi] - before[lo])} to ${fmt(after[hi] - after[lo])}.`
      : '';
  return { idea: idea + heat, live: `Here the scores are divided by ${by}${temperature !== 1 ? ` and by T = ${fmt(temperature)}` : ''}.${gap}` };
};

export const maskWhy = ({ panel }) => {
  const blocked = panel.step.blockedBy.flat();
  const count = (flag) => blocked.filter((flags) => flags & flag).length;
  const reasons = [
    [1, 'the causal mask (a query may not look at later keys)'],
    [2, 'padding (keys that are not real tokens)'],
    [4, 'the mask given'],
    [8, 'the sliding window (keys too far from the query)'],
  ].flatMap(([flag, why]) => (count(flag) ? [`${count(flag)} by ${why}`] : []));
  return {
    idea: 'A masked score becomes −∞, so after softmax its weight is exactly 0 and the key contributes nothing.',
    live: `${blocked.filter(Boolean).length} of the ${blocked.length} cells are blocked, ${reasons.join('; ')}.`,
  };
};

// The row with the most keys it may attend to (the first of equals): under a causal mask the
// first row has one key and its weights say little.
// Each row counted once (at 512 tokens, counting both rows at each comparison took 60 ms).
const openRow = (logits) => {
  const keys = logits.map((row) => row.reduce((count, v) => count + (Number.isFinite(v) ? 1 : 0), 0));
  return keys.indexOf(Math.max(...keys));
};

export const softmaxWhy = ({ panel, labels }) => {
  const { values, rowMax, rowSum } = panel.step;
  const masked = rowSum.findIndex((sum) => sum === 0);
  const r = openRow(panel.operands[0].values);
  return {
    idea: 'Softmax turns each row of scores into weights: positive and adding up to 1. It takes exp of each score minus the row max m (so exp never overflows) and divides by the row sum Σ; bigger scores get much bigger weights.',
    before:
      'Softmax turns each row of scores into positive weights. It takes exp of each score minus the row max m (so exp never overflows) and divides by the row sum Σ; bigger scores get much bigger weights.',
    live:
      `Row ${q(labels.queries[r])}: m = ${fmt(rowMax[r])}, Σ = ${fmt(rowSum[r])}, weights ${some(values[r])}.` +
      (masked >= 0 ? ` Row ${q(labels.queries[masked])} has every key masked: attnlab defines its weights as zeros (a sum of 0, not 1).` : ''),
  };
};

export const aggregateWhy = ({ panel, labels }) => {
  // The row that mixes the most values (the first of equals), so the average shows.
  const mixes = panel.operands[0].values.map((row) => row.filter((w) => w !== 0).length);
  const r = mixes.indexOf(Math.max(...mixes));
  const weights = panel.operands[0].values[r];
  const terms = weights
    .map((w, j) => [w, j])
    .filter(([w]) => w !== 0)
    .slice(0, 4)
    .map(([w, j]) => `${fmt(w)}·v${sub(j)}`);
  return {
    idea: 'O = AV: each output row is a weighted average of the value rows, weighted by that query’s attention weights. A token’s output is mostly the values of the keys it attends to.',
    live: `${q(labels.queries[r])}: o${sub(r)} = ${terms.join(' + ') || '0 (every key masked)'} = ${row(panel.step.values[r])}, where vⱼ is the value row of token j.`,
  };
};

export const concatWhy = ({ panel }) => ({
  idea: 'Each head attended with its own slice of Q, K and V, so each can follow a different pattern. Concatenating puts their outputs side by side.',
  live: `${panel.operands.length} heads of ${panel.operands[0].values[0].length} columns each make C ${panel.step.shape[0]}×${panel.step.shape[1]}.`,
});

export const outputProjectionWhy = ({ panel }) => ({
  idea: html`Y = C·W<sub>O</sub> mixes what the heads found back into the model’s width, so the next layer gets one vector per token.`,
  live: `Y is ${panel.step.shape[0]}×${panel.step.shape[1]}: the first token’s output is ${row(panel.step.values[0])}.`,
});
