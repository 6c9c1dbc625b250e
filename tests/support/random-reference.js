// The core's seeded generator and the scaling study, rewritten in float64 from their
// descriptions (random.hpp, scaling_study.hpp): splitmix64 for the bits, Box–Muller in double
// rounded to float32, and the study's statistics. An oracle for the fuzz test; no imports.

const MASK = (1n << 64n) - 1n;

/** splitmix64's output function on a 64-bit BigInt. */
export function mix(z) {
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
}

/** A function giving the next N(0, 1) float32 of the stream seeded with `seed` (a BigInt). */
export function normalStream(seed) {
  let state = seed & MASK;
  let spare;
  const bits = () => {
    state = (state + 0x9e3779b97f4a7c15n) & MASK;
    return mix(state);
  };
  return () => {
    if (spare !== undefined) {
      const value = spare;
      spare = undefined;
      return value;
    }
    const u1 = (Number(bits() >> 11n) + 1) * 2 ** -53; // (0, 1]
    const u2 = Number(bits() >> 11n) * 2 ** -53; // [0, 1)
    const radius = Math.sqrt(-2 * Math.log(u1));
    spare = Math.fround(radius * Math.sin(2 * Math.PI * u2));
    return Math.fround(radius * Math.cos(2 * Math.PI * u2));
  };
}

/** rows × cols values of the stream, row by row, flat. */
export function normalValues(count, seed) {
  const next = normalStream(BigInt(seed));
  return Array.from({ length: count }, next);
}

/** Mean largest weight and mean entropy (nats) of softmax rows. */
function summary(rows) {
  let maxWeight = 0;
  let entropy = 0;
  for (const w of rows) {
    maxWeight += Math.max(...w) / rows.length;
    entropy -= w.reduce((s, x) => s + (x > 0 ? x * Math.log(x) : 0), 0) / rows.length;
  }
  return { maxWeight, entropy };
}

function softmaxRow(scores, factor) {
  const max = Math.max(...scores) * factor;
  const e = scores.map((s) => Math.exp(s * factor - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

/**
 * The study for one d_k: queries from the stream mix(mix(seed) + 2·d_k), keys (keys per
 * sample, streamed) from mix(mix(seed) + 2·d_k + 1). Returns the point's fields and, per
 * sample, the raw scores with Σ|q·k| (what bounds their float32 rounding).
 */
export function scalingPoint(dk, { keys, samples, seed }) {
  const base = (mix(BigInt(seed)) + 2n * BigInt(dk)) & MASK;
  const queries = normalValues(samples * dk, mix(base));
  const keyStream = normalStream(mix((base + 1n) & MASK));
  const scores = [];
  const magnitudes = [];
  for (let s = 0; s < samples; s++) {
    const q = queries.slice(s * dk, (s + 1) * dk);
    const k = Array.from({ length: keys }, () => Array.from({ length: dk }, keyStream));
    scores.push(k.map((row) => row.reduce((sum, x, l) => sum + x * q[l], 0)));
    magnitudes.push(k.map((row) => row.reduce((sum, x, l) => sum + Math.abs(x * q[l]), 0)));
  }
  const all = scores.flat();
  const mean = all.reduce((a, b) => a + b, 0) / all.length;
  const scaled = scores.map((row) => softmaxRow(row, 1 / Math.sqrt(dk)));
  const unscaled = scores.map((row) => softmaxRow(row, 1));
  const a = summary(scaled);
  const b = summary(unscaled);
  return {
    dk,
    scoreStd: Math.sqrt(all.reduce((sum, x) => sum + (x - mean) ** 2, 0) / all.length),
    sqrtDk: Math.sqrt(dk),
    maxWeightScaled: a.maxWeight,
    maxWeightUnscaled: b.maxWeight,
    entropyScaled: a.entropy,
    entropyUnscaled: b.entropy,
    exampleScores: scores[0],
    exampleWeightsScaled: scaled[0],
    exampleWeightsUnscaled: unscaled[0],
    scores,
    magnitudes,
  };
}
