// Exports of the step on view: its matrices as CSV and JSON, its formula as LaTeX, code that
// reproduces it in NumPy and in PyTorch, and its result heatmap as SVG. All of them format
// what the trace holds; none computes attention.
import { finiteRange, scaleColors } from '../shared/colors.js';
import { numpyBackward } from './backward-export.js';
import { stepEntry } from './registry.js';

// A label (text from the learner or a shared link) as a CSV field. A spreadsheet runs a cell
// that starts with = + - @, a tab or a CR as a formula, so such text gets a leading ' (OWASP's
// advice for CSV injection); every label is quoted, its quotes doubled. Number cells stay
// bare: -0.25 is a number, not a formula.
const textCell = (text) => `"${(/^[=+\-@\t\r]/.test(text) ? `'${text}` : text).replaceAll('"', '""')}"`;
const number = (v) => (v === -Infinity ? '-inf' : String(v));

/** A matrix as CSV with a header row of column labels and a first column of row labels. */
export function toCsv(values, rowLabels, colLabels) {
  const header = ['', ...colLabels].map(textCell).join(',');
  return [header, ...values.map((row, r) => [textCell(rowLabels[r]), ...row.map(number)].join(','))].join('\n') + '\n';
}

/** The trace steps with this id (one per head) as JSON; -Infinity (masked) becomes null. */
export function toJson(steps) {
  return `${JSON.stringify(
    steps.map(({ id, head, title, formula, shape, values }) => ({ id, head, title, formula, shape, values })),
    (key, value) => (value === -Infinity ? null : value),
    2,
  )}\n`;
}

const pyNumber = (v) => (v === -Infinity ? '-np.inf' : String(v));
const pyMatrix = (m) => `np.array([${m.map((row) => `[${row.map(pyNumber).join(', ')}]`).join(', ')}], dtype=np.float32)`;
const pyBools = (m) => `np.array([${m.map((row) => `[${row.map((b) => (b ? 'True' : 'False')).join(', ')}]`).join(', ')}])`;

// The lines that build Q, K and V (projecting X when the state has tokens).
function numpyInputs(state) {
  if (state.mode === 'qkv') return [`Q = ${pyMatrix(state.Q)}`, `K = ${pyMatrix(state.K)}`, `V = ${pyMatrix(state.V)}`];
  const lines = [`X = ${pyMatrix(state.X)}`];
  if (state.positional === 'sinusoidal') {
    lines.push(
      'pos = np.arange(X.shape[0])[:, None]',
      'pair = (np.arange(X.shape[1]) // 2 * 2)[None, :]',
      'angle = pos / np.power(10000.0, pair / X.shape[1])',
      'PE = np.where(np.arange(X.shape[1]) % 2 == 0, np.sin(angle), np.cos(angle)).astype(np.float32)',
      'X = X + PE',
    );
  }
  lines.push(`Q = X @ ${pyMatrix(state.Wq)}`, `K = X @ ${pyMatrix(state.Wk)}`, `V = X @ ${pyMatrix(state.Wv)}`);
  return lines;
}

// The boolean "may attend" matrix of the state's masks, as NumPy lines (none when no mask).
function numpyMask(state) {
  const lines = ['allowed = np.ones((Q.shape[0], K.shape[0]), dtype=bool)'];
  if (state.causal) lines.push('allowed &= np.tril(np.ones_like(allowed))');
  if (state.keyPadding.some(Boolean)) lines.push(`allowed &= ~np.array([${state.keyPadding.map((p) => (p ? 'True' : 'False')).join(', ')}])[None, :]`);
  if (state.mask) lines.push(`allowed &= ${pyBools(state.mask)}`);
  return lines.length > 1 ? lines : [];
}

// The variants that change the scaled scores, in the core's order: the softcap, then ALiBi and
// a given bias (one for all heads, or one per head stacked: head h's rows from h·n_q).
function numpyVariants(state) {
  const lines = [];
  if (state.softcap) lines.push(`softcap = np.float32(${state.softcap})`);
  if (state.bias) lines.push(`bias = ${pyMatrix(state.bias)}`);
  return lines;
}

function numpyVariantLoop(state) {
  const lines = [state.softcap ? '    capped = softcap * np.tanh(scaled / softcap)' : '    capped = scaled', '    biased = capped'];
  if (state.alibi) lines.push('    biased = biased - np.float32(2.0 ** (-8 * (h + 1) / heads)) * np.abs(np.arange(q.shape[0])[:, None] - np.arange(k.shape[0])[None, :])');
  if (state.bias) lines.push('    biased = biased + (bias[h*q.shape[0]:(h+1)*q.shape[0]] if bias.shape[0] > q.shape[0] else bias)');
  return lines;
}

function scaleExpression(state) {
  const base = state.scale === false ? '1.0' : typeof state.scale === 'number' ? String(state.scale) : '1.0 / np.sqrt(d_k)';
  return state.temperature !== 1 ? `${base} / ${state.temperature}` : base;
}

/**
 * NumPy code that recomputes step `id` of the state's trace and prints it; a backward step
 * needs `dOutput`, the trace's grad-output values.
 */
export function numpyCode(state, id, dOutput) {
  const entry = stepEntry(id);
  const backward = id.startsWith('grad-');
  const masked = numpyMask(state);
  const record = (step) => `steps.setdefault(${JSON.stringify(step.id)}, []).append(${step.numpy})`;
  return [
    '# Scaled dot-product attention, as attnlab computes it (float32).',
    'import numpy as np',
    '',
    ...numpyInputs(state),
    ...(state.Wo ? [`Wo = ${pyMatrix(state.Wo)}`] : []),
    `heads = ${state.heads}`,
    'd_k, d_v = Q.shape[1] // heads, V.shape[1] // heads',
    `factor = np.float32(${scaleExpression(state)})`,
    ...masked,
    ...numpyVariants(state),
    'outputs, steps, all_weights = [], {}, []',
    'for h in range(heads):',
    '    q, k, v = Q[:, h*d_k:(h+1)*d_k], K[:, h*d_k:(h+1)*d_k], V[:, h*d_v:(h+1)*d_v]',
    '    scores = q @ k.T',
    '    scaled = scores * factor',
    ...numpyVariantLoop(state),
    masked.length ? '    logits = np.where(allowed, biased, -np.inf)' : '    logits = biased',
    '    row_max = logits.max(axis=1, keepdims=True)',
    '    exps = np.where(np.isfinite(row_max), np.exp(logits - np.where(np.isfinite(row_max), row_max, 0)), 0)',
    '    sums = exps.sum(axis=1, keepdims=True)',
    '    weights = np.divide(exps, sums, out=np.zeros_like(exps), where=sums > 0)',
    '    out = weights @ v',
    '    outputs.append(out)',
    ...(backward
      ? ['    all_weights.append(weights)', ...numpyBackward(state, dOutput, entry, record)]
      : [`    ${entry.perHead ? record(entry) : 'pass'}`, ...(entry.perHead ? [] : [record(entry)])]),
    `for value in steps[${JSON.stringify(id)}]:`,
    '    print(np.array2string(value, precision=6, suppress_small=True))',
    '',
  ].join('\n');
}

/**
 * PyTorch code for the state: torch.nn.functional.scaled_dot_product_attention where it
 * applies (any mask as a boolean attn_mask, scale folded with the temperature), per head.
 */
export function pytorchCode(state) {
  const tensor = (m) => `torch.tensor(${JSON.stringify(m)})`;
  const inputs =
    state.mode === 'qkv'
      ? [`Q, K, V = ${tensor(state.Q)}, ${tensor(state.K)}, ${tensor(state.V)}`]
      : [`X = ${tensor(state.X)}`, ...(state.positional === 'sinusoidal' ? ['# (add the sinusoidal encoding to X here, as in the NumPy export)'] : []), `Q, K, V = X @ ${tensor(state.Wq)}, X @ ${tensor(state.Wk)}, X @ ${tensor(state.Wv)}`];
  const mask = [];
  if (state.causal) mask.push('torch.ones(Q.shape[0], K.shape[0], dtype=torch.bool).tril()');
  if (state.keyPadding.some(Boolean)) mask.push(`~torch.tensor(${JSON.stringify(state.keyPadding)})[None, :]`);
  if (state.mask) mask.push(`torch.tensor(${JSON.stringify(state.mask)})`);
  const scale = state.scale === false ? '1.0' : typeof state.scale === 'number' ? String(state.scale) : 'd_k ** -0.5';
  return [
    '# The same attention with PyTorch (the element shows every intermediate; this is the result).',
    'import torch',
    'import torch.nn.functional as F',
    '',
    ...inputs,
    `heads = ${state.heads}`,
    'd_k, d_v = Q.shape[1] // heads, V.shape[1] // heads',
    `attn_mask = ${mask.length ? mask.join(' & ') : 'None'}`,
    'outputs = []',
    'for h in range(heads):',
    '    q, k, v = Q[:, h*d_k:(h+1)*d_k], K[:, h*d_k:(h+1)*d_k], V[:, h*d_v:(h+1)*d_v]',
    `    outputs.append(F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, scale=(${scale}) / ${state.temperature}))`,
    'out = torch.cat(outputs, dim=1)',
    ...(state.Wo ? [`out = out @ ${tensor(state.Wo)}`] : []),
    'print(out)',
    '',
  ].join('\n');
}

/**
 * The colours of each cell of a result, on `scale` (registry.js stepScales: the screen's
 * scale for the step, shared by its heads), or on the matrix's own range for a step the
 * screen does not colour; and what the picture should say the colours are.
 */
export function exportColors(values, scale) {
  const used = scale ?? { range: finiteRange(values), label: `colour from the lowest to the highest value of this matrix` };
  return { cells: values.map((row, r) => row.map((v, c) => scaleColors(used, v, r, c))), label: used.label };
}

/** The result matrix as a standalone SVG heatmap (the screen's colours, values written in the cells). */
export function toSvg(values, rowLabels, colLabels, scale) {
  const { cells: colors, label } = exportColors(values, scale);
  const size = 44;
  const left = 60;
  const top = 24;
  const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  const cells = values.flatMap((row, r) =>
    row.map((v, c) => {
      const { background, text } = colors[r][c];
      const x = left + c * size;
      const y = top + r * size;
      return `<rect x="${x}" y="${y}" width="${size}" height="${size}" fill="${background}"/><text x="${x + size / 2}" y="${y + size / 2 + 4}" fill="${text}" text-anchor="middle">${v === -Infinity ? '−∞' : Number(v.toFixed(3))}</text>`;
    }),
  );
  const labels = [
    ...colLabels.map((l, c) => `<text x="${left + c * size + size / 2}" y="${top - 8}" text-anchor="middle">${escape(l)}</text>`),
    ...rowLabels.map((l, r) => `<text x="${left - 6}" y="${top + r * size + size / 2 + 4}" text-anchor="end">${escape(l)}</text>`),
    `<text x="${left}" y="${top + rowLabels.length * size + 16}" data-role="scale">Colour: ${escape(label)}</text>`,
  ];
  const width = Math.max(left + colLabels.length * size + 8, left + 7 * label.length);
  const height = top + rowLabels.length * size + 26;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">\n<rect width="100%" height="100%" fill="#fff"/>\n${[...labels, ...cells].join('\n')}\n</svg>\n`;
}
