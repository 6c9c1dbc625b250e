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

/** [r, g, b] for t in [0, 1], linearly between the stops. */
function viridis(t) {
  const x = Math.min(1, Math.max(0, t)) * (VIRIDIS.length - 1);
  const i = Math.min(Math.floor(x), VIRIDIS.length - 2);
  const f = x - i;
  return VIRIDIS[i].map((c, k) => Math.round(c + (VIRIDIS[i + 1][k] - c) * f));
}

// WCAG relative luminance of an sRGB colour.
function luminance(rgb) {
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** White or black text, whichever contrasts more with the background (≥ 4.5:1 on every stop). */
function textOn(rgb) {
  const background = luminance(rgb);
  const onWhite = 1.05 / (background + 0.05);
  const onBlack = (background + 0.05) / 0.05;
  return onWhite >= onBlack ? '#fff' : '#000';
}

// Heatmap cells take one of HEAT_LEVELS classes (heat-0 … heat-31) rather than an inline
// style: a class change is cheap to re-render, and a strict CSP has no inline styles to allow.
const HEAT_LEVELS = 32;

/** Where a value sits in [min, max], from 0 to 1; null for masked (infinite) entries. */
export function heatLevel(value, [min, max]) {
  if (!Number.isFinite(value)) return null;
  return max > min ? (value - min) / (max - min) : 0.5;
}

/** The class of a value in [min, max]; none for masked (infinite) entries. */
export function heatClass(value, range) {
  const t = heatLevel(value, range);
  return t === null ? '' : `heat-${Math.round(t * (HEAT_LEVELS - 1))}`;
}

/** CSS rules for the heat classes. */
export const HEAT_RULES = Array.from({ length: HEAT_LEVELS }, (_, level) => {
  const rgb = viridis(level / (HEAT_LEVELS - 1));
  return `td.heat-${level} { background: rgb(${rgb.join(' ')}); color: ${textOn(rgb)}; }`;
}).join('\n');

/** Background and text colours of a heat value t in [0, 1]; null (masked) is grey. */
export function heatColors(t) {
  if (t === null) return { background: '#e6e6e6', text: '#444' };
  const rgb = viridis(t);
  return { background: `rgb(${rgb.join(',')})`, text: textOn(rgb) };
}

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
