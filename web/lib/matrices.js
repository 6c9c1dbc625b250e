// Conversions between the package's values and the core's: matrices in as { rows, cols, data },
// results out as plain values (fromCore).
// Everything that is not a well-formed matrix is rejected here with an AttnLabError,
// before it reaches the wasm module.
import { AttnLabError } from './errors.js';

/** How a value that is not what was asked for reads in a message: 'null', 'an array' or its typeof. */
export const describe = (value) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

function isNonNegativeInteger(value) {
  return Number.isInteger(value) && value >= 0;
}

// number[][] → { rows, cols, data }, checking every row and cell.
function fromNested(name, nested, ArrayType, readCell) {
  const rows = nested.length;
  const cols = rows > 0 && Array.isArray(nested[0]) ? nested[0].length : 0;
  const data = new ArrayType(rows * cols);
  nested.forEach((row, r) => {
    if (!Array.isArray(row)) {
      throw new AttnLabError('invalid-argument', `${name} row ${r} is ${describe(row)}, not an array`);
    }
    if (row.length !== cols) {
      throw new AttnLabError(
        'shape-mismatch',
        `${name} is ragged: row ${r} has ${row.length} entries but row 0 has ${cols}`,
      );
    }
    row.forEach((cell, c) => {
      data[r * cols + c] = readCell(cell, `${name}[${r}][${c}]`);
    });
  });
  return { rows, cols, data };
}

function fromFlat(name, matrix, ArrayType, readCell) {
  const { rows, cols, data } = matrix;
  if (!isNonNegativeInteger(rows) || !isNonNegativeInteger(cols)) {
    throw new AttnLabError('invalid-argument', `${name}.rows and ${name}.cols must be whole numbers`);
  }
  if (!ArrayBuffer.isView(data) && !Array.isArray(data)) {
    throw new AttnLabError('invalid-argument', `${name}.data must be a typed array or an array of numbers`);
  }
  if (data.length !== rows * cols) {
    throw new AttnLabError(
      'shape-mismatch',
      `${name}.data has ${data.length} values but ${name} is ${rows}x${cols} (${rows * cols} values)`,
    );
  }
  if (data instanceof ArrayType) return { rows, cols, data };
  return { rows, cols, data: ArrayType.from(data, (cell, i) => readCell(cell, `${name}.data[${i}]`)) };
}

function convert(name, value, ArrayType, readCell) {
  if (Array.isArray(value)) return fromNested(name, value, ArrayType, readCell);
  if (value !== null && typeof value === 'object' && 'data' in value) {
    return fromFlat(name, value, ArrayType, readCell);
  }
  throw new AttnLabError(
    'invalid-argument',
    `${name} must be a number[][] or { rows, cols, data }, got ${describe(value)}`,
  );
}

function readNumber(cell, where) {
  if (typeof cell !== 'number') {
    throw new AttnLabError('invalid-argument', `${where} is ${describe(cell)}, not a number`);
  }
  return cell; // NaN and ±Infinity pass: the core names them as 'non-finite'
}

function readFlag(cell, where) {
  if (typeof cell !== 'boolean' && cell !== 0 && cell !== 1) {
    throw new AttnLabError('invalid-argument', `${where} is ${describe(cell)}, not true or false`);
  }
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
  if (!Array.isArray(value)) {
    throw new AttnLabError('invalid-argument', `${name} must be an array of booleans, got ${describe(value)}`);
  }
  return value.map((cell, i) => readFlag(cell, `${name}[${i}]`));
}

// The core's { rows, cols, data } → number[][] (copied, plain JS numbers).
function toNested({ rows, cols, data }) {
  return Array.from({ length: rows }, (_, r) => Array.from(data.subarray(r * cols, (r + 1) * cols)));
}

// A matrix as the core sends it: exactly { rows, cols, data: typed array }.
function isCoreMatrix(value) {
  const keys = Object.keys(value);
  return keys.length === 3 && Number.isInteger(value.rows) && Number.isInteger(value.cols) && ArrayBuffer.isView(value.data);
}

/**
 * A value from the core as plain JavaScript, by kind: matrices { rows, cols, data } →
 * number[][], typed arrays → number[], arrays and objects converted entry by entry, fields
 * the core left undefined dropped; numbers, strings and booleans unchanged.
 */
export function fromCore(value) {
  if (value === null || typeof value !== 'object') return value;
  if (ArrayBuffer.isView(value)) return Array.from(value);
  if (Array.isArray(value)) return value.map(fromCore);
  if (isCoreMatrix(value)) return toNested(value);
  const out = {};
  for (const [key, entry] of Object.entries(value)) if (entry !== undefined) out[key] = fromCore(entry);
  return out;
}

/** A list of numbers (an array or a typed array) as the float32 row the core takes. */
export function toCoreRow(name, row) {
  if (!Array.isArray(row) && !ArrayBuffer.isView(row)) {
    throw new AttnLabError('invalid-argument', `${name} must be an array of numbers, got ${describe(row)}`);
  }
  return Float32Array.from(row, (cell, i) => readNumber(cell, `${name}[${i}]`));
}
