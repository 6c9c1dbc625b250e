// The NumPy export's backward block (backward-steps.js names its variables): after the
// forward loop, from dY (the trace's grad-output values) back through W_O, each head's
// softmax and scale, to Q, K, V and, with tokens, W_Q, W_K, W_V and X.
const pyMatrix = (m) => `np.array([${m.map((row) => `[${row.join(', ')}]`).join(', ')}], dtype=np.float32)`;

/** The lines after the forward loop (which keeps each head's `weights` in all_weights). */
export function numpyBackward(state, dOutput, entry, record) {
  const perHead = (line) => (entry.perHead && line === 'RECORD' ? `    ${record(entry)}` : line);
  return [
    `dY = ${pyMatrix(dOutput)}`,
    'concat = np.concatenate(outputs, axis=1)',
    ...(state.Wo ? ['dC = dY @ Wo.T'] : ['dC = dY']),
    'dQ, dK, dV = np.zeros_like(Q), np.zeros_like(K), np.zeros_like(V)',
    'for h in range(heads):',
    '    q, k, v = Q[:, h*d_k:(h+1)*d_k], K[:, h*d_k:(h+1)*d_k], V[:, h*d_v:(h+1)*d_v]',
    '    weights, dO = all_weights[h], dC[:, h*d_v:(h+1)*d_v]',
    '    dA = dO @ v.T',
    '    dScaled = weights * (dA - (dA * weights).sum(axis=1, keepdims=True))',
    '    dS = dScaled * factor',
    '    dQ[:, h*d_k:(h+1)*d_k], dK[:, h*d_k:(h+1)*d_k], dV[:, h*d_v:(h+1)*d_v] = dS @ k, dS.T @ q, weights.T @ dO',
    perHead('RECORD'),
    ...(state.mode === 'x' ? [`Wq, Wk, Wv = ${pyMatrix(state.Wq)}, ${pyMatrix(state.Wk)}, ${pyMatrix(state.Wv)}`] : []),
    ...(entry.perHead ? [] : [record(entry)]),
  ].filter((line) => line !== 'RECORD');
}
