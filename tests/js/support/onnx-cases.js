// Reads the cases scripts/onnx-cases.py dumps (ONNX's Attention test cases) and turns each
// batch item into attnlab's request pieces, by the rules of onnx/reference/ops/op_attention.py.

/** JSON has no infinities: the dump writes them (and NaN) as strings. */
function decodeTensor(t) {
  return { ...t, data: t.data.map((v) => (typeof v === 'string' ? Number(v) : v)) };
}

const decodeAll = (tensors) => Object.fromEntries(Object.entries(tensors ?? {}).map(([name, t]) => [name, decodeTensor(t)]));

export function decodeCase(c) {
  return { ...c, inputs: decodeAll(c.inputs), outputs: decodeAll(c.outputs), float32Reference: c.float32Reference && decodeAll(c.float32Reference) };
}

/** The entry of a row-major tensor at idx; an axis of length 1 broadcasts (its index is 0). */
function at(t, shape, idx) {
  let k = 0;
  for (let a = 0; a < shape.length; a++) k = k * shape[a] + (shape[a] === 1 ? 0 : idx[a]);
  return t.data[k];
}

const matrix = (rows, cols, f) => Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => f(r, c)));

/**
 * Adds `problem` to a decoded case: its sizes, ONNX's tensors indexed by (b, head, row, column)
 * whatever their rank, and item(b): batch item b as attnlab's matrices and options.
 */
export function describeCase(c) {
  const a = c.attributes;
  const { Q, K, V, attn_mask: mask, past_key: pastKey, past_value: pastValue, nonpad_kv_seqlen: nonpad } = c.inputs;
  // 3D inputs are (batch, sequence, heads·width), heads from q_num_heads/kv_num_heads; 4D
  // inputs (batch, heads, sequence, width). The cache is always 4D.
  const threeD = Q.shape.length === 3;
  const batch = Q.shape[0];
  const heads = threeD ? a.q_num_heads : Q.shape[1];
  const kvHeads = threeD ? a.kv_num_heads : K.shape[1];
  const nq = Q.shape[threeD ? 1 : 2];
  const nNew = K.shape[threeD ? 1 : 2];
  const d = threeD ? Q.shape[2] / heads : Q.shape[3];
  const dv = threeD ? V.shape[2] / kvHeads : V.shape[3];
  const nPast = pastKey ? pastKey.shape[2] : 0;
  const nk = nPast + nNew;
  const of3or4 = (t, width) => (b, h, i, col) => (threeD ? at(t, t.shape, [b, i, h * width + col]) : at(t, t.shape, [b, h, i, col]));
  const q = of3or4(Q, d);
  const kNew = of3or4(K, d);
  const vNew = of3or4(V, dv);
  const key = (b, g, j, col) => (j < nPast ? at(pastKey, pastKey.shape, [b, g, j, col]) : kNew(b, g, j - nPast, col));
  const value = (b, g, j, col) => (j < nPast ? at(pastValue, pastValue.shape, [b, g, j, col]) : vNew(b, g, j - nPast, col));
  // Query head h reads K/V head ⌊h / (heads / kvHeads)⌋ (ONNX repeats each K/V head in place).
  const groupOf = (h) => Math.floor(h / (heads / kvHeads));

  // ONNX's offset: where query 0 sits among the keys, for is_causal and the window.
  const offset = (b) => (pastKey ? nPast : nonpad ? nonpad.data[b] - nq : 0);

  // attn_mask broadcasts right-aligned to (batch, heads, n_q, keys) and, narrower than the keys
  // (cache included), is padded with False / −∞.
  const maskShape = mask && [1, 1, 1, 1, ...mask.shape].slice(-4);
  const boolean = mask?.dtype === 'bool';
  const maskAt = (b, h, i, j) => {
    if (j >= maskShape[3]) return boolean ? false : -Infinity;
    const v = at(mask, maskShape, [b, h, i, j]);
    return boolean ? v !== 0 : v;
  };

  const rules0 = {};
  if (a.is_causal) rules0.causal = true;
  const left = a.left_window_size ?? -1;
  const right = a.right_window_size ?? -1;
  if (left >= 0 || right >= 0) rules0.window = { ...(left >= 0 && { left }), ...(right >= 0 && { right }) };
  if (a.scale !== undefined) rules0.scale = a.scale;
  if (a.softcap > 0) rules0.softcap = a.softcap;

  const item = (b) => {
    const rules = { ...rules0 };
    // Without a cache ONNX's queries start at key 0: attnlab's default, top-left.
    if (pastKey || nonpad) rules.causalAlignment = offset(b);
    if (nonpad) rules.keyPadding = Array.from({ length: nk }, (_, j) => j >= nonpad.data[b]);
    const headMask = (h) => matrix(nq, nk, (i, j) => maskAt(b, h, i, j));
    const toBias = (m) => m.map((row) => row.map((v) => (v === true ? 0 : v === false ? -Infinity : v)));
    const perHead = maskShape?.[1] > 1;
    return {
      Q: matrix(nq, heads * d, (i, col) => q(b, Math.floor(col / d), i, col % d)),
      K: matrix(nNew, kvHeads * d, (j, col) => kNew(b, Math.floor(col / d), j, col % d)),
      V: matrix(nNew, kvHeads * dv, (j, col) => vNew(b, Math.floor(col / dv), j, col % dv)),
      pastKey: pastKey && matrix(nPast, kvHeads * d, (j, col) => key(b, Math.floor(col / d), j, col % d)),
      pastValue: pastKey && matrix(nPast, kvHeads * dv, (j, col) => value(b, Math.floor(col / dv), j, col % dv)),
      // [past; new]: the keys and values ONNX attends over (its present_key/present_value).
      presentKey: matrix(nk, kvHeads * d, (j, col) => key(b, Math.floor(col / d), j, col % d)),
      presentValue: matrix(nk, kvHeads * dv, (j, col) => value(b, Math.floor(col / dv), j, col % dv)),
      rules,
      mask: mask && {
        boolean,
        perHead,
        /** Head h's (n_q, n_k): booleans (true = may attend) or the float bias. */
        of: headMask,
        /** As one bias: (n_q, n_k), or (heads·n_q, n_k) with head h's rows from h·n_q. */
        asBias: () => (perHead ? Array.from({ length: heads }, (_, h) => toBias(headMask(h))).flat() : toBias(headMask(0))),
      },
    };
  };

  const problem = {
    c,
    batch,
    heads,
    kvHeads,
    nq,
    nk,
    nPast,
    d,
    dv,
    groupOf,
    offset,
    maskShape,
    rules0,
    item,
    /** Entry (b, head, i, j) of a 4D output (qk_matmul_output, present_key/value). */
    at: (t, b, h, i, j) => at(t, t.shape, [b, h, i, j]),
    /** Entry (b, head, i, column) of Y, 3D like the inputs or 4D. */
    expectedY: (t, b, h, i, col) => (threeD ? at(t, t.shape, [b, i, h * dv + col]) : at(t, t.shape, [b, h, i, col])),
  };
  return { ...c, problem };
}
