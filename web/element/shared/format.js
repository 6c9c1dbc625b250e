// How numbers, indices and names read on screen. Formatting only: no arithmetic on results.
import { html, nothing } from 'lit';

const SUBSCRIPTS = '₀₁₂₃₄₅₆₇₈₉';

/** A 0-based index shown 1-based as a subscript: 0 → "₁". */
export const sub = (index) => String(index + 1).replace(/\d/g, (d) => SUBSCRIPTS[d]);

/** A value as a learner reads it: at most 4 decimals, "−∞" for masked entries. */
export function fmt(value) {
  if (value === -Infinity) return '−∞';
  if (value === Infinity) return '∞';
  const rounded = Number(value.toFixed(4));
  return minus((Object.is(rounded, -0) ? 0 : rounded).toString());
}

// A typographic minus for every hyphen: "-1.2e-7" has two.
const minus = (text) => text.replaceAll('-', '−');

/**
 * A value as an operand written after an operator, as fmt does but a negative one in
 * parentheses: "0 − (−1.4142)", "0.5 × (−2)", never "0 − −1.4142".
 */
export const fmtTerm = (value) => (value < 0 ? `(${fmt(value)})` : fmt(value));

/**
 * A value whose size matters as much as its digits: tiny and huge magnitudes as powers of
 * ten with `digits` decimals (4 decimals would show 1e-7 as 0), the rest as fmt does.
 */
export function fmtWide(value, digits = 3) {
  const size = Math.abs(value);
  if (value !== 0 && Number.isFinite(value) && (size >= 1e5 || size < 1e-4)) return minus(value.toExponential(digits));
  return fmt(value);
}

const SUPERSCRIPTS = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/** A 0-based head shown as the formulas write it, a 1-based superscript: 0 → "⁽¹⁾". */
export const headMark = (head) => `⁽${String(head + 1).replace(/\d/g, (d) => SUPERSCRIPTS[d])}⁾`;

/**
 * The entries of `values` that share its largest finite value as a learner reads it (equal to
 * 4 decimals, so two entries that print the same are never told apart): their indices, none
 * when every entry is masked.
 */
export function largestEntries(values) {
  const finite = values.filter(Number.isFinite);
  if (!finite.length) return [];
  const shown = fmt(Math.max(...finite));
  return values.flatMap((v, j) => (Number.isFinite(v) && fmt(v) === shown ? [j] : []));
}

/**
 * The keys `indices` of `values` named in words, a tie named in full as the tokens view
 * does: "“k₁” (2)" or "“k₁” and “k₂” (1 each)". `name` gives a key's label.
 */
export function namedLargest(values, indices, name) {
  const names = indices.map((j) => `“${name(j)}”`);
  const value = fmt(values[indices[0]]);
  if (names.length === 1) return `${names[0]} (${value})`;
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)} (${value} each)`;
}

/** A shape as "2×3". */
export const shape = (rows, cols) => `${rows}×${cols}`;

// A one-letter name with a subscript written with an underscore: d_k, W_Q, n_k, d_model.
const SUBSCRIPTED_NAME = /\b([A-Za-z])_([A-Za-z0-9]{1,5})\b/g;

// The core's messages name the weights as a request passes them (Wq … Wo); the element labels
// those matrices with their symbols, W_Q … W_O, and its messages say the same.
const WEIGHT_NAME = /\bW([qkvo])\b/g;
const asSymbols = (text) => text.replace(WEIGHT_NAME, (_, which) => `W_${which.toUpperCase()}`);

/** Text as a learner reads it, names such as d_k and W_Q (or Wq) with real subscripts (<sub>). */
export function subscripted(text) {
  if (typeof text !== 'string') return text;
  text = asSymbols(text);
  if (!text.includes('_')) return text;
  const parts = text.split(SUBSCRIPTED_NAME); // [text, letter, subscript, text, …]
  return parts.map((part, i) => (i % 3 === 0 ? part : i % 3 === 1 ? html`${part}<sub>${parts[i + 1]}</sub>` : nothing));
}

const UNICODE_SUBSCRIPTS = { k: 'ₖ', v: 'ᵥ', o: 'ₒ', n: 'ₙ', i: 'ᵢ', j: 'ⱼ', ...Object.fromEntries([...SUBSCRIPTS].map((s, d) => [d, s])) };

/** The same for plain text (attributes, options): Unicode subscripts where they exist (d_k → dₖ), else W_Q → WQ. */
export const plainSubscripted = (text) =>
  asSymbols(text).replace(SUBSCRIPTED_NAME, (_, name, index) =>
    [...index].every((c) => UNICODE_SUBSCRIPTS[c]) ? name + [...index].map((c) => UNICODE_SUBSCRIPTS[c]).join('') : name + index,
  );
