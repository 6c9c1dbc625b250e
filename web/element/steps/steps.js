// Every step of the trace, described once, in trace order; registry.js looks them up. An
// entry says what the result's axes are, whether it is a heatmap, how to explain one of its
// cells, what to ask before revealing it, and which NumPy expression recomputes it.
import { MASK_RULES } from 'attnlab';

import { fmt, fmtTerm, sub } from '../shared/format.js';
import { at, headCells, productCell, productOf } from './explain.js';
import { FAMILY_STEPS } from './family-steps.js';
import { BIAS_STEP, DROPOUT_STEP, ROTATE_STEPS, SOFTCAP_STEP } from './variant-steps.js';
import * as why from './why.js';

/**
 * @typedef {'queries' | 'keys' | 'features'} Axis  what a matrix's rows or columns stand for
 *
 * @typedef {object} StepEntry
 * @property {string} id             the core's step id
 * @property {string} name           the step in a learner's words, for the step buttons
 * @property {string} caption        what the result is, beside its shape: "A, the weights"
 * @property {(first: object) => { idea, live, before? }} why   what the step does and why, with the
 *   live numbers of its first panel { panel, labels } (why.js)
 * @property {Axis} rows             what the result's rows are
 * @property {Axis} cols             what the result's columns are
 * @property {'scores' | 'weights' | 'gradients'} [heat]  drawn as a heatmap, on the scale of
 *   that kind (colors.js: scores and gradients symmetric around 0 and shared by the heads,
 *   weights fixed 0 to 1)
 * @property {number} [transposed]  the operand (by index) drawn transposed, as the formula
 *   writes it: the scores' K as Kᵀ
 * @property {(cell: object) => { text: string, highlight: object[] }} explain
 *   the hover/focus explanation of result cell { panel, row, col, value, labels };
 *   highlight[i] marks the rows, cols or cell of operand i that the value came from
 * @property {object} [predict]      predict-then-reveal questions beyond the result's shape:
 *   { elementwise?: how the step keeps its input's shape, largest?: { noun, reason } (which
 *   key wins a row), rowSum?: true (what a row adds up to) }
 * @property {boolean} [perHead]     the step repeats for each head
 * @property {boolean} [weights]     the result is attention weights: shown with each row's total
 *   and the cells a rule blocked hatched (the mask step's blockedBy)
 * @property {boolean} [maskedRows]  where a row with every key masked shows, say what it is
 * @property {'softmax-parts' | 'jacobian'} [detail]  the extra panel under the result: softmax's
 *   parts of a row (max, exponentials, sum), or the row's softmax Jacobian
 */

const STEP_FIELDS = new Set([
  'id',
  'name',
  'caption',
  'why',
  'rows',
  'cols',
  'heat',
  'transposed',
  'explain',
  'predict',
  'perHead',
  'weights',
  'maskedRows',
  'detail',
]);

// Checks an entry's fields, so a typo fails at load rather than as a blank panel. Entries are
// kept in the order they are defined: the forward steps here, then backward-steps.js.
export function defineStep(entry) {
  const unknown = Object.keys(entry).filter((key) => !STEP_FIELDS.has(key));
  if (unknown.length || ['id', 'name', 'caption', 'why', 'rows', 'cols', 'explain'].some((key) => !entry[key])) {
    throw new Error(`step entry ${entry.id}: missing fields or unknown ones (${unknown.join(', ')})`);
  }
  STEPS.push(Object.freeze(entry));
}

/** @type {StepEntry[]} */
export const STEPS = [];

const same = (row, col) => [{ cell: [row, col] }];

defineStep({
  id: 'encoding',
  name: 'PE',
  caption: 'PE, the positions',
  why: why.encodingWhy,
  rows: 'queries',
  cols: 'features',
  explain: ({ row, col, value }) => ({
    text: `PE${at(row, col)} = ${col % 2 === 0 ? 'sin' : 'cos'}(${row} / 10000^(${col - (col % 2)}/d)) = ${fmt(value)}: position ${row + 1}, dimension ${col + 1}`,
    highlight: [],
  }),
  predict: { elementwise: 'gives each position its own row of sines and cosines, one per feature of X' },
});

defineStep({
  id: 'positional',
  name: 'X + PE',
  caption: 'X + PE',
  why: why.positionalWhy,
  rows: 'queries',
  cols: 'features',
  explain: ({ panel, row, col, value }) => {
    const [x, pe] = panel.operands.map((o) => o.values[row][col]);
    return { text: `x${at(row, col)} + PE${at(row, col)} = ${fmt(x)} + ${fmtTerm(pe)} = ${fmt(value)}`, highlight: [same(row, col)[0], same(row, col)[0]] };
  },
  predict: { elementwise: 'adds a position vector to each row, entry by entry' },
});

for (const [id, symbol, noun, nouns, role] of [
  ['project-q', 'Q', 'query', 'queries', 'what it is looking for'],
  ['project-k', 'K', 'key', 'keys', 'what it offers to be matched against'],
  ['project-v', 'V', 'value', 'values', 'what it hands on when it is attended to'],
]) {
  defineStep({
    id,
    name: `${symbol}, ${nouns}`,
    caption: `${symbol}, the ${nouns}`,
    why: why.projectionWhy(symbol, noun, role),
    rows: id === 'project-q' ? 'queries' : 'keys',
    cols: 'features',
    explain: productOf(symbol),
  });
}

ROTATE_STEPS.forEach(defineStep);
FAMILY_STEPS.forEach(defineStep); // trace({ family: 'linear' | 'retention' }) only

defineStep({
  id: 'scores',
  name: 'S, scores',
  caption: 'S, the scores',
  why: why.scoresWhy,
  ...headCells('scores'),
  transposed: 1, // K is drawn as Kᵀ, as the formula writes it
  explain: (cell) => productCell(cell, `q${sub(cell.row)}·k${sub(cell.col)}`),
  predict: {
    largest: {
      noun: 'score',
      reason:
        'a score is the dot product of the query with a key: largest for the key that points most nearly the way the query does, lengths taken into account.',
    },
  },
});

// How the scale step multiplies, as the core reports it: "/ √2", "/ (√2 · 0.5)", "× 0.25 / 2".
function scaleFactor({ scale, temperature, dk, defaultScale }) {
  const byTemperature = temperature !== 1 ? ` / ${fmt(temperature)}` : '';
  if (defaultScale) return temperature !== 1 ? `/ (√${dk} · ${fmt(temperature)})` : `/ √${dk}`;
  if (scale === 1) return byTemperature || '× 1 (no scaling)';
  return `× ${fmtTerm(scale)}${byTemperature}`;
}

defineStep({
  id: 'scale',
  name: 'S̃, scaled',
  caption: 'S̃, the scaled scores',
  why: why.scaleWhy,
  ...headCells('scores'),
  explain: ({ panel, row, col, value }) => {
    const factor = scaleFactor(panel.step);
    const input = panel.operands[0].values[row][col];
    return { text: `s̃${at(row, col)} = s${at(row, col)} ${factor} = ${fmt(input)} ${factor} = ${fmt(value)}`, highlight: same(row, col) };
  },
  predict: {
    elementwise: 'multiplies every entry by the same factor',
    largest: { noun: 'scaled score', reason: 'scaling multiplies the whole row by one positive factor, so the order of the scores stays the same.' },
  },
});

defineStep(SOFTCAP_STEP);
defineStep(BIAS_STEP);

// Why the core blocked a cell: its blockedBy flags, a bit per rule (the core's MASK_RULES).
function maskReason(flags, col, keys) {
  if (flags & MASK_RULES.causal) return `key ${keys[col]} comes after this query (causal mask)`;
  if (flags & MASK_RULES.keyPadding) return `key ${keys[col]} is padding`;
  if (flags & MASK_RULES.mask) return 'the mask forbids this pair';
  if (flags & MASK_RULES.window) return `key ${keys[col]} is outside this query’s window`;
  if (flags & MASK_RULES.bias) return `the bias is −∞ for key ${keys[col]}`;
  return null;
}

defineStep({
  id: 'mask',
  name: 'Mask',
  maskedRows: true,
  caption: 'S̃, masked',
  why: why.maskWhy,
  ...headCells('scores'),
  explain: ({ panel, row, col, value, labels }) => {
    const reason = maskReason(panel.step.blockedBy[row][col], col, labels.keys);
    return {
      text: reason ? `${reason}: s̃${at(row, col)} becomes −∞, so its weight will be 0` : `kept: s̃${at(row, col)} = ${fmt(value)}`,
      highlight: same(row, col),
    };
  },
  predict: { elementwise: 'replaces some entries by −∞' },
});

defineStep({
  id: 'softmax',
  name: 'A, softmax',
  weights: true,
  maskedRows: true,
  detail: 'softmax-parts',
  caption: 'A, the weights',
  why: why.softmaxWhy,
  ...headCells('weights'),
  explain: ({ panel, row, col, value, labels }) => {
    const { rowMax, rowSum, exponentials } = panel.step;
    if (rowSum[row] === 0) {
      return { text: `every key is masked for query ${labels.queries[row]}: its weights are all 0 (defined, not NaN)`, highlight: [{ rows: [row] }] };
    }
    const input = panel.operands[0].values[row][col];
    return {
      text: `a${at(row, col)} = exp(s̃${at(row, col)} − m${sub(row)}) / Σ = exp(${fmt(input)} − ${fmtTerm(rowMax[row])}) / ${fmt(rowSum[row])} = ${fmt(exponentials[row][col])} / ${fmt(rowSum[row])} = ${fmt(value)}`,
      highlight: [{ rows: [row], cell: [row, col] }],
    };
  },
  predict: {
    elementwise: 'works row by row',
    largest: { noun: 'weight', reason: 'softmax keeps the order of a row: the largest (scaled, masked) score gets the largest weight.' },
    rowSum: true,
  },
});

defineStep(DROPOUT_STEP);

defineStep({
  id: 'aggregate',
  name: 'O, outputs',
  maskedRows: true,
  caption: 'O, the output',
  why: why.aggregateWhy,
  rows: 'queries',
  cols: 'features',
  perHead: true,
  explain: productOf('O'),
});

defineStep({
  id: 'concat',
  name: 'C, concat',
  caption: 'C, the heads side by side',
  why: why.concatWhy,
  rows: 'queries',
  cols: 'features',
  explain: ({ panel, row, col, value }) => {
    const width = panel.operands[0].values[0].length;
    const head = Math.floor(col / width);
    return {
      text: `column ${col + 1} of C is column ${(col % width) + 1} of head ${head + 1}'s output: ${fmt(value)}`,
      highlight: panel.operands.map((_, h) => (h === head ? { cell: [row, col % width] } : {})),
    };
  },
  predict: { sideBySide: true },
});

defineStep({
  id: 'output-projection',
  name: 'Y, output',
  caption: 'Y, the output',
  why: why.outputProjectionWhy,
  rows: 'queries',
  cols: 'features',
  explain: productOf('Y'),
});
