// A float64 reference of the long-sequence request (lab.flashAttention's), written from the
// frameworks' definitions, independent of the core: query i sits at key i (top-left), at
// i + n_k − n_q (bottom-right) or at i + p (an integer alignment p, ONNX's offset); key j is allowed when not after it (causal), inside the window
// (a number w: |p − j| < w; { left, right }: p − left ≤ j ≤ p + right, a side left out not
// limiting), not padding, and not −Infinity in the bias (one (n_q, n_k) for every head, or head
// h's rows of one per head); the logit is c·tanh(q·k·scale / c) − m_h·|p − j| + bias, with
// ALiBi's m_h = 2^(−8(h+1)/heads). One sequence (batch 1). Plain JavaScript with no imports.

/** The key position of query i. */
export function queryPosition({ Q, K, causalAlignment = 'top-left' }, i) {
  return i + (typeof causalAlignment === 'number' ? causalAlignment : causalAlignment === 'bottom-right' ? K.rows - Q.rows : 0);
}

/** The keys query i may see by position alone (causal and window), as a predicate on j. */
export function positionAllows(request, i) {
  const { causal = false, window = 0 } = request;
  const p = queryPosition(request, i);
  const [left, right] =
    typeof window === 'number' ? (window > 0 ? [window - 1, window - 1] : [Infinity, Infinity]) : [window.left ?? Infinity, window.right ?? Infinity];
  return (j) => !(causal && j > p) && j >= p - left && j <= p + right;
}

/** The weights (Float64Array over all keys) of row i of query head h, or null when no key is allowed. */
export function referenceWeights(request, h, i) {
  const { Q, K, heads = 1, kvHeads = 0, keyPadding, softcap, bias, alibi = false } = request;
  const d = Q.cols / heads;
  const g = Math.floor(h / (heads / (kvHeads || heads)));
  const p = queryPosition(request, i);
  const scale = request.scale ?? 1 / Math.sqrt(d);
  const slope = alibi ? 2 ** ((-8 * (h + 1)) / heads) : 0;
  const biasRow = bias && bias.rows !== Q.rows ? h * Q.rows + i : i;
  const allows = positionAllows(request, i);
  const logits = new Float64Array(K.rows).fill(-Infinity);
  let top = -Infinity;
  for (let j = 0; j < K.rows; j++) {
    const b = bias ? bias.data[biasRow * K.rows + j] : 0;
    if (!allows(j) || keyPadding?.[j] || b === -Infinity) continue;
    let s = 0;
    for (let c = 0; c < d; c++) s += Q.data[i * Q.cols + h * d + c] * K.data[j * K.cols + g * d + c];
    s *= scale;
    if (softcap !== undefined) s = softcap * Math.tanh(s / softcap);
    logits[j] = s - slope * Math.abs(p - j) + b;
    top = Math.max(top, logits[j]);
  }
  if (top === -Infinity) return null;
  let sum = 0;
  for (let j = 0; j < K.rows; j++) sum += logits[j] = Math.exp(logits[j] - top);
  return logits.map((x) => x / sum);
}

/** Row i of query head h's output in float64, or null when no key is allowed. */
export function referenceRow(request, h, i) {
  const { V, heads = 1, kvHeads = 0 } = request;
  const weights = referenceWeights(request, h, i);
  if (!weights) return null;
  const kv = kvHeads || heads;
  const g = Math.floor(h / (heads / kv));
  const dv = V.cols / kv;
  const out = new Float64Array(dv);
  for (let j = 0; j < weights.length; j++) {
    if (weights[j] === 0) continue;
    for (let c = 0; c < dv; c++) out[c] += weights[j] * V.data[j * V.cols + g * dv + c];
  }
  return out;
}

/**
 * The largest |output − reference| over `rows` and every head of a { output, fullyMaskedRows }
 * result (a head with no allowed key must be zeros), and the rows among them that the
 * reference leaves without a key in every head.
 */
export function referenceError(result, request, rows) {
  const heads = request.heads ?? 1;
  const dv = result.output.cols / heads;
  let worst = 0;
  const masked = [];
  for (const i of rows) {
    let blind = 0;
    for (let h = 0; h < heads; h++) {
      const want = referenceRow(request, h, i);
      if (!want) blind++;
      for (let c = 0; c < dv; c++) {
        const got = result.output.data[i * result.output.cols + h * dv + c];
        worst = Math.max(worst, Number.isNaN(got) ? Infinity : Math.abs(got - (want ? want[c] : 0)));
      }
    }
    if (blind === heads) masked.push(i);
  }
  return { worst, masked };
}
