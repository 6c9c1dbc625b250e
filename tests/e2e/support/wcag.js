// WCAG 2 colour arithmetic for the tests, written from the definitions (relative luminance
// and contrast ratio), sharing nothing with the element's own colours.js.

/** The relative luminance of a computed CSS colour "rgb(r, g, b)" or "rgba(…)". */
export function luminance(css) {
  const [r, g, b] = css
    .match(/[\d.]+/g)
    .slice(0, 3)
    .map((c) => {
      const s = Number(c) / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The contrast ratio of two CSS colours, 1 to 21. */
export function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
