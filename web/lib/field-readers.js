// The readers of the request fields, one per kind of field in the core's schema (lab.schema()):
// (value, name) → the value for the core, or an AttnLabError naming the field. What they check
// is what must survive the trip to C++ unchanged (a type, a whole number within the core's type,
// a float32 that stays nonzero and finite); ranges and sizes are the core's to judge.
import { fail, ownFields } from './fields.js';
import { describe, readList, toCoreFlags, toCoreMask, toCoreMatrix, toCoreRow } from './matrices.js';

// The largest size_t the core takes unchanged (a list's entries).
const SIZE_MAX = 0xffffffff;

// A whole number that survives the trip to the core's type (0 … max) unchanged. `range` is
// the field's documented [lo, hi] in the core's limits: the core checks it, and a value that
// could not even make the trip is refused here in the core's words. Without a range (an
// index, a seed), the bounds are the core's to check against the request.
function wholeNumber(name, value, { max = SIZE_MAX, range } = {}) {
  if (Number.isInteger(value) && value >= 0 && value <= max) return value;
  const got = typeof value === 'number' ? String(value) : describe(value);
  const [lo, hi] = range ?? [];
  if (hi !== undefined) fail(`${name} must be a whole number from ${lo} to ${hi}, got ${got}`);
  if (Number.isInteger(value) && value > max) fail(`${name} must be at most ${max}, got ${got}`);
  fail(`${name} must be a whole number of at least 0, got ${got}`);
}

// ---- Readers: (value, name) → the value for the core; called for fields that are present ----

// null is "no matrix" (Wo: null, mask: null), as if the field were absent.
const matrix = (value, name) => (value === null ? undefined : toCoreMatrix(name, value));
const mask = (value, name) => (value === null ? undefined : toCoreMask(name, value));
const flags = (value, name) => (value === null ? undefined : toCoreFlags(name, value));
const row = (value, name) => toCoreRow(name, value);
const wholes = (range, max) => (value, name) =>
  readList(name, value, (cell, where, i) => wholeNumber(`${where}[${i}]`, cell, { range, max }), 'an array of whole numbers');
export const indices = wholes();

export function boolean(value, name) {
  if (typeof value !== 'boolean') fail(`${name} must be true or false, got ${describe(value)}`);
  return value;
}

// The core computes in float32: a number it would see as 0 or as Infinity is refused here, in
// the words of the number as written (the core could only quote its rounding).
const ROUNDS = ", which float32 (the core's number type) rounds to";
function number(value, name) {
  if (typeof value !== 'number') fail(`${name} must be a number, got ${describe(value)}`);
  const single = Math.fround(value);
  if (Number.isFinite(value) && single !== value && (single === 0 || !Number.isFinite(single))) fail(`${name} is ${value}${ROUNDS} ${single}`);
  return value; // range checks (finite, > 0) are the core's
}

// A probability below 1 that float32 rounds up to 1: the core's range, quoting the number as
// written.
function probability(value, name) {
  if (number(value, name) < 1 && Math.fround(value) >= 1) fail(`${name} must be a probability from 0 up to (not including) 1, got ${value}${ROUNDS} 1`);
  return value;
}

// One of the core's names for an enum (causalAlignment, positional, a trainer's task).
const choice = (choices) => (value, name) => {
  if (!choices.includes(value)) {
    const quoted = choices.map((c) => `'${c}'`);
    const which = quoted.length === 2 ? quoted.join(' or ') : `one of ${quoted.join(', ')}`;
    fail(`${name} must be ${which}, got ${typeof value === 'string' ? JSON.stringify(value) : describe(value)}`);
  }
  return value;
};

// Where query 0 sits among the keys: a named alignment, or the key position itself (ONNX's
// n_past; negative before the first key); the core checks it against the queries and keys.
const alignment = (choices) => (value, name) => {
  if (Number.isSafeInteger(value)) return value;
  if (choices.includes(value)) return value;
  const quoted = choices.map((c) => `'${c}'`).join(' or ');
  return fail(`${name} must be ${quoted} or a key position (an integer), got ${typeof value === 'string' ? JSON.stringify(value) : describe(value)}`);
};

// A sliding window: a whole number w (|i − j| < w; 0 = off), or { left?, right? } (keys
// i − left … i + right; a side left out does not limit).
function window(value, name) {
  if (typeof value === 'number') return wholeNumber(name, value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    fail(`${name} must be a whole number or { left, right }, got ${describe(value)}`);
  }
  const sides = ownFields(value, ['left', 'right'], { owner: name, prefix: `${name}.` });
  const out = {};
  for (const side of ['left', 'right']) if (sides[side] !== undefined) out[side] = wholeNumber(`${name}.${side}`, sides[side]);
  return out;
}

function text(value, name) {
  if (typeof value !== 'string') fail(`${name} must be a string, got ${describe(value)}`);
  return value; // which names are parameters is the core's to say
}

// Token labels (a trace's, passed through to the result; an imported attention's).
export function labels(value, name) {
  const cell = (label, where, i) => (typeof label === 'string' ? label : fail(`${where}[${i}] is ${describe(label)}, not a string`));
  return readList(name, value, cell, 'an array of strings (the tokens, in order)');
}

// A field's reader by its kind, its range resolved in the core's `limits` (lab.limits()); `own`:
// the readers of kinds only a module loaded on demand takes (its chunk brings them).
export function readerOf({ kind, min, max, bound, choices }, own, limits) {
  const range = max === undefined ? undefined : [limits[min] ?? Number(min), limits[max] ?? Number(max)];
  const readers = {
    boolean,
    number,
    probability,
    matrix,
    mask,
    flags,
    row,
    window,
    text,
    labels,
    ...own,
    whole: (value, name) => wholeNumber(name, value, { range, max: bound }),
    indices: wholes(range, bound),
    choice: choice(choices),
    alignment: alignment(choices),
  };
  return readers[kind];
}
