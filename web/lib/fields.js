// Reading a caller's objects as data: own fields only, each read once, every key one the
// entry knows. A typo such as `casual: true` must not quietly run non-causal attention, and a
// getter or a Proxy must not change a value between the check and the copy the core gets.
import { AttnLabError } from './errors.js';

export function fail(message) {
  throw new AttnLabError('invalid-argument', message);
}

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbours, so the usual typos ("casual" for "causal") are one edit away.
function editDistance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The known name closest to `name` (case aside) when it is near enough to be a typo of it.
 * The distance is at least the difference of the lengths, so a name of implausible length is
 * never compared: the cost stays bounded by the known names, whatever the key's length.
 */
function closestName(name, known) {
  let best;
  let bestDistance = Math.max(1, Math.floor(name.length / 3)) + 1;
  for (const candidate of known) {
    if (Math.abs(name.length - candidate.length) >= bestDistance) continue;
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

// A key as a message quotes it: a very long one cut, its length said.
const quoted = (key) => (key.length > 40 ? `${key.slice(0, 40)}… (${key.length} characters)` : key);

function unknownField(owner, prefix, key, known) {
  const suggestion = closestName(key, known);
  const name = quoted(key);
  if (suggestion) return `${prefix}${name}: did you mean ${suggestion}? (${owner} has no field "${name}")`;
  return `${prefix}${name}: ${owner} has no such field (it takes ${known.join(', ')})`;
}

/**
 * The own fields of `object` among `known`, each read once, in a null-prototype object.
 * Throws AttnLabError ('invalid-argument') for a key `known` lacks (naming the closest known
 * one), a symbol key, or a read that throws (a getter, a Proxy's trap). `owner` names the
 * object in messages ('attention()', 'Q'); `prefix` goes before a field's name ('Q.').
 */
export function ownFields(object, known, { owner, prefix = '' }) {
  let keys;
  try {
    keys = Reflect.ownKeys(object);
  } catch (error) {
    fail(`${owner}'s fields could not be listed (${error.message})`);
  }
  for (const key of keys) {
    if (typeof key === 'symbol') fail(`${owner} has a symbol key ${String(key)}; it takes ${known.join(', ')}`);
    if (!known.includes(key)) fail(unknownField(owner, prefix, key, known));
  }
  const fields = Object.create(null);
  for (const key of known) {
    if (!keys.includes(key)) continue;
    try {
      fields[key] = object[key];
    } catch (error) {
      fail(`${prefix}${key} could not be read (${error.message})`);
    }
  }
  return fields;
}
