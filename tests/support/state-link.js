// The page's link forms, written from their documentation (web/element/README.md, `url-state`):
// "#z=" followed by the state's JSON, UTF-8, deflated (raw DEFLATE, RFC 1951), in base64url
// without padding (RFC 4648 §5); the older "#s=", the JSON uncompressed, still read. −∞, +∞,
// NaN and −0 are the strings "-Infinity", "Infinity", "NaN" and "-0" in the fields of numbers.
// Node's Buffer and zlib do the work, so this shares no code with the element's own.
import { deflateRawSync, inflateRawSync } from 'node:zlib';

const SPELLED = { '-Infinity': -Infinity, Infinity, NaN, '-0': -0 };
// The fields that hold text rather than numbers: their strings stay strings.
const TEXT_FIELDS = new Set(['tokens', 'viewState', 'step', 'view', 'mode', 'positional', 'causalAlignment']);
const spell = (v) => (Array.isArray(v) ? v.map(spell) : typeof v !== 'number' ? v : Object.is(v, -0) ? '-0' : Number.isFinite(v) ? v : String(v));
const revive = (v) => (Array.isArray(v) ? v.map(revive) : typeof v === 'string' && Object.hasOwn(SPELLED, v) ? SPELLED[v] : v);
const mapFields = (state, f) => Object.fromEntries(Object.entries(state).map(([k, v]) => [k, TEXT_FIELDS.has(k) ? v : f(v)]));

/** "#s=…" for a (full or partial) state: the older, uncompressed form, which the element still reads. */
export const stateLink = (state) => `#s=${Buffer.from(JSON.stringify(mapFields(state, spell)), 'utf8').toString('base64url')}`;

/** "#z=…" for a state, compressed by zlib (as the browser's CompressionStream('deflate-raw') would). */
export const compressedStateLink = (state) => `#z=${deflateRawSync(Buffer.from(JSON.stringify(mapFields(state, spell)), 'utf8')).toString('base64url')}`;

/** The state in a "#z=…" or "#s=…" link (the inverse of either). */
export function stateOfLink(hash) {
  const match = /^#?([sz])=([A-Za-z0-9_-]*)$/.exec(hash);
  if (!match) throw new Error(`not a #z= or #s= link: ${hash}`);
  const bytes = Buffer.from(match[2], 'base64url');
  return mapFields(JSON.parse((match[1] === 'z' ? inflateRawSync(bytes) : bytes).toString('utf8')), revive);
}

/** Waits until the page's URL holds a state link whose state passes `check`; that state. */
export async function waitForLinkState(page, check, timeout = 5_000) {
  const end = Date.now() + timeout;
  for (;;) {
    const hash = await page.evaluate(() => window.location.hash);
    const state = /^#[sz]=/.test(hash) ? stateOfLink(hash) : null;
    if (state && check(state)) return state;
    if (Date.now() > end) throw new Error(`the URL did not come to hold the state expected (it holds ${hash.slice(0, 80)}…)`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
