// What the package repeats of the core, generated from it at build time: the request
// interfaces of web/lib/attnlab.d.ts from the core's declaration of every request field
// (cpp/bindings/requests.hpp, exported by schema()), one interface per group of fields with
// each field's doc, range and default, and the step ids (StepId there, STEP_IDS in
// web/lib/core-lists.js) from stepIds(), with the mask's rule bits (MASK_RULES) and trace()'s
// request fields (TRACE_GROUPS, for the element's state) from schema() and the limits (LIMITS)
// from limits(). The learning module's schema() carries the docs (the
// core's download leaves them out). The result interfaces come from results(), the fields of
// every result the core registers (its Embind value objects, cpp/bindings/bindings.cpp), with
// their docs, exported by the typings module (attnlab-typings: the core built with the docs,
// not shipped), reshaped as the package hands them over where it does (the trace: RESHAPED
// below). The rest of attnlab.d.ts (the results the package assembles itself, method docs, how
// entries combine the groups) is kept by hand.
//
//   node scripts/typings.mjs [wasm dir]          rewrites what is stale
//   node scripts/typings.mjs [wasm dir] --check  exits 1 when something is stale
import { readFile, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

export const TYPINGS = new URL('../web/lib/attnlab.d.ts', import.meta.url);
export const LISTS_FILE = new URL('../web/lib/core-lists.js', import.meta.url);
export const BEGIN = '// ---- Request interfaces: generated from lab.schema() by scripts/typings.mjs; do not edit ----';
export const END = '// ---- End of the generated request interfaces ----';

// Choices that have a named type of their own in attnlab.d.ts.
const NAMED_CHOICES = { 'top-left|bottom-right': 'CausalAlignment', 'previous-token|copy-first|reverse|induction|induction-anywhere': 'TrainingTask' };

const TYPES = {
  boolean: 'boolean',
  number: 'number',
  probability: 'number',
  whole: 'number',
  matrix: 'MatrixInput',
  mask: 'MaskInput',
  flags: 'boolean[]',
  indices: 'number[]',
  row: 'ArrayLike<number>',
  window: 'Window',
  text: 'string',
  labels: 'string[]',
  layers: 'number[][][][][]',
  heads: 'number[][][]',
};

// A field with choices types as them, whatever its kind (a text field may list the names it takes).
const typeOf = ({ kind, choices }) => (choices ? (NAMED_CHOICES[choices.join('|')] ?? choices.map((c) => `'${c}'`).join(' | ')) : TYPES[kind]);
const bound = (end) => (/^\d+$/.test(end) ? end : `limits().${end}`);

function docOf(field) {
  if (field.aliasOf) return `@deprecated The older name of ${field.aliasOf}.`;
  const parts = [field.doc ?? ''];
  if (field.max !== undefined) parts.push(`${field.kind === 'indices' ? 'Each ' : ''}${bound(field.min)} … ${bound(field.max)}.`);
  if (field.default !== undefined) parts.push(`Default ${JSON.stringify(field.default).replaceAll('"', "'")}.`);
  return parts.filter(Boolean).join(' ');
}

const member = (field, optional, type = typeOf(field)) => [`  /** ${docOf(field)} */`, `  ${field.name}${optional ? '?' : ''}: ${type};`];

// A group whose field has an older name types as one of the two names, never both (the core
// refuses both): its other fields, and for each such pair a union of the two ways to give it.
function aliasedGroup(name, fields) {
  const pairs = fields.filter((f) => f.aliasOf).map((alias) => [fields.find((f) => f.name === alias.aliasOf), alias]);
  const paired = new Set(pairs.flat());
  const plain = fields.filter((f) => !paired.has(f)).flatMap((f) => member(f, !f.required));
  const parts = plain.length ? [['{', ...plain, '}']] : [];
  for (const [field, alias] of pairs) {
    const way = (given, absent) => [
      '  | {',
      ...[...member(given, !field.required, typeOf(field)), `  ${absent.name}?: undefined;`].map((line) => `    ${line}`),
      '    }',
    ];
    parts.push(['(', ...way(field, alias), ...way(alias, field), ')']);
  }
  const lines = ['', `export type ${name} =`];
  parts.forEach(([open, ...rest], i) => {
    lines[lines.length - 1] += `${i ? ' & ' : ' '}${open}`;
    lines.push(...rest);
  });
  lines[lines.length - 1] += ';';
  return lines;
}

// A group whose every field is another group's field, as it is (the model's replaced heads take
// the family's own rows): the name of that larger group, so the type picks them from it rather
// than declaring them again.
function takenFrom(groups, name, fields) {
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  return Object.keys(groups).find(
    (other) =>
      other !== name &&
      groups[other].length > fields.length &&
      !groups[other].some((f) => f.aliasOf) &&
      fields.every((field) => groups[other].some((f) => same(f, field))),
  );
}

/** The generated part of attnlab.d.ts from a schema (lab.schema() with docs) and the step ids. */
export function generate(schema, stepIds) {
  const lines = [
    BEGIN,
    '',
    "/** A step id of the core's trace (STEP_IDS lists them in trace order). */",
    'export type StepId =',
    ...stepIds.map((id, i) => `  | '${id}'${i + 1 === stepIds.length ? ';' : ''}`),
  ];
  for (const [name, fields] of Object.entries(schema.groups)) {
    if (fields.some((f) => f.aliasOf)) {
      lines.push(...aliasedGroup(name, fields));
      continue;
    }
    const source = takenFrom(schema.groups, name, fields);
    if (source) {
      lines.push('', `export type ${name} = Pick<${source}, ${fields.map((f) => `'${f.name}'`).join(' | ')}>;`);
      continue;
    }
    lines.push('', `export interface ${name} {`);
    for (const field of fields) lines.push(...member(field, !field.required));
    lines.push('}');
  }
  lines.push('', `/** The mask's rules: the bits of the mask step's blockedBy. */`, 'export interface MaskRules {');
  for (const rule of Object.keys(schema.maskRules)) lines.push(`  ${rule}: ${schema.maskRules[rule]};`);
  lines.push('}', '', END);
  return lines.join('\n');
}

const entries = (table) =>
  Object.entries(table)
    .map(([name, value]) => `${name}: ${value}`)
    .join(', ');

// A field as the element's state reads it: its name, kind and what bounds its value.
const literal = (value) => (Array.isArray(value) ? `[${value.map(literal).join(', ')}]` : typeof value === 'string' ? `'${value}'` : String(value));
const fieldEntry = ({ name, kind, required, min, choices }) =>
  `{ ${Object.entries({ name, kind, required, min, choices })
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${literal(v)}`)
    .join(', ')} }`;

/** web/lib/core-lists.js: the core's lists and limits, for code that needs them before the wasm loads. */
export function listsModule(stepIds, { maskRules, groups, requests }, limits) {
  const traceGroups = requests.trace.map((group) => `  ${group}: [\n${groups[group].map((f) => `    ${fieldEntry(f)},`).join('\n')}\n  ],`);
  return `// Generated from the core (stepIds(), schema(), limits()) by scripts/typings.mjs: do not edit.
/** Step ids in trace order; per-head steps repeat for each head. */
export const STEP_IDS = Object.freeze([
${stepIds.map((id) => `  '${id}',`).join('\n')}
]);

/** The mask's rules: each one's bit in the mask step's blockedBy. */
export const MASK_RULES = Object.freeze({ ${entries(maskRules)} });

/** trace()'s request, group by group (lab.schema()): the fields the element's state mirrors. */
export const TRACE_GROUPS = /* @__PURE__ */ Object.freeze({
${traceGroups.join('\n')}
});

/** The core's documented limits (lab.limits()), for the element's views (not in the package's entry). */
export const LIMITS = /* @__PURE__ */ Object.freeze({
${Object.entries(limits)
  .map(([name, value]) => `  ${name}: ${value},`)
  .join('\n')}
});
`;
}

async function load(dir, name) {
  const base = pathToFileURL(`${dir.replace(/\/$/, '')}/`);
  const { default: create } = await import(new URL(`${name}.js`, base).href);
  return create({ wasmBinary: await readFile(new URL(`${name}.wasm`, base)) });
}

/** The learning module's schema, with the fields' docs, from a folder holding it. */
export const learningSchema = async (dir) => JSON.parse((await load(dir, 'attnlab-learn')).schema());

/** The results' fields with their docs, from the typings module (attnlab-typings, not shipped) in a folder. */
export const typingsResults = async (dir) => JSON.parse((await load(dir, 'attnlab-typings')).results());

/** The learning module's schema, the core's step ids and limits, and the results' fields, from the build's folder of wasm modules. */
export async function coreTables(dir) {
  const core = await load(dir, 'attnlab-core');
  return { schema: await learningSchema(dir), stepIds: core.stepIds(), limits: core.limits(), results: await typingsResults(dir) };
}

export const RESULTS_BEGIN = "// ---- Result interfaces: generated from the core's results() by scripts/typings.mjs; do not edit ----";
export const RESULTS_END = '// ---- End of the generated result interfaces ----';

// What the package's JavaScript does to a result before the user gets it: fromCore turns the
// core's matrices into number[][] and its typed arrays into number[], except in these fields,
// which it hands over as the core sent them (flat matrices, typed arrays).
const AS_SENT = { LongAttentionResult: ['output'], FlashPlan: ['keyBands', 'slopes', 'factors'] };
const TYPED = /^(Float32|Float64|Uint8|Uint32)Array$/;

// The trace, which the package reshapes (web/lib/attnlab.js): each step and operand gains its
// shape, an operand that is another step's result carries that step's values in place of its
// index, a group lists its steps rather than their indices, and a trace of text keeps its tokens.
const SHAPE = { name: 'shape', type: '[rows: number, cols: number]', doc: 'The rows and columns of values.' };
const RESHAPED = {
  TraceOperand: { drop: ['step'], required: ['values'], add: [SHAPE] },
  TraceStep: { add: [SHAPE] },
  TraceGroup: { types: { steps: 'TraceStep[]' } },
  Trace: { add: [{ name: 'tokens', type: 'string[]', optional: true, doc: 'The tokens, when the request gave text.' }] },
};

// A doc comment, on one line when it is short, else wrapped at about 100 columns.
function docComment(text) {
  if (text.length <= 100) return [`/** ${text} */`];
  const lines = [''];
  for (const word of text.split(' ')) {
    if (lines.at(-1).length + word.length > 96) lines.push('');
    lines[lines.length - 1] += `${lines.at(-1) ? ' ' : ''}${word}`;
  }
  return ['/**', ...lines.map((line) => ` * ${line}`), ' */'];
}

// A result's fields as the package hands them over.
function deliveredFields(result, rows) {
  const { drop = [], required = [], types = {}, add = [] } = RESHAPED[result] ?? {};
  const kept = rows.filter((row) => row.name !== undefined && !drop.includes(row.name));
  return [...kept.map((row) => ({ ...row, optional: row.optional && !required.includes(row.name), type: types[row.name] ?? row.type })), ...add];
}

function resultType(result, { name, type }) {
  if (AS_SENT[result]?.includes(name)) return type === 'Matrix' ? 'FlatMatrix' : type;
  return TYPED.test(type) ? 'number[]' : type;
}

/**
 * The generated result interfaces from the core's results() (the typings module's: with
 * docs): each result registered with a doc of its own is an interface of attnlab.d.ts, its
 * fields typed as the package hands them over.
 */
export function generateResults(results) {
  const lines = [RESULTS_BEGIN];
  for (const [result, rows] of Object.entries(results)) {
    const own = rows.find((row) => row.name === undefined);
    if (!own) continue; // an internal value (a matrix, an error, a trace step before the package reshapes it)
    lines.push('', ...docComment(own.doc), `export interface ${result} {`);
    for (const row of deliveredFields(result, rows)) {
      if (row.doc) lines.push(`  /** ${row.doc} */`);
      lines.push(`  ${row.name}${row.optional ? '?' : ''}: ${resultType(result, row)};`);
    }
    lines.push('}');
  }
  lines.push('', RESULTS_END);
  return lines.join('\n');
}

/** The top-level names a .d.ts declares more than once (TypeScript merges two interfaces silently). */
export function declaredTwice(text) {
  const names = [...text.matchAll(/^(?:export )?(?:declare )?(?:interface|type|class) (\w+)/gm)].map((match) => match[1]);
  return [...new Set(names.filter((name, i) => names.indexOf(name) !== i))];
}

// text with the part between begin and end replaced.
function between(text, begin, end, generated) {
  const [from, to] = [text.indexOf(begin), text.indexOf(end)];
  if (from < 0 || to < from) throw new Error(`attnlab.d.ts: the markers of a generated part are missing (${begin})`);
  return text.slice(0, from) + generated + text.slice(to + end.length);
}

/** attnlab.d.ts with its generated parts replaced; a name declared twice is an error. */
export function replaced(text, generated, generatedResults) {
  let next = between(text, BEGIN, END, generated);
  if (generatedResults !== undefined) next = between(next, RESULTS_BEGIN, RESULTS_END, generatedResults);
  const twice = declaredTwice(next);
  if (twice.length) throw new Error(`attnlab.d.ts declares ${twice.join(', ')} twice: rename the core's group or the hand-written type`);
  return next;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [dir = 'build/wasm/cpp/bindings', flag] = process.argv.slice(2);
  const { schema, stepIds, limits, results } = await coreTables(dir);
  const typings = await readFile(TYPINGS, 'utf8');
  const lists = await readFile(LISTS_FILE, 'utf8').catch(() => '');
  const files = [
    [TYPINGS, typings, replaced(typings, generate(schema, stepIds), generateResults(results))],
    [LISTS_FILE, lists, listsModule(stepIds, schema, limits)],
  ].filter(([, text, next]) => text !== next);
  for (const [file, , next] of files) {
    if (flag === '--check') console.error(`${file.pathname} is stale: run node scripts/typings.mjs`);
    else await writeFile(file, next);
  }
  if (flag === '--check' && files.length) process.exit(1);
  if (flag !== '--check' && files.length) console.log(`typings: ${files.map(([file]) => file.pathname.split('/').pop()).join(', ')} regenerated`);
}
