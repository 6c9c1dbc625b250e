// The steps of the attention variants (the core's trace: rope, softcap, alibi or a bias,
// dropout), each present only when its variant is on. steps.js defines them in trace order,
// with the same checks as the others: rotate-q and rotate-k after the projections, softcap and
// bias after scale, dropout after softmax. Every number is read off the trace; the texts only lay them side by side.
import { fmt, fmtTerm, sub } from '../shared/format.js';
import { at, headCells } from './explain.js';

const q = (label) => `“${label}”`;

// ---- RoPE: rotate-q, rotate-k ----

// A cell of a rotated matrix: its pair turned by position · θ_i, written out.
const rotateExplain =
  (letter) =>
  ({ panel, row, col, value }) => {
    const i = Math.floor(col / 2);
    const [x, y] = [2 * i, 2 * i + 1].map((c) => panel.operands[0].values[row][c]);
    const { angles, frequencies } = panel.step;
    const a = fmt(angles[row][i]);
    const turned = col % 2 === 0 ? `${fmt(x)}·cos ${a} − ${fmtTerm(y)}·sin ${a}` : `${fmt(x)}·sin ${a} + ${fmtTerm(y)}·cos ${a}`;
    return {
      text: `${letter}${sub(row)} (position ${row}), pair ${i + 1} turned by ${row}·θ${sub(i)} = ${row}·${fmt(frequencies[i])} = ${a} rad: ${turned} = ${fmt(value)}`,
      highlight: [{ rows: [row], cell: [row, col] }],
    };
  };

const rotateWhy =
  (letter, axis) =>
  ({ panel, labels }) => {
    const { angles, ropeBase } = panel.step;
    const p = Math.min(1, angles.length - 1);
    const last = angles[p].length - 1;
    return {
      idea: `RoPE writes each token’s position into its ${letter === 'q' ? 'query' : 'key'} itself: every pair of features is turned by an angle that grows with the position, fast in the first pairs and slow in the last. A query turned by p·θ and a key turned by r·θ meet at an angle that depends only on p − r, so the score sees how far apart they are, not where they are.`,
      live: `With base ${fmt(ropeBase)}, ${q(labels[axis][p])} (position ${p}) turns its first pair by ${fmt(angles[p][0])} rad and its last by ${fmt(angles[p][last])} rad.`,
    };
  };

export const ROTATE_STEPS = [
  ['rotate-q', 'Q', 'q', 'queries'],
  ['rotate-k', 'K', 'k', 'keys'],
].map(([id, symbol, letter, axis]) => ({
  id,
  name: `${symbol}, rotated`,
  caption: `${symbol} rotated by position (RoPE)`,
  why: rotateWhy(letter, axis),
  rows: axis,
  cols: 'features',
  perHead: true,
  explain: rotateExplain(letter),
  predict: { elementwise: 'turns each pair of features by an angle set by the row’s position; lengths stay the same' },
}));

// ---- Soft-capping: softcap ----

// A step that changes each scaled score on its own, per head (softcap, bias): what it does to a
// row's entries, and how its largest entry can move, for the predict questions.
const scoreEdit = (step, elementwise, largest) => ({ ...step, ...headCells('scores'), predict: { elementwise, largest } });

export const SOFTCAP_STEP = scoreEdit(
  {
    id: 'softcap',
    name: 'S̃, capped',
    caption: 'S̃ soft-capped: c·tanh(S̃ / c)',
    why: ({ panel }) => {
      const { softcap } = panel.step;
      const before = panel.operands[0].values.flat();
      // The score farthest from 0, and the core's capped value at the same cell.
      const largest = before.reduce((best, b, i) => (Math.abs(b) > Math.abs(before[best]) ? i : best), 0);
      return {
        idea: 'Soft-capping (Gemma 2) squeezes every scaled score through c·tanh(s̃ / c): small scores pass almost unchanged, large ones bend towards ±c and never pass it, so no single score can grow without bound and swamp the softmax.',
        live: `Here c = ${fmt(softcap)}: the largest score, ${fmt(before[largest])}, becomes ${fmt(panel.step.values.flat()[largest])}.`,
      };
    },
    explain: ({ panel, row, col, value }) => {
      const s = panel.operands[0].values[row][col];
      const c = fmt(panel.step.softcap);
      return { text: `${c}·tanh(s̃${at(row, col)} / ${c}) = ${c}·tanh(${fmt(s)} / ${c}) = ${fmt(value)}`, highlight: [{ cell: [row, col] }] };
    },
  },
  'bends each entry towards ±c, keeping its sign and its order in the row',
  { noun: 'capped score', reason: 'tanh only grows, so the capped row keeps the order of the scores.' },
);

// ---- Biases: ALiBi's distance bias and a given one (bias) ----

export const BIAS_STEP = scoreEdit(
  {
    id: 'bias',
    name: 'S̃ + B, bias',
    caption: 'S̃ plus the bias B',
    why: ({ panel, labels }) => {
      const bias = panel.operands[1].values[0];
      const j = bias.length - 1;
      if (panel.step.slope === undefined) {
        return {
          idea: 'A bias adds a number of its own to each score before the softmax: a float attention mask (0 where allowed, −∞ where blocked), or a relative bias a model learned (T5). A positive entry pulls weight towards its key, a negative one pushes it away.',
          live: `For ${q(labels.queries[0])}, ${q(labels.keys[j])} gets ${fmt(bias[j])} added to its score.`,
        };
      }
      return {
        idea: 'ALiBi adds no position vectors: it subtracts a penalty that grows in a straight line with the distance between query and key, so far keys get less weight. Each head has its own slope m: a steep head looks nearby, a gentle one far.',
        live: `This head’s slope is m = ${fmt(panel.step.slope)}: for ${q(labels.queries[0])}, ${q(labels.keys[j])} (${j} positions away) loses ${fmt(-bias[j])}.`,
      };
    },
    explain: ({ panel, row, col, value }) => {
      const [s, b] = panel.operands.map((o) => o.values[row][col]);
      // The core placed the query among the keys (its alignment, a past cache), so the distance is
      // read back from its bias, never recomputed here; with a given bias too, B is their sum.
      const slope = panel.step.slope;
      const alibiOnly = slope !== undefined && !panel.step.formula.includes('B_{ij}');
      const alibi = alibiOnly ? `, ALiBi’s −m × distance = −${fmt(slope)} × ${fmt(-b / slope)}` : '';
      return {
        text: `s̃${at(row, col)} + b${at(row, col)} = ${fmt(s)} + ${fmtTerm(b)} = ${fmt(value)}${alibi}`,
        highlight: [{ cell: [row, col] }, { cell: [row, col] }],
      };
    },
  },
  'adds to each entry the bias at the same place',
  { noun: 'biased score', reason: 'each score moves by its own bias, so the largest can change: nearby keys gain on far ones under ALiBi.' },
);

// ---- Dropout ----

export const DROPOUT_STEP = {
  id: 'dropout',
  name: 'A, dropout',
  weights: true,
  caption: 'A after dropout',
  why: ({ panel, labels }) => {
    const { keep, rate, keepScale, rowTotals } = panel.step;
    const cells = keep.flat();
    return {
      idea: 'While a model trains, dropout sets each weight to 0 with probability p and multiplies the survivors by 1/(1 − p), so on average a row still sums to 1 but any one row does not: the model cannot count on one key always being there. At inference there is no dropout.',
      live: `p = ${fmt(rate)}: ${cells.filter(Boolean).length} of ${cells.length} weights kept, each × ${fmt(keepScale)}; row ${q(labels.queries[0])} now sums to ${fmt(rowTotals[0])}.`,
    };
  },
  ...headCells('weights'),
  explain: ({ panel, row, col, value }) => {
    const { keep, rate, keepScale } = panel.step;
    const a = panel.operands[0].values[row][col];
    return {
      text: keep[row][col]
        ? `kept: a${at(row, col)} / (1 − ${fmt(rate)}) = ${fmt(a)} × ${fmt(keepScale)} = ${fmt(value)}`
        : `dropped (p = ${fmt(rate)}): a${at(row, col)} = ${fmt(a)} becomes ${fmt(value)}`,
      highlight: [{ cell: [row, col] }],
    };
  },
  predict: { elementwise: 'zeroes some weights and scales up the others', rowSum: true },
  // keep: the core's masks, one per head; dropout: p (the export defines both).
};
