// A small seeded generator (mulberry32) so "randomise" is reproducible from its seed.
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A rows x cols matrix of values in [-1, 1], rounded to one decimal so they read easily. */
export function randomMatrix(rows, cols, random) {
  return Array.from({ length: rows }, () => Array.from({ length: cols }, () => Math.round((random() * 2 - 1) * 10) / 10));
}
