// The forward steps' math for the NumPy and PyTorch exports (export-code.js writes the rest):
// per step id, the names its operands take in the code, in the trace's operand order, the
// step's own tables it reads (fields), and the lines that compute its result from them; the
// last line is the result. Nothing here places a query, decides a blocked cell or computes a
// slope: that is already in the operands and tables the core put in the trace (the mask
// step's blockedBy, the bias step's B with ALiBi in it, RoPE's angles, dropout's keep), so the
// exports follow the core whatever its rules become.
import { MASK_RULES } from 'attnlab';

/** One line of math for both languages (the operators they share: @, .T, +, *). */
const same = (...lines) => ({ numpy: lines, torch: lines });

const product = (left, right) => ({ operands: [left, right], ...same(`${left} @ ${right}`) });

// What each blockedBy bit means, from the core's own list (a comment in the export).
const MASK_BITS = Object.entries(MASK_RULES)
  .map(([rule, bit]) => `${bit} ${rule}`)
  .join(', ');

/** @type {Record<string, import('./export-code.js').ExportMath>} */
export const FORWARD_MATH = {
  // No operand: the encoding is a function of the row's position p and the column c alone,
  // computed in float64 as the core does (an angle of up to 512 rad would lose 1e-5 in float32).
  encoding: {
    operands: [],
    fields: (step) => [
      { name: 'n', kind: 'int', value: step.shape[0], note: 'positions 0 … n − 1, one per row of X' },
      { name: 'd', kind: 'int', value: step.shape[1], note: 'the width of X' },
    ],
    numpy: [
      'p = np.arange(n, dtype=np.float64)[:, None]',
      'c = np.arange(d, dtype=np.float64)[None, :]',
      'angle = p * np.exp(-(c - c % 2) / d * np.log(10000.0))  # p / 10000^(2i/d)',
      'np.where(c % 2 == 0, np.sin(angle), np.cos(angle)).astype(np.float32)',
    ],
    torch: [
      'p = torch.arange(n, dtype=torch.float64)[:, None]',
      'c = torch.arange(d, dtype=torch.float64)[None, :]',
      'angle = p * torch.exp(-(c - c % 2) / d * math.log(10000.0))  # p / 10000^(2i/d)',
      'torch.where(c % 2 == 0, torch.sin(angle), torch.cos(angle)).to(torch.float32)',
    ],
  },
  positional: { operands: ['X', 'PE'], ...same('X + PE') },
  'project-q': product('X', 'W'),
  'project-k': product('X', 'W'),
  'project-v': product('X', 'W'),
  // Pairs (2i, 2i + 1) of each row turned by the step's angle for that row and pair.
  'rotate-q': rotation(),
  'rotate-k': rotation(),
  scores: { operands: ['Q', 'K'], ...same('Q @ K.T') },
  scale: {
    operands: ['S'],
    fields: (step) => [{ name: 'factor', kind: 'scalar', value: step.factor, note: 'the scale times 1 / temperature' }],
    ...same('S * factor'),
  },
  softcap: {
    operands: ['S'],
    fields: (step) => [{ name: 'c', kind: 'scalar', value: step.softcap, note: 'the cap' }],
    numpy: ['c * np.tanh(S / c)'],
    torch: ['c * torch.tanh(S / c)'],
  },
  // B is the step's operand: ALiBi's −m·|i − j| at the core's query positions, the given bias,
  // or their sum.
  bias: { operands: ['S', 'B'], ...same('S + B') },
  mask: {
    operands: ['S'],
    fields: (step) => [{ name: 'blocked_by', kind: 'int', value: step.blockedBy, note: `why the core blocked each cell (0: allowed; bits ${MASK_BITS})` }],
    numpy: ['np.where(blocked_by != 0, np.float32(-np.inf), S)'],
    torch: ['torch.where(blocked_by != 0, torch.full_like(S, -math.inf), S)'],
  },
  // A row whose every key is blocked is defined as zeros (the core's rule, and the screen's).
  softmax: {
    operands: ['S'],
    numpy: [
      'm = S.max(axis=1, keepdims=True)',
      'e = np.exp(S - np.where(np.isfinite(m), m, np.float32(0)))',
      'total = e.sum(axis=1, keepdims=True)',
      'np.divide(e, total, out=np.zeros_like(e), where=total > 0)',
    ],
    // torch.softmax gives NaN for a row of −∞ only; such a row is zeros here.
    torch: ['torch.nan_to_num(torch.softmax(S, dim=1), nan=0.0)'],
  },
  dropout: {
    operands: ['A'],
    fields: (step) => [
      { name: 'keep', kind: 'bool', value: step.keep, note: 'the weights the core kept (its seeded draw)' },
      { name: 'keep_scale', kind: 'scalar', value: step.keepScale, note: '1 / (1 − p)' },
    ],
    numpy: ['np.where(keep, A * keep_scale, np.float32(0))'],
    torch: ['torch.where(keep, A * keep_scale, torch.zeros_like(A))'],
  },
  aggregate: product('A', 'V'),
  concat: { operands: ['*O'], numpy: ['np.concatenate(O, axis=1)'], torch: ['torch.cat(O, dim=1)'] },
  'output-projection': product('C', 'Wo'),
};

function rotation() {
  return {
    operands: ['M'],
    fields: (step) => [{ name: 'angles', kind: 'matrix', value: step.angles, note: 'position · θ_i for each row and pair' }],
    numpy: [
      'x, y = M[:, 0::2], M[:, 1::2]',
      'cos, sin = np.cos(angles), np.sin(angles)',
      'np.stack([x * cos - y * sin, x * sin + y * cos], axis=2).reshape(M.shape)',
    ],
    torch: [
      'x, y = M[:, 0::2], M[:, 1::2]',
      'cos, sin = torch.cos(angles), torch.sin(angles)',
      'torch.stack([x * cos - y * sin, x * sin + y * cos], dim=2).reshape(M.shape)',
    ],
  };
}
