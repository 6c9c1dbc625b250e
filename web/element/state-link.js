// The state in a link: "#z=" and the state's JSON, UTF-8, deflated (raw DEFLATE, RFC 1951) and
// in base64url without padding. The older "#s=" (the JSON uncompressed, in base64url) is still
// read, so links saved before keep opening.
//
// Every state the element accepts comes back from its link:
// - JSON has no −∞, +∞, NaN or −0 (it writes null, or 0, and a reload then showed the default
//   example in place of a state with a −∞ bias cell, the documented way to block a key). They
//   are written as the strings "-Infinity", "Infinity", "NaN" and "-0", as the JSON export
//   writes −∞, and read back as numbers in the fields that hold numbers (the matrices, rows and
//   numbers of the trace's request, dOutput and scale); a token label "-Infinity" stays a string.
// - A link has a limit: Chromium drops a URL past 2 MiB and Firefox one past 1 MiB, and the
//   reload then fell back to an older state without a word. So a state whose link would pass
//   LINK_LIMIT characters is refused by setState() (linkProblem), naming the limit, before it
//   is shown, never accepted and then lost.
import { TRACE_GROUPS } from '../lib/core-lists.js'; // generated from the core's schema
import { deflateRaw } from './deflate.js';
import { inflateRaw } from './inflate.js';
import { StateError } from './state-error.js';

/** The most characters of a state's link ("#z=…"): within Firefox's 1 MiB URL, with room for the page's own address. */
export const LINK_LIMIT = 1_000_000;

// A link's state expands to at most this much JSON: a small link must not inflate into
// gigabytes (a state within LINK_LIMIT compresses about 2 to 3 times).
const MAX_JSON_BYTES = 64 * 1024 * 1024;

// The numbers JSON cannot write, as strings.
const SPELLED = new Map([
  ['-Infinity', -Infinity],
  ['Infinity', Infinity],
  ['NaN', NaN],
  ['-0', -0],
]);
const spelled = (value) => (Object.is(value, -0) ? '-0' : Number.isFinite(value) ? value : String(value));

// The fields whose values are numbers, lists or matrices of numbers: only there is "-Infinity"
// read as a number.
const NUMBER_KINDS = new Set(['number', 'probability', 'matrix', 'row']);
export const NUMBER_FIELDS = new Set([
  ...Object.values(TRACE_GROUPS)
    .flat()
    .filter(({ kind }) => NUMBER_KINDS.has(kind))
    .map(({ name }) => name),
  'dOutput',
  'scale',
]);

// A number as the link writes it, in a number, a row or a matrix.
const spell = (value) => (Array.isArray(value) ? value.map(spell) : typeof value === 'number' ? spelled(value) : value);

/** The state's JSON, with −∞, +∞, NaN and −0 spelled as strings in the fields of numbers (a view's numbers are finite: its fields say so). */
function stateJson(state) {
  const out = {};
  for (const [key, value] of Object.entries(state)) out[key] = NUMBER_FIELDS.has(key) ? spell(value) : value;
  return JSON.stringify(out);
}

// A spelled number back as a number, in a number, a row or a matrix.
const revive = (value) => (Array.isArray(value) ? value.map(revive) : typeof value === 'string' && SPELLED.has(value) ? SPELLED.get(value) : value);

/** A partial state parsed from JSON (`source`: a link, the state attribute), its spelled numbers read back. Throws StateError. */
export function parseState(json, source = 'the link') {
  let partial;
  try {
    partial = JSON.parse(json);
  } catch {
    throw new StateError(`${source} does not hold valid JSON`);
  }
  if (partial === null || typeof partial !== 'object' || Array.isArray(partial)) return partial;
  for (const key of Object.keys(partial)) if (NUMBER_FIELDS.has(key)) partial[key] = revive(partial[key]);
  return partial;
}

// base64url: the URL-safe alphabet, no padding.
function toBase64Url(bytes) {
  let binary = '';
  const CHUNK = 0x8000; // String.fromCharCode of a whole megabyte would pass the call stack
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(encoded) {
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) throw new StateError('the link is not valid base64url');
  const padded = encoded.replaceAll('-', '+').replaceAll('_', '/') + '='.repeat((4 - (encoded.length % 4)) % 4);
  try {
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  } catch {
    throw new StateError('the link is not valid base64url');
  }
}

function utf8(bytes) {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new StateError('the link does not decode to UTF-8 text');
  }
}

// The characters of base64url without padding for `bytes` bytes.
const base64Length = (bytes) => Math.ceil((bytes * 4) / 3);

// The two forms of a state's JSON: compressed ("#z=") and not ("#s="), the shorter of them
// being the link. Deflate shortens JSON two to three times; a state of incompressible labels
// could come out a little longer, and then the plain form is the link.
const linkOf = (bytes, compressed = deflateRaw(bytes)) => (compressed.length < bytes.length ? `#z=${toBase64Url(compressed)}` : `#s=${toBase64Url(bytes)}`);

/** The link of a state: "#z=…", or "#s=…" where compression would not shorten it. */
export function encodeHash(state) {
  return linkOf(new TextEncoder().encode(stateJson(state)));
}

/**
 * The same link, compressed by the browser's CompressionStream('deflate-raw') where there is
 * one: native, so the URL written after each burst of edits costs the page no time (deflate.js
 * takes about 0.2 s for a megabyte of JSON). setState() measured the link with deflate.js, so
 * should this one ever be longer than the limit, deflate.js's is the link.
 */
async function encodeHashAsync(state) {
  if (typeof CompressionStream !== 'function') return encodeHash(state);
  const bytes = new TextEncoder().encode(stateJson(state));
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  const link = linkOf(bytes, new Uint8Array(await new Response(stream).arrayBuffer()));
  return link.length <= LINK_LIMIT ? link : encodeHash(state);
}

/**
 * Writes the link of current() into the URL once it is compressed, unless the state or the URL
 * (a link navigated to meanwhile) has changed by then; resolves to the link written, or null.
 */
export async function writeLink(current) {
  const [state, hash] = [current(), window.location.hash];
  if (!state) return null;
  const link = await encodeHashAsync(state);
  if (current() !== state || window.location.hash !== hash) return null;
  window.history.replaceState(null, '', link);
  return link;
}

/**
 * Why the state's link cannot hold it, or null when it fits. The plain form's length bounds the
 * link's, so only a state past the limit that way is compressed here, and only until its
 * output passes the limit.
 */
export function linkProblem(state) {
  const bytes = new TextEncoder().encode(stateJson(state));
  if (3 + base64Length(bytes.length) <= LINK_LIMIT) return null;
  // The most bytes whose base64url fits after "#z=": compression stops once past them.
  if (deflateRaw(bytes, Math.floor(((LINK_LIMIT - 3) * 3) / 4))) return null;
  return `its link would be longer than the ${LINK_LIMIT.toLocaleString('en')} characters a link may hold (its JSON is ${bytes.length.toLocaleString('en')} bytes, too many even deflated), so it could not come back from one; make it smaller`;
}

/**
 * The partial state in a "#z=…" or "#s=…" hash, or { view } for the readable link "#view=ID"
 * (what a tutorial links to); null when the hash holds no state. Throws StateError.
 */
export function decodeHash(hash) {
  const view = /^#?view=([a-z-]+)$/.exec(hash);
  if (view) return { view: view[1] };
  const match = /^#?([sz])=(.*)$/.exec(hash);
  if (!match) return null;
  const bytes = fromBase64Url(match[2]);
  if (match[1] === 's') return parseState(utf8(bytes));
  let json;
  try {
    json = inflateRaw(bytes, MAX_JSON_BYTES);
  } catch (error) {
    throw new StateError(`the link is not valid compressed data (${error.message})`);
  }
  return parseState(utf8(json));
}
