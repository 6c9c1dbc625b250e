// Conversions between the package's values and the core's: matrices in as { rows, cols, data },
// results out as plain values (fromCore).
// Everything that is not a well-formed matrix is rejected here with an AttnLabError,
// before it reaches the wasm module. What goes in is always a fresh copy, read once: a
// getter, a Proxy or a typed array whose `length` lies cannot make the core's copy fail
// halfway (which would leak what it had copied) or differ from what was checked.
import { AttnLabError } from './errors.js';
import { fail, ownFields } from './fields.js';
import { nestedMatrix, plainList } from './nested.js';

/** How a value that is not what was asked for reads in a message: 'null', 'an array' or its typeof. */
export const describe = (value) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

function isNonNegativeInteger(value) {
  return Number.isInteger(value) && value >= 0;
}

// What a typed array is and holds, through the built-in getters: an own `length` (or a
// subclass's) may say anything, these cannot. The tag is undefined for anything else,
// a Proxy of a typed array included.
const TYPED_ARRAY = Object.getPrototypeOf(Int8Array.prototype);
const builtInGetter = (key) => Object.getOwnPropertyDescriptor(TYPED_ARRAY, key).get;
const typedArrayTag = builtInGetter(Symbol.toStringTag);
const typedArrayLength = builtInGetter('length');
const isTypedArray = (value) => typedArrayTag.call(value) !== undefined;

// The number of values a typed array holds, refusing one whose `length` says otherwise.
function typedLength(where, list) {
  const length = typedArrayLength.call(list);
  let claimed;
  try {
    claimed = list.length;
  } catch (error) {
    fail(`${where}.length could not be read (${error.message})`);
  }
  if (claimed !== length) fail(`${where}.length says ${String(claimed)} but the typed array holds ${length} values`);
  return length;
}

/**
 * The entries of an array or a typed array as a plain array, each read once by index through
 * readCell(value, where, i) (which names a bad entry `${where}[${i}]`, built only then: a
 * string per cell would double the cost). Anything else fails as not being `expected`; a
 * hole (a sparse array), a lying `length` or a read that throws fails naming the entry.
 */
export function readList(where, list, readCell, expected) {
  if (isTypedArray(list)) {
    const length = typedLength(where, list);
    return Array.from({ length }, (_, i) => readCell(list[i], where, i));
  }
  if (!Array.isArray(list)) fail(`${where} must be ${expected}, got ${describe(list)}`);
  const length = list.length; // an array's own length is exact; a Proxy's trap may throw (caught by the entry)
  const out = new Array(length);
  for (let i = 0; i < length; i++) {
    let value;
    let hole;
    try {
      value = list[i];
      hole = value === undefined && !Object.hasOwn(list, i); // only then: it costs 5x the read
    } catch (error) {
      fail(`${where}[${i}] could not be read (${error.message})`);
    }
    if (hole) fail(`${where}[${i}] is a hole (a sparse array): every entry needs a value`);
    out[i] = readCell(value, where, i);
  }
  return out;
}

// number[][] → { rows, cols, data }, checking every row and cell.
function fromNested(name, nested, ArrayType, readCell) {
  const rows = readList(name, nested, (row) => row, 'an array of rows');
  let cols = 0;
  let data = new ArrayType(0);
  rows.forEach((row, r) => {
    if (!Array.isArray(row)) fail(`${name} row ${r + 1} is ${describe(row)}, not an array`);
    const cells = readList(`${name}[${r}]`, row, readCell, 'an array');
    if (r === 0) [cols, data] = [cells.length, new ArrayType(rows.length * cells.length)];
    if (cells.length !== cols) {
      throw new AttnLabError('shape-mismatch', `${name} is ragged: row ${r + 1} has ${cells.length} entries but row 1 has ${cols}`);
    }
    data.set(cells, r * cols);
  });
  return { rows: rows.length, cols, data };
}

function fromFlat(name, matrix, ArrayType, readCell) {
  const { rows, cols, data } = ownFields(matrix, ['rows', 'cols', 'data'], { owner: name, prefix: `${name}.` });
  if (data === undefined) fail(`${name} must be a number[][] or { rows, cols, data }, got an object without data`);
  if (!isNonNegativeInteger(rows) || !isNonNegativeInteger(cols)) fail(`${name}.rows and ${name}.cols must be whole numbers`);
  const where = `${name}.data`;
  let values;
  if (typedArrayTag.call(data) === ArrayType.name) {
    typedLength(where, data); // refuses a lying length, like readList
    values = new ArrayType(data); // copied whole: the copy reads no property of data
  } else {
    values = ArrayType.from(readList(where, data, readCell, 'a typed array or an array of numbers'));
  }
  if (values.length !== rows * cols) {
    throw new AttnLabError('shape-mismatch', `${where} has ${values.length} values but ${name} is ${rows}×${cols} (${rows * cols} values)`);
  }
  return { rows, cols, data: values };
}

function convert(name, value, ArrayType, readCell) {
  if (Array.isArray(value)) return fromNested(name, value, ArrayType, readCell);
  if (value !== null && typeof value === 'object' && !isTypedArray(value)) return fromFlat(name, value, ArrayType, readCell);
  fail(`${name} must be a number[][] or { rows, cols, data }, got ${describe(value)}`);
}

function readNumber(cell, where, i) {
  if (typeof cell !== 'number') fail(`${where}[${i}] is ${describe(cell)}, not a number`);
  return cell; // NaN and ±Infinity pass: the core names them as 'non-finite'
}

function readFlag(cell, where, i) {
  if (typeof cell !== 'boolean' && cell !== 0 && cell !== 1) fail(`${where}[${i}] is ${describe(cell)}, not true or false`);
  return cell ? 1 : 0;
}

/** A float32 matrix for the core. */
export function toCoreMatrix(name, value) {
  return convert(name, value, Float32Array, readNumber);
}

/** A boolean matrix (1 = true) for the core. */
export function toCoreMask(name, value) {
  return convert(name, value, Uint8Array, readFlag);
}

/** A boolean[] for the core, as 0/1 numbers. */
export function toCoreFlags(name, value) {
  return readList(name, value, readFlag, 'an array of booleans');
}

// A matrix as the core sends it: exactly { rows, cols, data: typed array }.
function isCoreMatrix(value) {
  const keys = Object.keys(value);
  return keys.length === 3 && Number.isInteger(value.rows) && Number.isInteger(value.cols) && ArrayBuffer.isView(value.data);
}

// Whether a list holds an object (a matrix, a row, a struct) to convert.
function holdsObjects(list) {
  for (let i = 0; i < list.length; i++) if (list[i] !== null && typeof list[i] === 'object') return true;
  return false;
}

function plain(value) {
  if (value === null || typeof value !== 'object') return value;
  if (ArrayBuffer.isView(value)) return plainList(value);
  // A list of numbers, strings or booleans is the core's own, made for this call: kept as it
  // is (a 512 × 512 mask's rows were 262,144 calls here).
  if (Array.isArray(value)) return holdsObjects(value) ? value.map(plain) : value;
  if (isCoreMatrix(value)) return nestedMatrix(value);
  const out = {};
  for (const [key, entry] of Object.entries(value)) if (entry !== undefined) out[key] = plain(entry);
  return out;
}

/**
 * A value from the core as plain JavaScript, by kind: matrices { rows, cols, data } →
 * number[][], typed arrays → number[], arrays and objects converted entry by entry, fields
 * the core left undefined dropped; numbers, strings and booleans unchanged. When the JS
 * engine cannot allocate the copy, AttnLabError 'out-of-memory' (the core's memory is
 * already given back), not its raw RangeError.
 */
export function fromCore(value) {
  try {
    return plain(value);
  } catch (error) {
    throw error instanceof RangeError ? new AttnLabError('out-of-memory', `out of memory: ${error.message}`) : error;
  }
}

/** A mask from the core, { rows, cols, data } of 0/1, as boolean[][] (what attention({ mask }) takes back). */
export function booleanRows({ rows, cols, data }) {
  try {
    return Array.from({ length: rows }, (_, r) => Array.from(data.subarray(r * cols, (r + 1) * cols), Boolean));
  } catch (error) {
    throw error instanceof RangeError ? new AttnLabError('out-of-memory', `out of memory: ${error.message}`) : error;
  }
}

/** A list of numbers (an array or a typed array) as the float32 row the core takes. */
export function toCoreRow(name, row) {
  return Float32Array.from(readList(name, row, readNumber, 'an array of numbers'));
}
