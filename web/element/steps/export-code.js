// The NumPy and PyTorch exports of the step on view, generated from the trace alone: each of
// the step's heads passes its operands, written as float32 literals (the very numbers the
// screen shows), to one function holding the step's math (forward-export.js,
// family-export.js, backward-export.js). No rule of attention is restated here, so an export
// computes what the screen shows for every option the core has, and an export that cannot be
// written says why (exportProblem) instead of computing something else.
import { BACKWARD_MATH } from './backward-export.js';
import { FAMILY_MATH } from './family-export.js';
import { FORWARD_MATH } from './forward-export.js';
import { sdpaCheck } from './sdpa-check.js';

/**
 * @typedef {object} ExportField  one of the step's own tables or numbers that its math reads
 * @property {string} name                               its name in the code
 * @property {'matrix' | 'int' | 'bool' | 'scalar'} kind  float32 matrix, integer table or
 *   number, boolean table or flag, float32 number
 * @property {*} value                                   as the trace holds it
 * @property {string} note                               what it is, for a comment
 *
 * @typedef {object} ExportMath
 * @property {string[]} operands  the names the step's operands take, in the trace's order;
 *   ['*O'] takes all of them as one list O (concat's heads)
 * @property {(step: object, trace: object) => ExportField[]} [fields]
 * @property {string[]} numpy     the math in NumPy; the last line is the result
 * @property {string[]} torch     the same in PyTorch
 */

const MATH = { ...FORWARD_MATH, ...FAMILY_MATH, ...BACKWARD_MATH };

/** The math of one step of the trace (an entry may depend on the step's operands). */
function mathOf(trace, step) {
  const entry = MATH[step.id];
  return typeof entry === 'function' ? entry(step, trace) : entry;
}

const stepsOf = (trace, id) => trace.groups.find((group) => group.id === id)?.steps ?? [];
const takesList = (math) => math.operands[0]?.startsWith('*');

/**
 * Why the code of step `id` cannot be exported, or null when it can: the element disables the
 * NumPy and PyTorch buttons and shows this instead.
 */
export function exportProblem(trace, id) {
  const steps = stepsOf(trace, id);
  if (!steps.length) return `the trace has no step “${id}”`;
  if (!MATH[id]) return `the code export does not know the step “${id}” yet`;
  for (const step of steps) {
    const math = mathOf(trace, step);
    const names = step.operands.map((o) => o.name).join(', ') || 'none';
    if (takesList(math) ? !step.operands.length : step.operands.length !== math.operands.length) {
      return `the code export of “${id}” takes ${math.operands.length} operands; the trace gives ${names}`;
    }
    const missing = (math.fields?.(step, trace) ?? []).find((f) => f.value === undefined || f.value === null);
    if (missing) return `the trace’s step “${id}” lacks ${missing.name} (${missing.note}), which its code export needs`;
  }
  return null;
}

/**
 * The shortest decimal that reads back as the same float32 (the trace's numbers are float32
 * values), so a literal is the screen's number, not a longer double's digits.
 */
function float32Literal(v) {
  if (v === -Infinity) return '-inf';
  if (v === Infinity) return 'inf';
  if (Object.is(v, -0)) return '-0.0';
  for (let digits = 1; digits <= 9; digits++) {
    const short = Number(v.toPrecision(digits));
    if (Math.fround(short) === Math.fround(v)) return String(short);
  }
  return String(v);
}

// What differs between the two languages: the prelude, the literals' helpers, the scalars.
const LANGUAGES = {
  numpy: {
    name: 'NumPy',
    imports: ['import math', '', 'import numpy as np'],
    printing: 'np.set_printoptions(precision=6, suppress=True, linewidth=120)',
    helpers: [
      'def f32(rows):',
      '    return np.array(rows, dtype=np.float32)',
      '',
      '',
      'def i32(rows):',
      '    return np.array(rows, dtype=np.int32)',
      '',
      '',
      'def flags(rows):',
      '    return np.array(rows, dtype=bool)',
    ],
    scalar: (v) => `np.float32(${float32Literal(v)})`,
  },
  torch: {
    name: 'PyTorch',
    imports: ['import math', '', 'import torch'],
    printing: 'torch.set_printoptions(precision=6, sci_mode=False, linewidth=120)',
    helpers: [
      'def f32(rows):',
      '    return torch.tensor(rows, dtype=torch.float32)',
      '',
      '',
      'def i32(rows):',
      '    return torch.tensor(rows, dtype=torch.int32)',
      '',
      '',
      'def flags(rows):',
      '    return torch.tensor(rows, dtype=torch.bool)',
    ],
    scalar: (v) => float32Literal(v),
  },
};

const cell = { matrix: float32Literal, int: String, bool: (b) => (b ? 'True' : 'False') };
const helper = { matrix: 'f32', int: 'i32', bool: 'flags' };

// A table as `helper([ rows ])`, one row a line, indented under `indent`.
function table(kind, rows, indent) {
  const lines = rows.map((row) => `${indent}    [${row.map(cell[kind]).join(', ')}],`);
  return `${helper[kind]}([\n${lines.join('\n')}\n${indent}])`;
}

// Where an operand comes from, for its comment: another step's result (that head's) or one
// of the inputs (that head's columns of it).
function source(operand, ids) {
  const head = operand.head === undefined ? '' : operand.head + 1;
  const from = ids.includes(operand.name)
    ? `the result of step “${operand.name}”${head && `, head ${head}`}`
    : `${head && `head ${head}'s columns of `}the input ${operand.name}`;
  const rows = operand.pastRows === 1 ? 'first row is' : `first ${operand.pastRows} rows are`;
  const past = operand.pastRows ? ` (its ${rows} the past cache's)` : '';
  return `${operand.symbol}: ${from}${past}`;
}

// The keyword arguments one step (one head) passes to the step's function.
function argumentsOf(trace, step, math, language) {
  const indent = '        ';
  const ids = trace.groups.map((g) => g.id);
  const operands = takesList(math)
    ? [
        `${indent}# ${step.operands.map((o) => source(o, ids)).join('; ')}`,
        `${indent}${math.operands[0].slice(1)}=[${step.operands.map((o) => table('matrix', o.values, indent)).join(', ')}],`,
      ]
    : step.operands.flatMap((o, i) => [`${indent}# ${source(o, ids)}`, `${indent}${math.operands[i]}=${table('matrix', o.values, indent)},`]);
  const fields = (math.fields?.(step, trace) ?? []).flatMap(({ name, kind, value, note }) => {
    if (kind === 'scalar') return [`${indent}${name}=${language.scalar(value)},  # ${note}`];
    if (typeof value === 'number') return [`${indent}${name}=${value},  # ${note}`];
    if (typeof value === 'boolean') return [`${indent}${name}=${value ? 'True' : 'False'},  # ${note}`];
    return [`${indent}# ${note}`, `${indent}${name}=${table(kind, value, indent)},`];
  });
  return [...operands, ...fields];
}

function code(trace, id, kind) {
  const problem = exportProblem(trace, id);
  if (problem) throw new Error(`no ${LANGUAGES[kind].name} export: ${problem}`);
  const language = LANGUAGES[kind];
  const steps = stepsOf(trace, id);
  const first = mathOf(trace, steps[0]);
  const parameters = [...(takesList(first) ? [first.operands[0].slice(1)] : first.operands), ...(first.fields?.(steps[0], trace) ?? []).map((f) => f.name)];
  const fn = id.replaceAll('-', '_');
  const lines = first[kind];
  const perHead = steps[0].head !== undefined;
  return [
    `# attnlab: the step “${id}” (${steps[0].title}), recomputed with ${language.name}.`,
    "# Generated from attnlab's trace: each head's operands are the numbers on screen (float32),",
    "# the step's math is the function below. The core's formula (TeX):",
    `#   ${steps[0].formula.replaceAll('\n', ' ')}`,
    ...language.imports,
    '',
    'inf = math.inf',
    language.printing,
    '',
    '',
    ...language.helpers,
    '',
    '',
    `def ${fn}(${parameters.join(', ')}):`,
    ...lines.slice(0, -1).map((line) => `    ${line}`),
    `    return ${lines.at(-1)}`,
    '',
    '',
    'results = [',
    ...steps.flatMap((step) => {
      const math = mathOf(trace, step);
      return [`    ${fn}(${perHead ? `  # head ${step.head + 1}` : ''}`, ...argumentsOf(trace, step, math, language), '    ),'];
    }),
    ']',
    ...(perHead ? ['for head, result in enumerate(results, 1):', '    print(f"head {head}:")', '    print(result)'] : ['print(results[0])']),
    ...(kind === 'torch' && id === 'aggregate' ? sdpaCheck(trace, steps, { table, scalar: language.scalar }) : []),
    '',
  ].join('\n');
}

/** NumPy code that recomputes step `id` of `trace` from its operands and prints it. */
export const numpyCode = (trace, id) => code(trace, id, 'numpy');

/** The same in PyTorch (float32 tensors throughout). */
export const pytorchCode = (trace, id) => code(trace, id, 'torch');
