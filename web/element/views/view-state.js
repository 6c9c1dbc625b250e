// Each teaching view keeps its own small state (the slider positions, the dragged query…)
// inside the element's state as `viewState`, so a URL or an embed can restore it. A view
// declares its fields once; this checks a partial view state against them.
import { StateError } from '../state.js';

/**
 * fields: { name: [defaultValue, isValid(value), 'what it must be'] }.
 * Returns the defaults overlaid with `partial`; throws StateError naming a bad field.
 */
export function normalizeViewState(viewId, fields, partial = {}) {
  if (partial === null || typeof partial !== 'object' || Array.isArray(partial)) {
    throw new StateError(`the ${viewId} view's state must be a JSON object`);
  }
  const out = {};
  for (const [name, [fallback]] of Object.entries(fields)) out[name] = structuredClone(fallback);
  for (const [name, value] of Object.entries(partial)) {
    const field = fields[name];
    if (!field) throw new StateError(`the ${viewId} view has no field "${name}"`);
    if (!field[1](value)) throw new StateError(`the ${viewId} view's "${name}" must be ${field[2]}`);
    out[name] = structuredClone(value);
  }
  return out;
}

export const isNumberIn = (lo, hi) => (v) => typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi;
export const isIntegerIn = (lo, hi) => (v) => Number.isInteger(v) && v >= lo && v <= hi;
export const isNumberList = (min, max) => (v) =>
  Array.isArray(v) && v.length >= min && v.length <= max && v.every((x) => typeof x === 'number' && Number.isFinite(x));
export const isPointList = (min, max) => (v) =>
  Array.isArray(v) && v.length >= min && v.length <= max && v.every(isNumberList(2, 2));
