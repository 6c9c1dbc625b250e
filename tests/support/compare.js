// Comparing matrices in the JavaScript and browser tests.

/** Largest |a - b| over two equally shaped matrices (equal infinities count as 0); Infinity when shapes differ or a value is NaN. */
export function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let max = 0;
  a.forEach((row, r) => {
    if (row.length !== b[r].length) max = Infinity;
    row.forEach((v, c) => {
      const w = b[r][c];
      max = Math.max(max, v === w ? 0 : Math.abs(v - w)); // NaN stays NaN
    });
  });
  return Number.isNaN(max) ? Infinity : max;
}
