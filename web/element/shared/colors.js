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

// Heatmap cells take one of HEAT_LEVELS classes (heat-0 … heat-32) rather than an inline
// style: a class change is cheap to re-render, and a strict CSP has no inline styles to allow.
// An odd count puts a level exactly at the middle (heat-16): a score of 0 on a symmetric scale.
const HEAT_LEVELS = 33;

/** Where a value sits in [min, max], from 0 to 1; null for masked (infinite) entries. */
export function heatLevel(value, [min, max]) {
  if (!Number.isFinite(value)) return null;
  return max > min ? (value - min) / (max - min) : 0.5;
}

// The level (0 … HEAT_LEVELS − 1) of a heat value t in [0, 1]: the screen's classes and the
// exports' colours both use it, so they agree.
const levelOf = (t) => Math.round(Math.min(1, Math.max(0, t)) * (HEAT_LEVELS - 1));

/** The class of a heat value t in [0, 1]; none for null (masked). */
export const levelClass = (t) => (t === null ? '' : `heat-${levelOf(t)}`);

/** The class of a value in [min, max]; none for masked (infinite) entries. */
export const heatClass = (value, range) => levelClass(heatLevel(value, range));

/** CSS rules for the heat classes. */
export const HEAT_RULES = Array.from({ length: HEAT_LEVELS }, (_, level) => {
  const rgb = viridis(level / (HEAT_LEVELS - 1));
  return `td.heat-${level} { background: rgb(${rgb.join(' ')}); color: ${textOn(rgb)}; }`;
}).join('\n');

/**
 * Background and text colours of a heat value t in [0, 1], by the same levels as the
 * screen's classes (so an export matches the screen); null (masked) is grey.
 */
export function heatColors(t) {
  if (t === null) return { background: '#e6e6e6', text: '#444' };
  const rgb = viridis(levelOf(t) / (HEAT_LEVELS - 1));
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

// ---- Colour scales ----
// A scale says how values become colours, and the legend names it, so colours mean the same
// everywhere: { kind, range: [lo, hi] (the legend's ends), label, level?(value, row, col) }.
// Without `level`, a value sits linearly in `range`.

/** Attention weights (softmax results): always 0 to 1, so 0.3 looks the same in every matrix. */
export const WEIGHT_SCALE = Object.freeze({ kind: 'weights', range: [0, 1], label: 'weights, fixed 0 to 1' });

/**
 * Scores (and scaled or masked scores, the logits): symmetric around 0, so 0 is the middle
 * colour, out to the largest |value| of all the matrices given (what one step shows, in
 * every one of its `heads`).
 */
export function scoreScale(matrices, heads = matrices.length) {
  let bound = 0;
  for (const values of matrices) for (const row of values) for (const v of row) if (Number.isFinite(v)) bound = Math.max(bound, Math.abs(v));
  if (!(bound > 0)) bound = 1; // all zeros (or all masked): 0 still sits in the middle
  const shared = heads > 1 ? `, shared by the ${heads} heads` : '';
  return { kind: 'scores', range: [-bound, bound], label: `scores, symmetric around 0${shared}` };
}

/** The scale of kind 'weights' or 'scores' for these matrices (of one step's `heads`); null otherwise. */
export function scaleOf(kind, matrices, heads) {
  if (kind === 'weights') return WEIGHT_SCALE;
  if (kind === 'scores') return scoreScale(matrices, heads);
  return null;
}

/** Where a value sits on a scale, 0 to 1; null for masked entries. */
export const scaleLevel = (scale, value, row, col) => (scale.level ? scale.level(value, row, col) : heatLevel(value, scale.range));
