// The cheaper attentions' steps for the NumPy and PyTorch exports (trace({ family })): linear
// attention's features, state, normaliser and implied weights, retention's decay, state and
// weights (the aggregate is softmax's A @ V, forward-export.js). What the core chose is read
// off the step: φ and the factor it multiplied the input by, γ, whether the keys after a query
// were hidden; FAVOR+'s random rows W off the trace (the same for every head). A linear step is
// told from retention's by its operands (φ(Q), φ(K)), so a step that lacks its field is
// refused, never computed as the other.
/** One line of math for both languages. */
const same = (...lines) => ({ numpy: lines, torch: lines });

const factorField = (step) => ({ name: 'factor', kind: 'scalar', value: step.featureScale, note: 'what multiplies the input before φ' });

// φ of each entry (elu, relu) or of each whole row (favor) of factor · M.
const FEATURE_LINES = {
  elu: {
    numpy: ['x = M * factor', 'np.where(x > 0, x + 1, np.exp(np.minimum(x, 0)))  # elu(x) + 1'],
    torch: ['x = M * factor', 'torch.where(x > 0, x + 1, torch.exp(torch.clamp(x, max=0)))  # elu(x) + 1'],
  },
  relu: { numpy: ['np.maximum(M * factor, 0)'], torch: ['torch.clamp(M * factor, min=0)'] },
  favor: {
    numpy: ['x = M * factor', 'np.exp(x @ W.T - (x * x).sum(axis=1, keepdims=True) / 2) / np.sqrt(np.float32(len(W)))'],
    torch: ['x = M * factor', 'torch.exp(x @ W.T - torch.sum(x * x, dim=1, keepdim=True) / 2) / math.sqrt(len(W))'],
  },
};

function features(step) {
  const lines = FEATURE_LINES[step.featureMap] ?? FEATURE_LINES.elu;
  const favor = step.featureMap === 'favor';
  return {
    operands: ['M'],
    fields: (s, trace) => [
      factorField(s),
      ...(favor ? [{ name: 'W', kind: 'matrix', value: trace.randomFeatures, note: 'FAVOR+’s m random rows (m, d_k), drawn by the core from its seed' }] : []),
      // Read last, so a step without its φ is refused rather than exported as elu.
      ...(FEATURE_LINES[s.featureMap] ? [] : [{ name: 'feature_map', kind: 'int', value: undefined, note: 'which φ the core applied' }]),
    ],
    ...lines,
  };
}

const isLinear = (step) => step.operands[0]?.name === 'feature-q' || step.operands[0]?.name === 'feature-k';
const causalField = (step) => ({ name: 'causal', kind: 'bool', value: step.causal, note: 'query i sees keys j ≤ i only' });
const gammaField = (step) => ({ name: 'gamma', kind: 'scalar', value: step.decay, note: 'the decay γ' });

// The kernel φ(Q)·φ(K)ᵀ with the keys after each query at 0 when causal.
const kernel = {
  numpy: ['kernel = FQ @ FK.T', 'kernel = np.tril(kernel) if causal else kernel'],
  torch: ['kernel = FQ @ FK.T', 'kernel = torch.tril(kernel) if causal else kernel'],
};

/** @type {Record<string, (step: object) => import('./export-code.js').ExportMath>} */
export const FAMILY_MATH = {
  'feature-q': features,
  'feature-k': features,
  // Linear: φ(K)ᵀV. Retention: S_t = γ·S_{t−1} + k_tᵀv_t from S_0 = 0, token by token as the core.
  'kv-state': (step) =>
    isLinear(step)
      ? { operands: ['FK', 'V'], ...same('FK.T @ V') }
      : {
          operands: ['K', 'V'],
          fields: (s) => [gammaField(s)],
          numpy: ['S = np.zeros((K.shape[1], V.shape[1]), dtype=np.float32)', 'for k, v in zip(K, V):', '    S = gamma * S + np.outer(k, v)', 'S'],
          torch: ['S = torch.zeros(K.shape[1], V.shape[1])', 'for k, v in zip(K, V):', '    S = gamma * S + torch.outer(k, v)', 'S'],
        },
  normalizer: () => ({
    operands: ['FQ', 'FK'],
    fields: (s) => [causalField(s)],
    numpy: [...kernel.numpy, 'kernel.sum(axis=1, keepdims=True)'],
    torch: [...kernel.torch, 'torch.sum(kernel, dim=1, keepdim=True)'],
  }),
  // D_ij = γ^(i−j) below the diagonal, 0 above, the powers in float64 as the core takes them.
  decay: () => ({
    operands: [],
    fields: (s) => [gammaField(s), { name: 'n', kind: 'int', value: s.shape[0], note: 'the tokens' }],
    numpy: ['i, j = np.arange(n)[:, None], np.arange(n)[None, :]', 'np.where(j <= i, np.float64(gamma) ** np.maximum(i - j, 0), 0).astype(np.float32)'],
    torch: [
      'i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]',
      'g = torch.tensor(gamma, dtype=torch.float32).to(torch.float64)',
      'torch.where(j <= i, g ** torch.clamp(i - j, min=0), torch.zeros_like(g)).to(torch.float32)',
    ],
  }),
  // Linear: the kernel over its row's z (a row with z = 0 stays zeros). Retention: QKᵀ ⊙ D.
  'implied-weights': (step) =>
    isLinear(step)
      ? {
          operands: ['FQ', 'FK', 'z'],
          fields: (s) => [causalField(s)],
          numpy: [...kernel.numpy, 'np.divide(kernel, z, out=np.zeros_like(kernel), where=z != 0)'],
          torch: [...kernel.torch, 'torch.where(z != 0, kernel / torch.where(z != 0, z, torch.ones_like(z)), torch.zeros_like(kernel))'],
        }
      : { operands: ['Q', 'K', 'D'], ...same('(Q @ K.T) * D') },
};
