// A float64 reference of attention with the frameworks' options (docs/javascript.md), written
// from the documented rules, for the option fuzz: the keys are [pastKey; K]; query i sits at
// key i (top-left) or i + n_k − n_q (bottom-right, the default with a pastKey); the causal rule
// and the window (a number w: |p − j| < w; { left, right }: p − left … p + right) place it
// there, global tokens are exempt from the window both ways; padding, the mask and a −∞ bias
// block a key; the logits are softcap·tanh(s / softcap) (s = q·k · scale / temperature) plus the
// bias and ALiBi's −m_h·|p − j|. A row with no key is zeros.

/** { weights (n_q × n_k, 0 where blocked), output (n_q × d_v) } of one head. */
export function headReference({ Q, K, V, scale, temperature = 1, softcap, bias, slope = 0, causal, alignment, window, globalTokens = [], keyPadding, mask }) {
  const [nq, nk] = [Q.length, K.length];
  const offset = typeof alignment === 'number' ? alignment : alignment === 'bottom-right' ? nk - nq : 0;
  const factor = (scale ?? 1 / Math.sqrt(Q[0].length)) / temperature;
  const sides =
    typeof window === 'object' && window !== null
      ? [window.left ?? Infinity, window.right ?? Infinity]
      : window > 0
        ? [window - 1, window - 1]
        : [Infinity, Infinity];
  const global = (p) => globalTokens.includes(p);
  const weights = Q.map((q, i) => {
    const p = i + offset;
    const logits = K.map((k, j) => {
      const outside = j < p - sides[0] || j > p + sides[1];
      if ((causal && j > p) || (outside && !global(p) && !global(j)) || keyPadding?.[j] || (mask && !mask[i][j]) || bias?.[i][j] === -Infinity)
        return -Infinity;
      let s = q.reduce((sum, x, c) => sum + x * k[c], 0) * factor;
      if (softcap !== undefined) s = softcap * Math.tanh(s / softcap);
      return s + (bias?.[i][j] ?? 0) - slope * Math.abs(p - j);
    });
    const max = Math.max(...logits);
    if (max === -Infinity) return logits.map(() => 0);
    const e = logits.map((x) => Math.exp(x - max));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / sum);
  });
  const output = weights.map((row) => V[0].map((_, c) => row.reduce((sum, w, j) => sum + w * V[j][c], 0)));
  return { weights, output };
}

/** Columns [from, from + count) of a nested matrix. */
export const slice = (m, from, count) => m.map((row) => row.slice(from, from + count));

/** Aᵀ·B of nested matrices. */
export const transposeTimes = (a, b) => a[0].map((_, i) => b[0].map((_, c) => a.reduce((sum, row, r) => sum + row[i] * b[r][c], 0)));

/** The largest |a − b| over two nested matrices of one shape. */
export const worstDifference = (a, b) => Math.max(0, ...a.flatMap((row, i) => row.map((x, j) => Math.abs(x - b[i][j]))));
