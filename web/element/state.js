// The element's whole state, its JSON schema, and its URL form (#s=<base64url of JSON>).
//
// Schema (every field optional in a URL; missing ones come from the default preset):
//   mode        'x' (tokens X with W_Q, W_K, W_V) or 'qkv' (Q, K, V given directly)
//   X, Wq, Wk, Wv       number[][]                                        — mode 'x'
//   Q, K, V     number[][]                                                — mode 'qkv'
//   Wo          number[][] or null (no output projection), in either mode
//   tokens      string[]: labels of the tokens (mode 'x') or of the keys (mode 'qkv')
//   heads       whole number ≥ 1
//   causal      boolean
//   keyPadding  boolean[], one per key: true = padding, attended by no query
//   mask        boolean[][] or null: true where query i may attend to key j
//   scale       true (1/√d_k), false (no scaling) or a number
//   temperature number > 0
//   positional  'none' or 'sinusoidal' (mode 'x' only)
//   step        the id of the step on view, e.g. 'softmax'
//   backward    boolean: the stepper runs forward then backward (the grad-* steps); absent
//               = false, so links saved before the field existed keep their state
//   dOutput     number[][] or null: ∂L/∂Y, the output's shape; null or absent = a seeded
//               default (stepper/backward.js)
//   predict     boolean: the stepper hides each step's result until the learner has
//               predicted something about it (stepper/predict.js)
//   view        'stepper' (the default) or a teaching view: an id of views/list.js
//   viewState   object: that view's own fields (sliders, the dragged query…), checked by the
//               view (views/*.js, FIELDS); missing fields take the view's defaults
// Values are checked for type here; whether they fit together is the core's to say.

import { plainData } from './plain-data.js';
import { StateError } from './state-error.js';

export { StateError };

const isMatrix = (m) =>
  Array.isArray(m) && m.length > 0 && m.every((row) => Array.isArray(row) && row.every((v) => typeof v === 'number'));
const isBoolMatrix = (m) => Array.isArray(m) && m.every((row) => Array.isArray(row) && row.every((v) => typeof v === 'boolean'));

// A Map, so that a key named like an Object.prototype property ("constructor", "__proto__")
// is simply not a field.
const FIELD_CHECKS = new Map(Object.entries({
  mode: [(v) => v === 'x' || v === 'qkv', "'x' or 'qkv'"],
  X: [isMatrix, 'a matrix of numbers'],
  Wq: [isMatrix, 'a matrix of numbers'],
  Wk: [isMatrix, 'a matrix of numbers'],
  Wv: [isMatrix, 'a matrix of numbers'],
  Wo: [(v) => v === null || isMatrix(v), 'a matrix of numbers or null'],
  Q: [isMatrix, 'a matrix of numbers'],
  K: [isMatrix, 'a matrix of numbers'],
  V: [isMatrix, 'a matrix of numbers'],
  tokens: [(v) => Array.isArray(v) && v.every((t) => typeof t === 'string'), 'an array of strings'],
  heads: [(v) => Number.isInteger(v) && v >= 1, 'a whole number of at least 1'],
  causal: [(v) => typeof v === 'boolean', 'true or false'],
  keyPadding: [(v) => Array.isArray(v) && v.every((t) => typeof t === 'boolean'), 'an array of true/false'],
  mask: [(v) => v === null || isBoolMatrix(v), 'a matrix of true/false or null'],
  scale: [(v) => typeof v === 'boolean' || typeof v === 'number', 'true, false or a number'],
  temperature: [(v) => typeof v === 'number', 'a number'],
  positional: [(v) => v === 'none' || v === 'sinusoidal', "'none' or 'sinusoidal'"],
  step: [(v) => typeof v === 'string', 'a step id'],
  predict: [(v) => typeof v === 'boolean', 'true or false'],
  backward: [(v) => typeof v === 'boolean', 'true or false'],
  dOutput: [(v) => v === null || isMatrix(v), 'a matrix of numbers or null'],
  view: [(v) => typeof v === 'string', 'a view id'],
  viewState: [(v) => v !== null && typeof v === 'object' && !Array.isArray(v), 'an object'],
}));

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
    state[key] = value; // plainData's own copy
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
  const common = {
    heads: state.heads,
    causal: state.causal,
    temperature: state.temperature,
    Wo: state.Wo ?? undefined,
    mask: state.mask ?? undefined,
    keyPadding: state.keyPadding.some(Boolean) ? state.keyPadding : undefined,
  };
  if (state.scale === false) common.scale = 1;
  else if (typeof state.scale === 'number') common.scale = state.scale;
  if (state.mode === 'x') {
    return { ...common, X: state.X, Wq: state.Wq, Wk: state.Wk, Wv: state.Wv, positional: state.positional, tokens: state.tokens };
  }
  return { ...common, Q: state.Q, K: state.K, V: state.V };
}

// base64url: the URL-safe alphabet, no padding.
function toBase64Url(text) {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(encoded) {
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) throw new StateError('the link is not valid base64url');
  const padded = encoded.replaceAll('-', '+').replaceAll('_', '/') + '='.repeat((4 - (encoded.length % 4)) % 4);
  let binary;
  try {
    binary = atob(padded);
  } catch {
    throw new StateError('the link is not valid base64url');
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    throw new StateError('the link does not decode to UTF-8 text');
  }
}

/** "#s=…" for a state. */
export function encodeHash(state) {
  return `#s=${toBase64Url(JSON.stringify(state))}`;
}

/**
 * The partial state in a "#s=…" hash, or { view } for the readable link "#view=ID" (what a
 * tutorial links to); null when the hash holds no state. Throws StateError.
 */
export function decodeHash(hash) {
  const view = /^#?view=([a-z-]+)$/.exec(hash);
  if (view) return { view: view[1] };
  const match = /^#?s=(.*)$/.exec(hash);
  if (!match) return null;
  const json = fromBase64Url(match[1]);
  try {
    return JSON.parse(json);
  } catch {
    throw new StateError('the link does not hold valid JSON');
  }
}
