// The page's link form, written from its documentation (web/element/README.md, `url-state`):
// "#s=" followed by the state's JSON, UTF-8, in base64url without padding (RFC 4648 §5).
// Node's Buffer does the encoding, so this shares no code with the element's own.

/** "#s=…" for a (full or partial) state. */
export const stateLink = (state) => `#s=${Buffer.from(JSON.stringify(state), 'utf8').toString('base64url')}`;

/** The state in a "#s=…" link (the inverse of stateLink). */
export function stateOfLink(hash) {
  const match = /^#?s=([A-Za-z0-9_-]*)$/.exec(hash);
  if (!match) throw new Error(`not a #s= link: ${hash}`);
  return JSON.parse(Buffer.from(match[1], 'base64url').toString('utf8'));
}
