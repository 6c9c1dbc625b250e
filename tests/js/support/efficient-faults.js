// One fault each, for fuzz-efficient.test.js: spoil(request, r) makes a valid request of a
// cheaper-attention family invalid in one way; the entry must throw an AttnLabError with `code`
// whose message names `field` (the README's Errors; attnlab.d.ts for each field's range).

/** A copy of matrix m (nested, or flat { rows, cols, data }) with row·col entry set to value. */
function poke(m, r, value) {
  if (Array.isArray(m)) {
    const i = r.int(0, m.length - 1);
    m[i][r.int(0, m[i].length - 1)] = value;
  } else {
    m.data = Array.from(m.data);
    m.data[r.int(0, m.data.length - 1)] = value;
  }
  return m;
}
/** m with `rows` more rows (and `cols` more columns) of zeros. */
function grow(m, rows, cols = 0) {
  const nested = Array.isArray(m) ? m : Array.from({ length: m.rows }, (_, i) => Array.from(m.data).slice(i * m.cols, (i + 1) * m.cols));
  const width = nested[0].length + cols;
  const out = nested.map((row) => [...row, ...Array(cols).fill(0)]).concat(Array.from({ length: rows }, () => Array(width).fill(0)));
  return Array.isArray(m) ? out : { rows: out.length, cols: width, data: Float32Array.from(out.flat()) };
}
const rowsOf = (m) => (Array.isArray(m) ? m.length : m.rows);
const colsOf = (m) => (Array.isArray(m) ? m[0].length : m.cols);
/** field: the name the message must hold, or a function of the spoiled request giving it. */
const fault = (name, field, code, spoil) => ({ name, field, code, spoil });
/** req without the keys (absent, not undefined). */
const without = (req, ...keys) => (keys.forEach((key) => delete req[key]), req);
const set = (values) => (req, r) => Object.assign(req, r.pick(values));
const bad = (name) => (req, r) => ((req[name] = poke(req[name], r, r.pick([NaN, Infinity, -Infinity]))), req);

const MATRIX_FAULTS = [
  fault('NaN or ±Infinity in Q', 'Q', 'non-finite', bad('Q')),
  fault('NaN or ±Infinity in K', 'K', 'non-finite', bad('K')),
  fault('NaN or ±Infinity in V', 'V', 'non-finite', bad('V')),
  fault('V with a row more than K', 'V', 'shape-mismatch', (req) => ((req.V = grow(req.V, 1)), req)),
  fault('K wider than Q', 'K', 'shape-mismatch', (req) => ((req.K = grow(req.K, 0, 1)), req)),
];
const SCALE = fault('scale 0, negative, NaN or Infinity', 'scale', 'invalid-argument', set([{ scale: 0 }, { scale: -1 }, { scale: NaN }, { scale: Infinity }]));
const FORM = fault('an unknown form', 'form', 'invalid-argument', set([{ form: 'chunked' }, { form: 'Parallel' }, { form: 1 }]));
// One or two keys (and values) more, so that n_q ≠ n_k whatever they were.
const moreKeys = (req) => {
  const more = rowsOf(req.Q) === rowsOf(req.K) + 1 ? 2 : 1;
  return Object.assign(req, { K: grow(req.K, more), V: grow(req.V, more) });
};
const causalRows = (req) => moreKeys(Object.assign(req, { causal: true }));

export const FAULTS = {
  linear: [
    ...MATRIX_FAULTS,
    SCALE,
    FORM,
    fault('an unknown featureMap', 'featureMap', 'invalid-argument', set([{ featureMap: 'softmax' }, { featureMap: 'ELU' }, { featureMap: null }])),
    fault('features without favor', 'features', 'invalid-argument', set([{ features: 8 }])),
    fault('a seed without favor', 'seed', 'invalid-argument', set([{ seed: 2 }])),
    fault('causal not a boolean', 'causal', 'invalid-argument', set([{ causal: 'yes' }, { causal: 1 }])),
    fault('causal with n_q ≠ n_k', 'Q', 'shape-mismatch', causalRows),
    fault("retention's decay", 'decay', 'invalid-argument', set([{ decay: 0.5 }])),
  ],
  favor: [
    ...MATRIX_FAULTS,
    SCALE,
    FORM,
    fault('features 0 or fractional or text', 'features', 'invalid-argument', set([{ features: 0 }, { features: 2.5 }, { features: '8' }, { features: -3 }])),
    fault('features past limits().favorFeatures', 'features', 'too-large', set([{ features: 4097 }, { features: 1e6 }])),
    fault('a negative or fractional seed', 'seed', 'invalid-argument', set([{ seed: -1 }, { seed: 1.5 }, { seed: '1' }])),
    fault('causal with n_q ≠ n_k', 'Q', 'shape-mismatch', causalRows),
  ],
  retention: [
    ...MATRIX_FAULTS,
    FORM,
    fault(
      'decay outside (0, 1]',
      'decay',
      'invalid-argument',
      set([{ decay: 0 }, { decay: -0.5 }, { decay: 1.5 }, { decay: NaN }, { decay: Infinity }, { decay: '0.5' }]),
    ),
    fault('no decay', 'decay', 'invalid-argument', (req) => (delete req.decay, req)),
    fault('Q and K of different rows', 'Q', 'shape-mismatch', moreKeys),
    fault("linear attention's featureMap", 'featureMap', 'invalid-argument', set([{ featureMap: 'elu' }])),
  ],
  lowRank: [
    ...MATRIX_FAULTS,
    SCALE,
    fault('rank 0, negative or fractional', 'rank', 'invalid-argument', set([{ rank: 0 }, { rank: -1 }, { rank: 1.5 }, { rank: '1' }])),
    fault('no rank', 'rank', 'invalid-argument', (req) => (delete req.rank, req)),
    fault('rank past the keys', 'rank', 'invalid-argument', (req) => Object.assign(req, { rank: rowsOf(req.K) + 1 })),
    fault('an unknown method', 'method', 'invalid-argument', set([{ method: 'nystrom' }, { method: 'SVD' }])),
    fault('causal with linformer', 'causal', 'invalid-argument', (req) => Object.assign(without(req, 'E', 'F', 'seed'), { method: 'linformer', causal: true })),
    fault('E without F', 'F', 'invalid-argument', (req) =>
      Object.assign(without(req, 'causal', 'seed', 'F'), { method: 'linformer', E: Array.from({ length: req.rank }, () => Array(rowsOf(req.K)).fill(1)) }),
    ),
    fault('E of the wrong shape', 'E', 'shape-mismatch', (req) => {
      const E = Array.from({ length: req.rank }, () => Array(rowsOf(req.K) + 1).fill(1));
      return Object.assign(without(req, 'causal', 'seed'), { method: 'linformer', E, F: E.map((row) => row.slice(1)) });
    }),
  ],
  sparse: [
    fault('queries 0, fractional or missing', 'queries', 'invalid-argument', (req, r) =>
      r.chance(0.3) ? without(req, 'queries') : Object.assign(req, r.pick([{ queries: 0 }, { queries: 2.5 }])),
    ),
    fault('queries past limits().sparseTokens', 'queries', 'too-large', set([{ queries: 70_000, keys: 1 }])),
    fault('keys 0 or negative', 'keys', 'invalid-argument', set([{ keys: 0 }, { keys: -2 }])),
    fault('more cells than limits().sparseCells', 'cells', 'too-large', set([{ queries: 4096, keys: 4096, globalTokens: [], random: 0 }])),
    fault('a negative or fractional window', 'window', 'invalid-argument', set([{ window: -1 }, { window: 1.5 }])),
    fault('an empty pattern', 'window', 'invalid-argument', set([{ window: 0, globalTokens: [], random: 0, stride: 0 }])),
    fault('a global token past the positions', 'globalTokens', 'invalid-argument', (req) =>
      Object.assign(req, { globalTokens: [Math.max(req.queries, req.keys ?? req.queries)] }),
    ),
    fault(
      'globalTokens not an array of whole numbers',
      'globalTokens',
      'invalid-argument',
      set([{ globalTokens: '0' }, { globalTokens: [-1] }, { globalTokens: [0.5] }]),
    ),
    fault('more random keys than key blocks', 'random', 'invalid-argument', (req) => {
      const b = Math.max(req.blockSize ?? 0, 1);
      return Object.assign(req, { random: Math.ceil((req.keys ?? req.queries) / b) + 1 });
    }),
    fault('a negative or fractional stride', 'stride', 'invalid-argument', set([{ stride: -1 }, { stride: 0.5 }])),
    fault('a negative blockSize', 'blockSize', 'invalid-argument', set([{ blockSize: -2 }])),
    fault('a negative seed', 'seed', 'invalid-argument', set([{ seed: -1 }])),
    fault('headWidth 0', 'headWidth', 'invalid-argument', set([{ headWidth: 0 }])),
    fault('a field of attention()', 'causal', 'invalid-argument', set([{ causal: true }])),
  ],
  long: [
    fault('NaN or ±Infinity in Q', 'Q', 'non-finite', bad('Q')),
    fault('NaN or ±Infinity in V', 'V', 'non-finite', bad('V')),
    fault('heads not dividing Q', 'heads', 'invalid-argument', (req) => Object.assign(without(req, 'kvHeads'), { heads: colsOf(req.Q) + 1 })),
    fault('kvHeads not dividing heads', 'kvHeads', 'invalid-argument', (req) => Object.assign(req, { kvHeads: req.heads + 1 })),
    fault('batch not dividing the rows', 'batch', 'invalid-argument', (req) => Object.assign(req, { batch: rowsOf(req.Q) + 1 })),
    fault('chunk past limits().longChunk', 'chunk', 'too-large', set([{ chunk: 1025 }])),
    fault('a negative chunk', 'chunk', 'invalid-argument', set([{ chunk: -1 }])),
    fault('negative threads', 'threads', 'invalid-argument', set([{ threads: -1 }])),
    fault(
      'decay outside (0, 1] (retention) or favor features (linear)',
      (req) => (req.featureMap === 'favor' ? 'featureMap' : 'decay'),
      'invalid-argument',
      (req) => (req.decay === undefined ? Object.assign(req, { featureMap: 'favor' }) : Object.assign(req, { decay: 1.5 })),
    ),
    fault('causal rows that differ', 'rows', 'shape-mismatch', (req) =>
      moreKeys(Object.assign(req, { batch: 1, ...(req.decay === undefined && { causal: true }) })),
    ),
  ],
};
