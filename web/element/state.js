// The element's whole state and its JSON schema (its link, #z=…, is state-link.js's).
//
// Schema (every field optional in a URL; missing ones come from the default preset):
//   every field of trace()'s request (X, Wq, Wk, Wv, Q, K, V, Wo, heads, causal, keyPadding,
//   mask, temperature, positional, rope, window…): the core's schema (lab.schema(), generated
//   into core-lists.js as TRACE_GROUPS), each checked by its kind; a matrix or mask the request
//   may leave out may be null (none). X, Wq, Wk, Wv (and context) are used in mode 'x', Q, K, V
//   in mode 'qkv'. The trace's backward fields are the stepper's (backward, dOutput below).
// and the element's own:
//   mode        'x' (tokens X with W_Q, W_K, W_V) or 'qkv' (Q, K, V given directly)
//   tokens      string[]: labels of the tokens (mode 'x') or of the keys (mode 'qkv')
//   scale       true (1/√d_k), false (no scaling) or a number
//   step        the id of the step on view, e.g. 'softmax'
//   backward    boolean: the stepper runs forward then backward (the grad-* steps); absent
//               = false, so links saved before the field existed keep their state
//   dOutput     number[][] or null: the upstream gradient at the output (∂L/∂O, or ∂L/∂Y
//               after W_O), the output's shape; null or absent = a seeded
//               default (stepper/backward.js)
//   predict     boolean: the stepper hides each step's result until the learner has
//               predicted something about it (stepper/predict.js)
//   view        'stepper' (the default) or a teaching view: an id of views/list.js
//   viewState   object: that view's own fields (sliders, the dragged query…), checked by the
//               view (views/*.js, FIELDS); missing fields take the view's defaults
// Values are checked for type here; whether they fit together is the core's to say.

import { TRACE_GROUPS } from '../lib/core-lists.js'; // generated from the core's schema
import { plainData } from './plain-data.js';
import { NUMBER_FIELDS } from './state-link.js';
import { StateError } from './state-error.js';

export { StateError };

const isMatrix = (m) => Array.isArray(m) && m.length > 0 && m.every((row) => Array.isArray(row) && row.every((v) => typeof v === 'number'));
const isBoolMatrix = (m) => Array.isArray(m) && m.every((row) => Array.isArray(row) && row.every((v) => typeof v === 'boolean'));
const isWhole = (v, min = 0) => Number.isInteger(v) && v >= min;
const listOf = (check) => (v) => Array.isArray(v) && v.every(check);
const orNull = ([check, what]) => [(v) => v === null || check(v), `${what} or null`];

// The request's fields that the state mirrors: the trace's backward fields are the stepper's.
const BACKWARD_GROUP = 'BackwardFields';
const REQUEST_FIELDS = Object.entries(TRACE_GROUPS).flatMap(([group, fields]) => (group === BACKWARD_GROUP ? [] : fields));
// The fields of each mode's source of Q, K and V.
const SOURCE_FIELDS = { x: TRACE_GROUPS.ProjectionInput.map((f) => f.name), qkv: TRACE_GROUPS.QKVInput.map((f) => f.name) };

const quoted = (choices) => choices.map((c) => `'${c}'`).join(choices.length === 2 ? ' or ' : ', ');

// A request field's check, by its kind in the core's schema: [check, what it must be].
function checkOf({ kind, required, min, choices }) {
  const checks = {
    boolean: [(v) => typeof v === 'boolean', 'true or false'],
    number: [(v) => typeof v === 'number', 'a number'],
    probability: [(v) => typeof v === 'number', 'a number'],
    whole: [(v) => isWhole(v, Number(min) || 0), `a whole number of at least ${Number(min) || 0}`],
    matrix: [isMatrix, 'a matrix of numbers'],
    mask: [isBoolMatrix, 'a matrix of true/false'],
    flags: [listOf((t) => typeof t === 'boolean'), 'an array of true/false'],
    indices: [listOf((t) => isWhole(t)), 'an array of whole numbers'],
    row: [listOf((t) => typeof t === 'number'), 'an array of numbers'],
    window: [(v) => isWhole(v) || (v !== null && typeof v === 'object' && !Array.isArray(v)), 'a whole number or { left, right }'],
    choice: [(v) => choices.includes(v), quoted(choices ?? [])],
    alignment: [(v) => choices.includes(v) || Number.isSafeInteger(v), `${quoted(choices ?? [])} or a key position (an integer)`],
    text: [(v) => typeof v === 'string', 'a string'],
  };
  const check = checks[kind];
  return required || (kind !== 'matrix' && kind !== 'mask') ? check : orNull(check);
}

// A Map, so that a key named like an Object.prototype property ("constructor", "__proto__")
// is simply not a field.
const FIELD_CHECKS = new Map([
  ...REQUEST_FIELDS.map((field) => [field.name, checkOf(field)]),
  ...Object.entries({
    mode: [(v) => v === 'x' || v === 'qkv', "'x' or 'qkv'"],
    tokens: [listOf((t) => typeof t === 'string'), 'an array of strings'],
    scale: [(v) => typeof v === 'boolean' || typeof v === 'number', 'true, false or a number'],
    step: [(v) => typeof v === 'string', 'a step id'],
    predict: [(v) => typeof v === 'boolean', 'true or false'],
    backward: [(v) => typeof v === 'boolean', 'true or false'],
    dOutput: [(v) => v === null || isMatrix(v), 'a matrix of numbers or null'],
    view: [(v) => typeof v === 'string', 'a view id'],
    viewState: [(v) => v !== null && typeof v === 'object' && !Array.isArray(v), 'an object'],
    // Where a state opened from a view came from (the model view's head): its caption, the
    // view and view state Back returns to, and the heads' names ("L2 H3").
    origin: [
      (v) =>
        v === null ||
        (v !== null &&
          typeof v === 'object' &&
          typeof v.label === 'string' &&
          typeof v.view === 'string' &&
          v.viewState !== null &&
          typeof v.viewState === 'object' &&
          listOf((t) => typeof t === 'string')(v.heads ?? [])),
      'null or { label, view, viewState, heads }',
    ],
  }),
]);

// −0 as 0, through lists and objects. A link spells −0 only in the fields of numbers (where a
// −0 is a value of its own); elsewhere (a count such as kvHeads, a window, a view's state) it
// would come back as 0, so it is 0 from the start and the state reopens as it was.
const positiveZero = (value) => {
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.map(positiveZero);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, positiveZero(v)]));
  return value;
};

/**
 * Fills `partial` from `base`, checking that `partial` is plain data (plain-data.js) and every
 * given field's type. Throws StateError.
 */
export function mergeState(base, partial) {
  const data = plainData(partial);
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new StateError('the state must be a JSON object');
  }
  const state = structuredClone(base);
  for (const [key, value] of Object.entries(data)) {
    const check = FIELD_CHECKS.get(key);
    if (!check) throw new StateError(`unknown field "${key}"`);
    if (!check[0](value)) throw new StateError(`"${key}" must be ${check[1]}`);
    state[key] = NUMBER_FIELDS.has(key) ? value : positiveZero(value); // plainData's own copy
  }
  return state;
}

// Fields that only choose what is on view: the trace does not depend on them.
const VIEW_ONLY_FIELDS = new Set(['step', 'view', 'viewState', 'predict']);

/**
 * Whether two full states describe the same trace. States are never mutated, so a field
 * that did not change is the same value or object in both.
 */
export function sameTrace(a, b) {
  const keys = Object.keys(b);
  return keys.length === Object.keys(a).length && keys.every((key) => VIEW_ONLY_FIELDS.has(key) || a[key] === b[key]);
}

/** The request for lab.trace() that this state describes. */
export function traceRequest(state) {
  const other = SOURCE_FIELDS[state.mode === 'x' ? 'qkv' : 'x'];
  const request = {};
  for (const { name } of REQUEST_FIELDS) {
    if (state[name] !== undefined && state[name] !== null && !other.includes(name)) request[name] = state[name];
  }
  // The element's own forms: scale true is the core's default (1/√d_k) and false no scaling;
  // no padded key is no keyPadding; positions and labels belong to tokens X.
  if (typeof state.scale === 'boolean') request.scale = state.scale ? undefined : 1;
  if (!state.keyPadding?.some(Boolean)) request.keyPadding = undefined;
  if (state.mode === 'x') request.tokens = state.tokens;
  else request.positional = undefined;
  return request;
}
