// Float64 references of the cheaper attentions (issue 37), written from the papers'
// definitions and independent of the core: linear attention (Katharopoulos et al. 2020),
// FAVOR+'s features from a given W (Choromanski et al. 2021), retention (Sun et al. 2023),
// softmax attention under a mask, the SVD of A by the Jacobi eigenvalue method on its Gram
// matrix, Linformer from given E and F (Wang et al. 2020), and the sparse patterns' rules
// (BigBird, the Sparse Transformer). Nested number[][] in and out; round inputs to float32
// first (f32), as the core sees them. Plain JavaScript with no imports.

export const f32 = (m) => m.map((row) => row.map(Math.fround));
export const transpose = (m) => m[0].map((_, j) => m.map((row) => row[j]));
export const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
export const product = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((s, x, l) => s + x * b[l][j], 0)));

// A matrix's (or a vector's) shape: each row's length (-1 for a number).
const shape = (m) => [m].flat().map((row) => (Array.isArray(row) ? row.length : -1));

/** max |got − want| / max(1, max |want|) over two equally shaped matrices (or vectors); Infinity on a shape mismatch (any row's length) or NaN. */
export function relativeError(got, want) {
  const [g, w] = [[got].flat(2), [want].flat(2)];
  if (shape(got).join() !== shape(want).join()) return Infinity;
  let [worst, biggest] = [0, 1];
  for (let i = 0; i < w.length; i++) {
    const e = Math.abs(g[i] - w[i]);
    worst = Number.isNaN(e) ? Infinity : Math.max(worst, e);
    biggest = Math.max(biggest, Math.abs(w[i]));
  }
  return worst / biggest;
}

/** Each row over its sum; a row that sums to 0 stays zeros (the zero-normaliser rule). */
export function rowsOverSums(kernel) {
  return kernel.map((row) => {
    const sum = row.reduce((s, x) => s + x, 0);
    return row.map((x) => (sum === 0 ? 0 : x / sum));
  });
}

export const FEATURE_MAPS = { elu: (x) => (x > 0 ? x + 1 : Math.exp(x)), relu: (x) => Math.max(x, 0) };

/** The kernel φ(q_i)·φ(k_j) from feature rows, 0 where causal hides key j (j > i). */
export const kernelOf = (FQ, FK, causal) => FQ.map((q, i) => FK.map((k, j) => (causal && j > i ? 0 : dot(q, k))));

/**
 * Linear attention by its definition, from feature rows FQ (n_q, m), FK (n_k, m): the kernel,
 * its rows over their sums, the output, the state Σφ(k)vᵀ (m, d_v), the key sum Σφ(k) and each
 * query's normaliser.
 */
export function linearFromFeatures(FQ, FK, V, causal) {
  const kernel = kernelOf(FQ, FK, causal);
  const weights = rowsOverSums(kernel);
  return {
    kernel,
    weights,
    output: product(weights, V),
    kvState: product(transpose(FK), V),
    keySum: transpose(FK).map((column) => column.reduce((s, x) => s + x, 0)),
    normalizer: kernel.map((row) => row.reduce((s, x) => s + x, 0)),
  };
}

/** Linear attention with φ = elu + 1 or relu applied to scale·q and k. */
export function linearReference(Q, K, V, { featureMap = 'elu', causal = false, scale = 1 }) {
  const phi = FEATURE_MAPS[featureMap];
  const features = (X, s) => X.map((row) => row.map((x) => phi(s * x)));
  return linearFromFeatures(features(Q, scale), features(K, 1), V, causal);
}

/** FAVOR+'s positive features of the rows of X under W (m, d): exp(W·y − ‖y‖²/2)/√m, y = √scale·x. */
export function favorFeatures(X, W, scale) {
  return X.map((x) => {
    const y = x.map((v) => Math.sqrt(scale) * v);
    return W.map((w) => Math.exp(dot(w, y) - dot(y, y) / 2) / Math.sqrt(W.length));
  });
}

/** Retention's parallel form: weights Q·Kᵀ ⊙ D (D_ij = γ^(i−j), j ≤ i), output, and the state Σ γ^(n−1−j) k_jᵀv_j. */
export function retentionReference(Q, K, V, decay) {
  const n = K.length;
  const weights = Q.map((q, i) => K.map((k, j) => (j > i ? 0 : dot(q, k) * decay ** (i - j))));
  const decayed = K.map((k, j) => k.map((x) => x * decay ** (n - 1 - j)));
  return { weights, output: product(weights, V), state: product(transpose(decayed), V) };
}

/** softmax(scale·Q·Kᵀ) where allowed(i, j): a row with no allowed key is zeros. */
export function softmaxWeights(Q, K, scale, allowed = () => true) {
  return Q.map((q, i) => {
    const logits = K.map((k, j) => (allowed(i, j) ? scale * dot(q, k) : -Infinity));
    const top = Math.max(...logits);
    if (top === -Infinity) return logits.map(() => 0);
    const e = logits.map((x) => Math.exp(x - top));
    const sum = e.reduce((s, x) => s + x, 0);
    return e.map((x) => x / sum);
  });
}

/** Eigenvalues (descending) and unit eigenvectors (rows of vectors) of a symmetric matrix: cyclic Jacobi rotations. */
function symmetricEigen(S) {
  const n = S.length;
  const a = S.map((row) => [...row]);
  const v = a.map((_, i) => a.map((_, j) => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p][q] ** 2;
    if (off < 1e-300) break;
    for (let p = 0; p < n; p++)
      for (let q = p + 1; q < n; q++) {
        if (a[p][q] === 0) continue;
        const theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.hypot(theta, 1));
        const c = 1 / Math.hypot(t, 1);
        const s = t * c;
        for (const m of [a, v]) for (let r = 0; r < n; r++) [m[r][p], m[r][q]] = [c * m[r][p] - s * m[r][q], s * m[r][p] + c * m[r][q]];
        for (let r = 0; r < n; r++) [a[p][r], a[q][r]] = [c * a[p][r] - s * a[q][r], s * a[p][r] + c * a[q][r]];
      }
  }
  const order = a.map((_, i) => i).sort((i, j) => a[j][j] - a[i][i]);
  return { values: order.map((i) => a[i][i]), vectors: order.map((i) => v.map((row) => row[i])) };
}

/**
 * A's singular values (descending) and A_k, its best rank-k approximation, from the
 * eigen-decomposition of its smaller Gram matrix: B's right singular vectors W give B_k = B·W_kᵀ·W_k.
 */
export function svdReference(A) {
  const wide = A.length <= A[0].length;
  const B = wide ? transpose(A) : A;
  const { values, vectors } = symmetricEigen(product(transpose(B), B));
  const sigma = values.map((l) => Math.sqrt(Math.max(l, 0)));
  const truncated = (k) => {
    const W = vectors.slice(0, k);
    const Bk = product(product(B, transpose(W)), W);
    return wide ? transpose(Bk) : Bk;
  };
  return { sigma, truncated };
}

/** The projector onto the span of A's top k left singular vectors: U_k·U_kᵀ (rows, rows), from the eigenvectors of A·Aᵀ. */
export function leftProjector(A, k) {
  const U = symmetricEigen(product(A, transpose(A))).vectors.slice(0, k);
  return product(transpose(U), U);
}

/** Linformer from E, F (k, n_k): P = softmax(scale·Q·(E·K)ᵀ) (n_q, k), weights P·F, output P·(F·V). */
export function linformerReference(Q, K, V, E, F, scale) {
  const projected = softmaxWeights(Q, product(E, K), scale);
  return { projected, weights: product(projected, F), output: product(projected, product(F, V)) };
}

/** The sparse patterns' fixed rules: the window counted in blocks, global rows and columns, the stride. */
export function fixedPattern({ queries, keys = queries, window = 0, globalTokens = [], stride = 0, blockSize = 0 }) {
  const b = Math.max(blockSize, 1);
  const global = (p) => globalTokens.includes(p);
  return Array.from({ length: queries }, (_, i) =>
    Array.from(
      { length: keys },
      (_, j) =>
        (window > 0 && Math.abs(Math.floor(i / b) - Math.floor(j / b)) < window) || global(i) || global(j) || (stride > 0 && Math.abs(i - j) % stride === 0),
    ),
  );
}

/**
 * BigBird's random part, per query block: the key blocks no cell of which the fixed pattern
 * allows to the block's non-global queries (the ones a random draw may take), as
 * { first, last, free: block indices } for each query block.
 */
export function freeKeyBlocks(fixed, { blockSize = 0, globalTokens = [] }) {
  const b = Math.max(blockSize, 1);
  const [nq, nk] = [fixed.length, fixed[0].length];
  const blocks = [];
  for (let first = 0; first < nq; first += b) {
    const last = Math.min(first + b, nq);
    const rows = [];
    for (let i = first; i < last; i++) if (!globalTokens.includes(i)) rows.push(i);
    const free = [];
    for (let kb = 0; kb * b < nk && rows.length; kb++) {
      const cols = Array.from({ length: Math.min(b, nk - kb * b) }, (_, c) => kb * b + c);
      if (rows.every((i) => cols.every((j) => !fixed[i][j]))) free.push(kb);
    }
    blocks.push({ first, last, free });
  }
  return blocks;
}
