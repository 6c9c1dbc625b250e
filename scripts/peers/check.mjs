// Inputs and checks shared by the benchmarks: seeded N(0,1) matrices made in JavaScript (the
// native rows reach 16,384 × 1,024 values, beyond what the wasm core draws in one call), the
// largest difference between two outputs, and an independent float64 oracle on sampled rows.

/** n × width float32 values, N(0,1), the same for a seed in every run (mulberry32 + Box–Muller). */
export function normalValues(length, seed) {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 2 ** 32; // in (0, 1), so log() is finite
  };
  const values = new Float32Array(length);
  for (let i = 0; i < length; i += 2) {
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const angle = 2 * Math.PI * uniform();
    values[i] = r * Math.cos(angle);
    if (i + 1 < length) values[i + 1] = r * Math.sin(angle);
  }
  return values;
}

/** Q, K, V as { rows, cols, data } with cols = heads · d. */
export function seededQKV({ n, d, heads = 1, seed }) {
  return [0, 1, 2].map((i) => ({ rows: n, cols: heads * d, data: normalValues(n * heads * d, seed * 3 + i) }));
}

/** max |a − b| over two equally long arrays (Infinity if their lengths differ). */
export function maxAbsDifference(a, b) {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

/**
 * max |output − float64 attention| on 16 evenly spaced query rows of every head: Q, K, V and
 * output laid out (n, heads · d), scale 1/√d.
 */
export function sampledError(Q, K, V, output, { causal, heads = 1 }) {
  const n = Q.rows;
  const d = Q.cols / heads;
  let worst = 0;
  for (let h = 0; h < heads; h++) {
    const at = (m, row, c) => m.data[row * Q.cols + h * d + c];
    for (let s = 0; s < 16; s++) {
      const i = Math.round((s * (n - 1)) / 15);
      const keys = causal ? i + 1 : n;
      const p = new Float64Array(keys);
      let max = -Infinity;
      for (let j = 0; j < keys; j++) {
        let dot = 0;
        for (let c = 0; c < d; c++) dot += at(Q, i, c) * at(K, j, c);
        p[j] = dot / Math.sqrt(d);
        max = Math.max(max, p[j]);
      }
      let sum = 0;
      for (let j = 0; j < keys; j++) sum += p[j] = Math.exp(p[j] - max);
      for (let c = 0; c < d; c++) {
        let o = 0;
        for (let j = 0; j < keys; j++) o += (p[j] / sum) * at(V, j, c);
        worst = Math.max(worst, Math.abs(o - output[i * Q.cols + h * d + c]));
      }
    }
  }
  return worst;
}
