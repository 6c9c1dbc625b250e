// A colour-blind-safe sequential scale: viridis, sampled at nine evenly spaced stops.
const VIRIDIS = [
  [68, 1, 84],
  [71, 44, 122],
  [59, 81, 139],
  [44, 113, 142],
  [33, 144, 141],
  [39, 173, 129],
  [92, 200, 99],
  [170, 220, 50],
  [253, 231, 37],
];

/** rgb() for t in [0, 1], linearly between the stops. */
export function viridis(t) {
  const x = Math.min(1, Math.max(0, t)) * (VIRIDIS.length - 1);
  const i = Math.min(Math.floor(x), VIRIDIS.length - 2);
  const f = x - i;
  const [r, g, b] = VIRIDIS[i].map((c, k) => Math.round(c + (VIRIDIS[i + 1][k] - c) * f));
  return `rgb(${r} ${g} ${b})`;
}

/** Dark text on the light (yellow-green) end, light text on the dark end. */
export const textOn = (t) => (t > 0.55 ? '#111' : '#fff');

export const VIRIDIS_GRADIENT = `linear-gradient(to right, ${VIRIDIS.map((c) => `rgb(${c.join(' ')})`).join(', ')})`;

/** The [min, max] of a matrix's finite values, for normalising the heatmap. */
export function finiteRange(values) {
  let min = Infinity;
  let max = -Infinity;
  for (const row of values) {
    for (const v of row) {
      if (Number.isFinite(v)) {
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
    }
  }
  return min <= max ? [min, max] : [0, 0];
}
