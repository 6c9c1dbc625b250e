// How numbers and indices read on screen. Formatting only: no arithmetic on results.

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
 * A value whose size matters as much as its digits: tiny and huge magnitudes as powers of
 * ten with `digits` decimals (4 decimals would show 1e-7 as 0), the rest as fmt does.
 */
export function fmtWide(value, digits = 3) {
  const size = Math.abs(value);
  if (value !== 0 && Number.isFinite(value) && (size >= 1e5 || size < 1e-4)) return minus(value.toExponential(digits));
  return fmt(value);
}

/** A shape as "2×3". */
export const shape = (rows, cols) => `${rows}×${cols}`;
