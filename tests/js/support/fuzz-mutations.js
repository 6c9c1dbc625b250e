// Invalid requests for the fuzz test: a valid request (fuzz-requests.js) with one thing wrong,
// and the error code that thing must give, from the README (Errors, Limits): a wrong type,
// a hole or an unknown field is 'invalid-argument', NaN or a value beyond float32 is
// 'non-finite', and so on.
const IA = ['invalid-argument'];
const SM = ['shape-mismatch'];
const TL = ['too-large'];
const NF = ['non-finite'];
const EMPTY = ['empty'];

const NON_FINITE = [NaN, Infinity, -Infinity, 1e39, -1e300];
const NOT_NUMBERS = ['1', null, undefined, true, {}, 1n, [1]];
const NOT_MATRICES = ['Q', 42, true, [1, 2], new Float32Array(4), { rows: 1 }, { rows: 1.5, cols: 1, data: [0] }, { rows: 1, cols: 1, data: [0], extra: 1 }];
const EMPTIES = [[], [[]], { rows: 0, cols: 2, data: [] }, { rows: 2, cols: 0, data: new Float32Array(0) }];
const NOT_OBJECTS = [null, undefined, 'text', true, 7n];
const UNKNOWN = ['colour', 'casual', 'Heads', 'constructor', '__proto__', 'toString', ''];

const BOOLEAN = [
  ['yes', IA],
  [1, IA],
  [null, IA],
  [0, IA],
];
// 1e-50 and -0 are not above 0 once float32; 1e39 is Infinity in float32.
const POSITIVE = [
  [0, IA],
  [-1, IA],
  [-0, IA],
  [NaN, IA],
  [Infinity, IA],
  [1e-50, IA],
  [1e39, IA],
  ['2', IA],
  [null, IA],
];
const COUNTS = [
  [0, IA],
  [-1, IA],
  [2.5, IA],
  ['2', IA],
  [null, IA],
  [2 ** 31, IA],
];

const isNested = Array.isArray;
const shapeOf = (m) => (isNested(m) ? [m.length, m[0].length] : [m.rows, m.cols]);
const zeros = (rows, cols) => ({ rows, cols, data: new Float32Array(rows * cols) });
const fill = (rows, cols, value) => Array.from({ length: rows }, () => Array(cols).fill(value));

/** A copy of matrix m (either form) with change(list, index) applied to one random cell. */
function withCell(r, m, change) {
  if (isNested(m)) {
    const copy = m.map((row) => row.slice());
    change(copy[r.int(0, copy.length - 1)], r.int(0, m[0].length - 1));
    return copy;
  }
  const data = Array.from(m.data);
  change(data, r.int(0, data.length - 1));
  return { ...m, data };
}

/** m with one more column (widen) or row (lengthen) of zeros. */
function grown(m, extraRows, extraCols) {
  const [rows, cols] = shapeOf(m);
  const at = isNested(m) ? (i, j) => m[i][j] : (i, j) => m.data[i * cols + j];
  const out = Array.from({ length: rows + extraRows }, (_, i) => Array.from({ length: cols + extraCols }, (_, j) => (i < rows && j < cols ? at(i, j) : 0)));
  return isNested(m) ? out : { rows: rows + extraRows, cols: cols + extraCols, data: out.flat() };
}

/** m with one row one entry shorter or longer (nested), or with one value too many (flat). */
function ragged(r, m) {
  if (isNested(m) && m.length > 1) {
    const copy = m.map((row) => row.slice());
    const row = copy[r.int(1, copy.length - 1)];
    if (r.chance(0.5)) row.push(0);
    else row.pop();
    return copy;
  }
  const [rows, cols] = shapeOf(m);
  return { rows, cols, data: [...(isNested(m) ? m.flat() : m.data), 0] };
}

// What may be wrong with each matrix of numbers, and the code it gives.
const MATRIX_FAULTS = [
  (r, m) => [withCell(r, m, (list, i) => (list[i] = r.pick(NON_FINITE))), NF],
  (r, m) => [withCell(r, m, (list, i) => (list[i] = r.pick(NOT_NUMBERS))), IA],
  (r, m) => [withCell(r, m, (list, i) => delete list[i]), IA],
  (r, m) => [ragged(r, m), SM],
  (r) => [r.pick(NOT_MATRICES), IA],
];

// Per family: the matrices of numbers, the one whose width must match Q's (widen) and the one
// whose rows must match K's (lengthen), a matrix beyond the limits, the required fields, and
// the other fields with bad values and their codes. `m` is the valid case's model.
function attentionOptions(m) {
  const [nq, nk] = [m.mask?.length ?? (m.Q ?? m.X).length, (m.K ?? m.X).length];
  return {
    causal: BOOLEAN,
    scale: POSITIVE,
    temperature: POSITIVE,
    keyPadding: [
      [Array(nk + 1).fill(false), SM],
      [Array(nk).fill(2), IA],
      ['yes', IA],
      [[null], IA],
    ],
    mask: [
      [fill(nq + 1, nk, true), SM],
      [fill(nq, nk, 2), IA],
      ['x', IA],
      [[[true, 'y']], IA],
    ],
  };
}

function traceFaults(m) {
  const width = m.projected ? m.Wq[0].length : m.Q[0].length;
  const rows = (m.X ?? m.Q).length;
  return {
    numbers: m.projected ? ['X', 'Wq', 'Wk', 'Wv', 'Wo'] : ['Q', 'K', 'V', 'Wo'],
    widen: m.projected ? 'Wk' : 'K',
    lengthen: m.projected ? 'Wv' : 'V',
    tooLarge: { [m.projected ? 'X' : 'Q']: zeros(513, 1) },
    required: m.projected ? ['X', 'Wq', 'Wk', 'Wv'] : ['Q', 'K', 'V'],
    stray: m.projected ? { Q: [[1]] } : { X: [[1]] },
    values: {
      ...attentionOptions(m),
      heads: [...COUNTS, [65, IA], [width + 1, IA]],
      positional: m.projected
        ? [
            ['cosine', IA],
            [1, IA],
            [null, IA],
          ]
        : [['sinusoidal', IA]],
      tokens: [
        [Array.from({ length: rows + 1 }, String), SM],
        ['abc', IA],
        [Array(rows).fill(1), IA],
      ],
    },
  };
}

// The long-sequence kernels take Q, K and V (sampledWeights Q and K alone).
function longFaults(m, names = ['Q', 'K', 'V']) {
  const wide = (cols) => Object.fromEntries(names.map((name) => [name, zeros(1, cols)]));
  return {
    numbers: names,
    widen: 'K',
    lengthen: names.includes('V') ? 'V' : undefined,
    // Too many features, or a head wider than the kernel's 512.
    tooLarge: (r) => (r.chance(0.5) ? { Q: zeros(1, 8193) } : { ...wide(513), heads: 1 }),
    required: [...names],
    values: { causal: BOOLEAN, scale: POSITIVE, heads: [...COUNTS, [m.Q[0].length + 1, IA]] },
  };
}

const indexFaults = (n) => [
  [[n], IA],
  ['x', IA],
  [[0.5], IA],
  [[-1], IA],
];
const COUNT_FAULTS = (max) => [
  [0, IA],
  [max + 1, TL],
  [2.5, IA],
  ['4', IA],
  [-1, IA],
  [null, IA],
];

const FAULTS = {
  attention: (m) => ({
    numbers: ['Q', 'K', 'V'],
    widen: 'K',
    lengthen: 'V',
    tooLarge: { Q: zeros(4097, 1) },
    required: ['Q', 'K', 'V'],
    values: attentionOptions(m),
  }),
  trace: traceFaults,
  permutationCheck: (m) => {
    const n = m.order.length;
    const { tooLarge, ...rest } = traceFaults(m); // 513 tokens fail the order's check first
    const order = [
      [[...m.order, n], IA],
      [[...m.order.slice(1), n], IA],
      [m.order.map((i) => -1 - i), IA],
      ['abc', IA],
      [[0.5], IA],
    ];
    if (n > 1) order.push([[m.order[0], ...m.order.slice(0, -1)], IA]); // a repeat
    return { ...rest, required: [...rest.required, 'order'], values: { ...rest.values, order } };
  },
  long: longFaults,
  sampledWeights: (m) => {
    const f = longFaults(m, ['Q', 'K']);
    f.required.push('rows', 'cols');
    Object.assign(f.values, {
      head: [
        [m.heads, IA],
        [-1, IA],
        [1.5, IA],
        ['0', IA],
      ],
      rows: indexFaults(m.Q.length),
      cols: indexFaults(m.K.length),
    });
    return f;
  },
  softmaxBreakdown: () => ({
    required: ['scores'],
    values: {
      scores: [
        [[], EMPTY],
        [Array(4097).fill(0), TL],
        [[1, NaN], NF],
        [[1e39], NF],
        [['1'], IA],
        ['abc', IA],
      ],
      temperature: [...POSITIVE, [1e-40, IA]],
    },
  }),
  sinusoidalEncoding: () => ({ required: ['tokens', 'width'], values: { tokens: COUNT_FAULTS(2048), width: COUNT_FAULTS(2048) } }),
  tilePlan: () => ({
    required: ['headWidth'],
    values: {
      headWidth: [
        [2.5, IA],
        [-1, IA],
        ['64', IA],
        [null, IA],
        [NaN, IA],
      ],
    },
  }),
  scalingStudy: () => ({
    required: ['dims'],
    values: {
      dims: [
        [[], EMPTY],
        [Array(17).fill(2), TL],
        [[0], IA],
        [[513], TL],
        [[2.5], IA],
        ['4', IA],
      ],
      keys: [
        [1, IA],
        [65, TL],
        [2.5, IA],
      ],
      samples: [
        [0, IA],
        [2001, TL],
      ],
      seed: [
        [-1, IA],
        ['1', IA],
        [2 ** 32, IA],
        [1.5, IA],
      ],
    },
  }),
  normalMatrix: () => {
    const side = [
      [0, IA],
      [1.5, IA],
      [-1, IA],
      ['2', IA],
      [2 ** 25, TL],
    ];
    return {
      required: ['rows', 'cols'],
      values: {
        rows: side,
        cols: side,
        seed: [
          [-1, IA],
          ['1', IA],
          [2 ** 32, IA],
        ],
      },
    };
  },
};

const boom = () => {
  throw new Error('boom');
};

/**
 * One invalid variant of the valid request of `family`: { args, codes, what } with the codes
 * the call may throw (one, unless the README allows either) and what was changed.
 */
export function mutate(r, family, request, model) {
  const f = FAULTS[family](model);
  const req = { ...request };
  const present = (names = []) => names.filter((name) => req[name] !== undefined);
  const dropTokens = () => delete req.tokens; // a label count would be checked before the matrix
  const faults = [
    () => [[r.pick(NOT_OBJECTS)], IA, 'not an object'],
    () => {
      const name = r.pick(UNKNOWN);
      Object.defineProperty(req, name, { value: 1, enumerable: true, writable: true, configurable: true });
      return [[req], IA, `unknown field ${JSON.stringify(name)}`];
    },
    () => {
      const name = r.pick(f.required);
      delete req[name];
      return [[req], IA, `no ${name}`];
    },
    () => {
      const name = r.pick(Object.keys(req));
      Object.defineProperty(req, name, { get: boom, enumerable: true });
      return [[req], IA, `a getter on ${name} throws`];
    },
    () => [[new Proxy(req, { ownKeys: boom })], IA, 'a Proxy whose ownKeys throws'],
    () => {
      const [name, values] = r.pick(Object.entries(f.values));
      const [value, codes] = r.pick(values);
      req[name] = value;
      return [[req], codes, `${name}: ${String(value).slice(0, 40)}`];
    },
  ];
  const numbers = present(f.numbers);
  if (numbers.length > 0) {
    faults.push(() => {
      const name = r.pick(numbers);
      const [value, codes] = r.pick(MATRIX_FAULTS)(r, req[name]);
      req[name] = value;
      return [[req], codes, `a fault in ${name}`];
    });
    faults.push(() => {
      const name = r.pick(numbers);
      req[name] = r.pick(EMPTIES);
      dropTokens();
      // An X of rows but no columns meets the order's check (one entry per row) first.
      return [[req], family === 'permutationCheck' && name === 'X' ? [...EMPTY, ...IA] : EMPTY, `${name} empty`];
    });
  }
  if (f.widen) faults.push(() => [[Object.assign(req, { [f.widen]: grown(req[f.widen], 0, 1) })], SM, `${f.widen} one column wider`]);
  if (f.lengthen) faults.push(() => [[Object.assign(req, { [f.lengthen]: grown(req[f.lengthen], 1, 0) })], SM, `${f.lengthen} one row longer`]);
  if (f.tooLarge) {
    faults.push(() => {
      dropTokens();
      const big = typeof f.tooLarge === 'function' ? f.tooLarge(r) : f.tooLarge;
      return [[Object.assign(req, big)], TL, `beyond the limits: ${Object.keys(big)}`];
    });
  }
  if (f.stray) faults.push(() => [[Object.assign(req, f.stray)], IA, `a mix: ${Object.keys(f.stray)}`]);
  const [args, codes, what] = r.pick(faults)();
  return { args, codes, what };
}
