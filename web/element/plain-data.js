// A state from outside (setState, a #s= link, the state attribute) is read as data before any
// field of it is looked at: plain objects and arrays of strings, numbers, booleans and null,
// copied into fresh objects. Anything else (a function, a symbol, a BigInt, a getter, a
// Proxy, a cycle, a class instance, a sparse array) is a StateError naming where it is, so
// no check downstream meets a trap, a throwing getter or a key that is really a prototype.
import { StateError } from './state-error.js';

const isCloneable = (value) => {
  try {
    structuredClone(value);
    return true;
  } catch {
    return false;
  }
};

// How a place in the state reads in a message: Q, viewState.seed, Q[0][1], viewState["a b"].
function pathTo(where, key) {
  if (typeof key === 'number') return `${where}[${key}]`;
  if (!/^[A-Za-z_$][\w$]*$/.test(key)) return `${where}[${JSON.stringify(key)}]`;
  return where ? `${where}.${key}` : key;
}
const named = (where) => where || 'the state';

// The value of own property `key`, refusing a hole and a getter (it could answer differently
// each time it is read).
function dataAt(object, key, where) {
  const descriptor = Reflect.getOwnPropertyDescriptor(object, key);
  if (!descriptor) throw new StateError(`${pathTo(where, key)} is a hole (a sparse array)`);
  if (!Object.hasOwn(descriptor, 'value')) throw new StateError(`${pathTo(where, key)} is a getter, not data`);
  return descriptor.value;
}

// `value` (at where[key], or at where without a key) if it is a string, number, boolean, null
// or undefined; objects go to copy(). The place is spelt out only for a message.
function leaf(value, where, key) {
  const kind = typeof value;
  const place = () => named(key === undefined ? where : pathTo(where, key));
  if (kind === 'function' || kind === 'symbol') throw new StateError(`${place()} is a ${kind}, not data`);
  if (kind === 'bigint') throw new StateError(`${place()} is a BigInt, not a number`);
  return value;
}

function copyEntry(object, key, where, ancestors, unclonable) {
  const value = dataAt(object, key, where);
  return value !== null && typeof value === 'object' ? copy(value, pathTo(where, key), ancestors, unclonable) : leaf(value, where, key);
}

// Arrays keep only their entries (as JSON does); every entry read by index, none skipped.
function copyArray(array, where, ancestors, unclonable) {
  const out = new Array(array.length);
  for (let i = 0; i < out.length; i++) out[i] = copyEntry(array, i, where, ancestors, unclonable);
  return out;
}

function copyObject(object, where, ancestors, unclonable) {
  const out = {};
  for (const key of Object.getOwnPropertyNames(object)) {
    // defineProperty, not assignment: a key named "__proto__" stays a key (refused later as
    // unknown) instead of replacing the copy's prototype.
    const value = copyEntry(object, key, where, ancestors, unclonable);
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

// A copy of object `value`. `unclonable` says that something below is refused by
// structuredClone though the walk sees nothing wrong: a Proxy, which looks like its target.
function copy(value, where, ancestors, unclonable) {
  if (ancestors.has(value)) throw new StateError(`${named(where)} refers back to itself (a cycle); a state is a tree`);
  let out;
  try {
    const prototype = Object.getPrototypeOf(value);
    const isArray = prototype === Array.prototype && Array.isArray(value);
    if (!isArray && prototype !== Object.prototype && prototype !== null) {
      throw new StateError(`${named(where)} is not a plain object or array`);
    }
    const symbol = Object.getOwnPropertySymbols(value)[0];
    if (symbol) throw new StateError(`${named(where)} has a symbol key (${String(symbol)}); a state's keys are strings`);
    ancestors.add(value);
    out = (isArray ? copyArray : copyObject)(value, where, ancestors, unclonable);
    ancestors.delete(value);
  } catch (error) {
    if (error instanceof StateError) throw error;
    throw new StateError(`${named(where)} could not be read (${error.message})`); // a trap that throws
  }
  if (unclonable && !isCloneable(value)) throw new StateError(`${named(where)} is a Proxy or another object that is not plain data`);
  return out;
}

/** A fresh copy of `value` if it is plain data; otherwise a StateError naming what and where. */
export function plainData(value) {
  if (value === null || typeof value !== 'object') return leaf(value, '');
  return copy(value, '', new Set(), !isCloneable(value));
}
