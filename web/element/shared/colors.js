// Two colour-blind-safe palettes, each sampled at nine evenly spaced stops:
// - sequential (viridis): magnitudes from 0 up, such as attention weights;
// - diverging (ColorBrewer RdBu, blue for negative, near-white at 0, red for positive):
//   signed values such as scores, where the sign matters as much as the size.
const PALETTES = {
  sequential: [
    [68, 1, 84],
    [71, 44, 122],
    [59, 81, 139],
    [44, 113, 142],
    [33, 144, 141],
    [39, 173, 129],
    [92, 200, 99],
    [170, 220, 50],
    [253, 231, 37],
  ],
  diverging: [
    [33, 102, 172],
    [67, 147, 195],
    [146, 197, 222],
    [209, 229, 240],
    [247, 247, 247],
    [253, 219, 199],
    [244, 165, 130],
    [214, 96, 77],
    [178, 24, 43],
  ],
  // The diverging palette on a dark background: the same blue and red, lightest at the ends
  // and a dark grey at 0, so a score of 0 is quiet rather than a glaring white cell.
  divergingDark: [
    [146, 197, 240],
    [104, 160, 214],
    [67, 122, 182],
    [45, 80, 128],
    [46, 49, 56],
    [128, 52, 50],
    [184, 72, 62],
    [226, 110, 92],
    [250, 160, 138],
  ],
};
// The palette each palette becomes on a dark background (light-dark(): color-scheme picks).
const DARK = { sequential: 'sequential', diverging: 'divergingDark' };
const rgbOf = (rgb) => `rgb(${rgb.join(' ')})`;
const onScheme = (palette, t, of) => `light-dark(${of(paletteColor(palette, t))}, ${of(paletteColor(DARK[palette], t))})`;

/** [r, g, b] for t in [0, 1] on `palette`, linearly between its stops. */
function paletteColor(palette, t) {
  const stops = PALETTES[palette];
  const x = Math.min(1, Math.max(0, t)) * (stops.length - 1);
  const i = Math.min(Math.floor(x), stops.length - 2);
  const f = x - i;
  return stops[i].map((c, k) => Math.round(c + (stops[i + 1][k] - c) * f));
}

// A palette as a left-to-right CSS gradient, for a legend, on either scheme.
const gradient = (palette) =>
  `linear-gradient(to right, ${PALETTES[palette].map((_, i, stops) => onScheme(palette, i / (stops.length - 1), rgbOf)).join(', ')})`;

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

// Heatmap cells take one of HEAT_LEVELS classes per palette (heat-0 … heat-32, and div-0 …
// div-32 for the diverging one) rather than an inline style: a class change is cheap to
// re-render, and a strict CSP has no inline styles to allow. An odd count puts a level
// exactly at the middle (16): a score of 0 on a symmetric scale.
const HEAT_LEVELS = 33;

/** Where a value sits in [min, max], from 0 to 1; null for masked (infinite) entries. */
function heatLevel(value, [min, max]) {
  if (!Number.isFinite(value)) return null;
  return max > min ? (value - min) / (max - min) : 0.5;
}

// The level (0 … HEAT_LEVELS − 1) of a heat value t in [0, 1]: the screen's classes and the
// exports' colours both use it, so they agree.
const levelOf = (t) => Math.round(Math.min(1, Math.max(0, t)) * (HEAT_LEVELS - 1));

const CLASS_PREFIX = { sequential: 'heat', diverging: 'div' };

/** The class of a heat value t in [0, 1] on `palette`; none for null (masked). */
const levelClass = (t, palette = 'sequential') => (t === null ? '' : `${CLASS_PREFIX[palette]}-${levelOf(t)}`);

/** The class of a value in [min, max] on `palette`; none for masked (infinite) entries. */
export const heatClass = (value, range, palette) => levelClass(heatLevel(value, range), palette);

// A host page may replace each palette by its ends (README, "Styling"): the weights' scale by
// --attn-heat-low and --attn-heat-high, the scores' by --attn-score-low and --attn-score-high
// through --attn-score-zero (default near-white). A level is then mixed from the ends in
// OKLab, and its text is white or black by the mix's lightness. Until both ends are set the
// mix is invalid, so var() falls back to the built-in palette.
const HOST_ENDS = {
  sequential: (t) => `color-mix(in oklab, var(--attn-heat-high) ${pct(t)}, var(--attn-heat-low))`,
  diverging: (t) =>
    t < 0.5
      ? `color-mix(in oklab, var(--attn-score-zero, rgb(247 247 247)) ${pct(2 * t)}, var(--attn-score-low))`
      : `color-mix(in oklab, var(--attn-score-high) ${pct(2 * t - 1)}, var(--attn-score-zero, rgb(247 247 247)))`,
};
const pct = (t) => `${Math.round(t * 1000) / 10}%`;
// White text below OKLab lightness 0.57 (where white and black contrast equally), else black.
const TEXT_ON_MIX = 'oklch(from var(--_mix) clamp(0, (0.57 - l) * 1000, 1) 0 0)';

/** CSS rules for the heat classes of both palettes. */
export const HEAT_RULES = Object.keys(CLASS_PREFIX)
  .flatMap((palette) =>
    Array.from({ length: HEAT_LEVELS }, (_, level) => {
      const t = level / (HEAT_LEVELS - 1);
      return `td.${CLASS_PREFIX[palette]}-${level} { --_mix: ${HOST_ENDS[palette](t)}; background: var(--_mix, ${onScheme(palette, t, rgbOf)}); color: var(--_text, ${onScheme(palette, t, textOn)}); }`;
    }),
  )
  .concat(`td[class*='heat-'], td[class*='div-'] { --_text: ${TEXT_ON_MIX}; }`)
  .join('\n');

/** The legend's ramp for each palette: the host's ends where it sets them (HOST_ENDS). */
export const RAMP_RULES = [
  `.legend .ramp { --_ramp: linear-gradient(to right, var(--attn-heat-low), var(--attn-heat-high)); background: var(--_ramp, ${gradient('sequential')}); }`,
  `.legend[data-palette='diverging'] .ramp { --_ramp: linear-gradient(to right, var(--attn-score-low), var(--attn-score-zero, rgb(247 247 247)), var(--attn-score-high)); background: var(--_ramp, ${gradient('diverging')}); }`,
].join('\n');

/**
 * Background and text colours of a heat value t in [0, 1] on `palette`, by the same levels
 * as the screen's classes (so an export matches the screen); null (masked) is grey.
 */
export function heatColors(t, palette = 'sequential') {
  if (t === null) return { background: '#e6e6e6', text: '#444' };
  const rgb = paletteColor(palette, levelOf(t) / (HEAT_LEVELS - 1));
  return { background: `rgb(${rgb.join(',')})`, text: textOn(rgb) };
}

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
// everywhere: { kind, range: [lo, hi] (the legend's ends), label, palette?, level?(value, row,
// col) }. Without `level`, a value sits linearly in `range`; without `palette`, sequential.

/** Attention weights (softmax results): always 0 to 1, so 0.3 looks the same in every matrix. */
export const WEIGHT_SCALE = Object.freeze({ kind: 'weights', range: [0, 1], label: 'weights, fixed 0 to 1' });

/**
 * Scores (and scaled or masked scores, the logits): symmetric around 0, so 0 is the middle
 * colour, out to the largest |value| of all the matrices given (what one step shows, in
 * every one of its `heads`).
 */
export function scoreScale(matrices, heads = matrices.length, kind = 'scores') {
  let bound = 0;
  // Counted loops, no call per value: at 512 tokens this walks three 512 × 512 matrices.
  for (const values of matrices)
    for (const row of values)
      for (let i = 0; i < row.length; i++) {
        const size = Math.abs(row[i]);
        if (size > bound && size !== Infinity) bound = size; // NaN is never > bound
      }
  if (!(bound > 0)) bound = 1; // all zeros (or all masked): 0 still sits in the middle
  const shared = heads > 1 ? `, shared by the ${heads} heads` : '';
  return { kind, palette: 'diverging', range: [-bound, bound], label: `${kind}, symmetric around 0${shared}` };
}

/**
 * The scale of kind 'weights', 'scores' or 'gradients' (signed like scores, on the same
 * diverging palette) for these matrices (of one step's `heads`); null otherwise.
 */
export function scaleOf(kind, matrices, heads) {
  if (kind === 'weights') return WEIGHT_SCALE;
  if (kind === 'scores' || kind === 'gradients') return scoreScale(matrices, heads, kind);
  return null;
}

/** Where a value sits on a scale, 0 to 1; null for masked entries. */
const scaleLevel = (scale, value, row, col) => (scale.level ? scale.level(value, row, col) : heatLevel(value, scale.range));

/** The class of a value at (row, col) on a scale. */
export const scaleClass = (scale, value, row, col) => levelClass(scaleLevel(scale, value, row, col), scale.palette);

/** The colours of a value at (row, col) on a scale, as heatColors gives them. */
export const scaleColors = (scale, value, row, col) => heatColors(scaleLevel(scale, value, row, col), scale.palette);
