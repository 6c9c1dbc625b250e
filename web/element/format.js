// How numbers and indices read on screen. Formatting only: no arithmetic on results.

const SUBSCRIPTS = '₀₁₂₃₄₅₆₇₈₉';

/** A 0-based index shown 1-based as a subscript: 0 → "₁". */
export const sub = (index) => String(index + 1).replace(/\d/g, (d) => SUBSCRIPTS[d]);

/** A value as a learner reads it: at most 4 decimals, "−∞" for masked entries. */
export function fmt(value) {
  if (value === -Infinity) return '−∞';
  if (value === Infinity) return '∞';
  const rounded = Number(value.toFixed(4));
  return (Object.is(rounded, -0) ? 0 : rounded).toString().replace('-', '−');
}

/** A shape as "2×3". */
export const shape = (rows, cols) => `${rows}×${cols}`;
