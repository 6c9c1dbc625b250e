// Each teaching view keeps its own small state (the slider positions, the dragged query…)
// inside the element's state as `viewState`, so a URL or an embed can restore it. A view
// declares its fields once; this checks a partial view state against them.
import { StateError } from '../state.js';

/**
 * fields: { name: [defaultValue, isValid(value), 'what it must be'] }; renamed: { olderName:
 * name }, the names a field had before, which saved links still hold.
 * Returns the defaults overlaid with `partial`; throws StateError naming a bad field.
 */
export function normalizeViewState(viewId, fields, partial = {}, renamed = {}) {
  if (partial === null || typeof partial !== 'object' || Array.isArray(partial)) {
    throw new StateError(`the ${viewId} view's state must be a JSON object`);
  }
  const out = {};
  for (const [name, [fallback]] of Object.entries(fields)) out[name] = structuredClone(fallback);
  const given = Object.entries(partial).map(([name, value]) => {
    const newer = Object.hasOwn(renamed, name) ? renamed[name] : undefined;
    if (newer && Object.hasOwn(partial, newer)) throw new StateError(`the ${viewId} view's "${name}" is the older name of "${newer}": give one of them`);
    return [newer ?? name, value];
  });
  for (const [name, value] of given) {
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined; // "constructor" is no field
    if (!field) throw new StateError(`the ${viewId} view has no field "${name}"`);
    if (!field[1](value)) throw new StateError(`the ${viewId} view's "${name}" must be ${field[2]}`);
    out[name] = structuredClone(value);
  }
  return out;
}

export const isNumberIn = (lo, hi) => (v) => typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi;
const isIntegerIn = (lo, hi) => (v) => Number.isInteger(v) && v >= lo && v <= hi;
export const isNumberList = (min, max) => (v) =>
  Array.isArray(v) && v.length >= min && v.length <= max && v.every((x) => typeof x === 'number' && Number.isFinite(x));

// Numbers a view puts in its state keep two decimals, so the URL stays short and the
// numbers read easily.
export const round2 = (v) => Math.round(v * 100) / 100;
/** v held within lo…hi. */
export const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

/** A whole-number field of the view state: [fallback, isValid, 'what it must be']. */
export const wholeField = (fallback, lo, hi) => [fallback, isIntegerIn(lo, hi), `a whole number from ${lo} to ${hi}`];

// Every view that draws random numbers takes its seed from this one range, so a seed means
// the same thing, and is refused the same way, everywhere.
export const SEED_RANGE = [0, 2 ** 31 - 1];
export const SEED_FIELD = wholeField(1, ...SEED_RANGE);
/** The seed after `seed`, wrapping at the top of SEED_RANGE. */
export const nextSeed = (seed) => (seed >= SEED_RANGE[1] ? SEED_RANGE[0] : seed + 1);

/**
 * The whole number typed as `text`, if it lies within lo…hi; otherwise null. Blank text is
 * refused: Number('') is 0, which would quietly accept an emptied field as 0.
 */
export function parseWhole(text, lo, hi) {
  const trimmed = String(text).trim();
  if (trimmed === '') return null;
  const value = Number(trimmed);
  return Number.isInteger(value) && value >= lo && value <= hi ? value : null;
}
