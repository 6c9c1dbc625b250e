// Presets: each one a learning situation, reachable in one click or as <attn-lab preset="…">.
import { randomMatrix, seededRandom } from './shared/random.js';
import { VIEW_LIST } from './views/list.js';

const SENTENCE = ['The', 'cat', 'sat', 'on', 'the', 'mat'];
const n = SENTENCE.length;

const matrix = (rows, cols, value) => Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => value(i, j)));
const identity = (size, c = 1) => matrix(size, size, (i, j) => (i === j ? c : 0));

// The sentence as one-hot tokens (X = I), so X·W simply selects rows of W and the weight
// matrices alone decide the attention pattern. Values: a 2-D point per token.
const VALUES_2D = [
  [1, 0],
  [0, 1],
  [1, 1],
  [-1, 0],
  [0, -1],
  [-1, 1],
];

function sentence(name, description, Wq, Wk, extra = {}) {
  return {
    name,
    description,
    state: {
      mode: 'x',
      tokens: [...SENTENCE],
      X: identity(n),
      Wq,
      Wk,
      Wv: VALUES_2D.map((row) => [...row]),
      Wo: null,
      heads: 1,
      positional: 'none',
      ...extra,
    },
  };
}

const TINY = {
  name: 'Tiny example: 2 queries, 3 keys',
  description: 'Q is 2×2, K and V are 3×2: small enough to check every number by hand.',
  // Each query has one best key, and a different one (no tie for a sentence to paper over):
  // q₁ scores 2, 1, 0 and q₂ scores 0, 1, 2.
  state: {
    mode: 'qkv',
    tokens: ['k₁', 'k₂', 'k₃'],
    Q: [
      [1, 0],
      [0, 1],
    ],
    K: [
      [2, 0],
      [1, 1],
      [0, 2],
    ],
    V: [
      [1, 0],
      [0, 2],
      [1, 1],
    ],
    heads: 1,
  },
};

// Two heads of width 2 over four words, with an output projection: random numbers from a
// fixed seed, so the two heads look at different words.
const TWO_HEADS = (() => {
  const random = seededRandom(7);
  return {
    name: 'Two heads with an output projection',
    description: 'W_Q, W_K and W_V are 4×4: head 1 uses columns 1-2, head 2 columns 3-4. W_O mixes the heads.',
    state: {
      mode: 'x',
      tokens: ['I', 'like', 'green', 'tea'],
      X: randomMatrix(4, 4, random),
      Wq: randomMatrix(4, 4, random),
      Wk: randomMatrix(4, 4, random),
      Wv: randomMatrix(4, 4, random),
      Wo: randomMatrix(4, 4, random),
      heads: 2,
      positional: 'none',
    },
  };
})();

// Two heads that clearly differ, over the sentence as one-hot tokens: head 1 looks at the
// previous token (the first token at itself), head 2 at the first token. Head 1's queries and
// keys are points on a circle, token i's key at angle 60°·i and its query at the angle of the
// key before it, so a query matches that key best (cos 0 = 1 against cos 60° = ½ for its
// neighbours); head 2's keys are 0 except the first token's, which every query points at.
const HEADS_DIFFER = (() => {
  const r = 3; // scores 9 against 4.5: after softmax about 0.8 for the chosen key
  const angle = (i) => (Math.PI / 3) * i;
  const point = (i) => [r * Math.cos(angle(i)), r * Math.sin(angle(i))].map((v) => Math.round(v * 1000) / 1000);
  return {
    name: 'Two heads: the previous token and the first token',
    description: 'Head 1 attends to the token before each one (the first token to itself), head 2 to the first token: two heads, two patterns.',
    state: {
      mode: 'x',
      tokens: [...SENTENCE],
      X: identity(n),
      Wq: matrix(n, 4, (i, j) => (j < 2 ? point(Math.max(i - 1, 0))[j] : j === 2 ? r : 0)),
      Wk: matrix(n, 4, (i, j) => (j < 2 ? point(i)[j] : j === 2 && i === 0 ? r : 0)),
      Wv: matrix(n, 4, (i, j) => VALUES_2D[i][j % 2]),
      Wo: null,
      heads: 2,
      positional: 'none',
    },
  };
})();

const c = 3; // large enough that softmax turns a score gap into a clear preference

const STEPPER_PRESETS = {
  tiny: TINY,
  self: sentence(
    'Pattern: each token attends to itself',
    "W_Q = W_K = 3I, so a token's query matches only its own key: the weights sit on the diagonal.",
    identity(n, c),
    identity(n, c),
  ),
  uniform: sentence(
    'Pattern: uniform attention',
    'W_Q = 0 makes every score 0, and softmax of equal scores is uniform: each weight is 1/6.',
    matrix(n, n, () => 0),
    identity(n, c),
  ),
  sharp: sentence(
    'Pattern: everyone looks at "cat"',
    'Every query points the same way and only the key of "cat" points there too: one-hot rows.',
    matrix(n, n, (i, j) => (j === 0 ? 4 : 0)),
    matrix(n, n, (i, j) => (i === 1 && j === 0 ? 4 : 0)),
  ),
  local: sentence(
    'Pattern: a local band',
    'Each key matches the queries of itself and its two neighbours: a band around the diagonal.',
    identity(n, c),
    matrix(n, n, (i, j) => (Math.abs(i - j) <= 1 ? c : 0)),
  ),
  causal: sentence(
    'Causal: no peeking ahead',
    'With the causal mask, token i attends only to tokens 1…i: the upper triangle is masked.',
    identity(n, 1),
    matrix(n, n, (i, j) => (Math.abs(i - j) <= 1 ? 1 : 0)),
    { causal: true },
  ),
  bidirectional: sentence(
    'Bidirectional: every token sees every token',
    'The same inputs as the causal preset, without the mask: compare the two weight matrices.',
    identity(n, 1),
    matrix(n, n, (i, j) => (Math.abs(i - j) <= 1 ? 1 : 0)),
    { causal: false },
  ),
  'two-heads': TWO_HEADS,
  'heads-differ': HEADS_DIFFER,
};

// The stepper preset under a view's own preset, where it is not the tiny example: the tokens
// view shows the stepper's own sentence, and the tiny example's q/k labels are not one, so it
// opens on words (two heads that clearly differ). Its tab opens there too while the stepper
// still shows the default example, unedited (attn-lab.js, showView).
const VIEW_INPUTS = { tokens: 'heads-differ' };

/** The stepper preset view `id` opens on instead of the default example, or undefined. */
export const viewInputs = (id) => VIEW_INPUTS[id];

export const PRESETS = Object.freeze({ ...STEPPER_PRESETS, ...viewPresets() });

// One preset per teaching view (views/list.js), so a tutorial embeds a single idea:
// <attn-lab preset="scaling">. The stepper's state underneath is the tiny example (the tokens
// view's, words: VIEW_INPUTS).
function viewPresets() {
  const under = (view) => STEPPER_PRESETS[VIEW_INPUTS[view] ?? 'tiny'].state;
  return Object.fromEntries(
    VIEW_LIST.filter((view) => view.preset).map(({ id: view, preset: [name, description] }) => [
      view,
      { name, description, view, state: { ...under(view), view } },
    ]),
  );
}

/** The presets the stepper's menu offers: those of the stepper itself, not of a view. */
export const STEPPER_PRESET_IDS = Object.keys(PRESETS).filter((id) => !PRESETS[id].view);

export const DEFAULT_PRESET = 'tiny';

// Fields every state has; a preset overrides some of them.
const BASE_STATE = {
  mode: 'qkv',
  X: [
    [1, 0],
    [0, 1],
  ],
  Wq: identity(2),
  Wk: identity(2),
  Wv: identity(2),
  Wo: null,
  Q: [
    [1, 0],
    [0, 1],
  ],
  K: [
    [1, 0],
    [0, 1],
  ],
  V: [
    [1, 0],
    [0, 1],
  ],
  tokens: [],
  heads: 1,
  causal: false,
  keyPadding: [],
  mask: null,
  scale: true,
  temperature: 1,
  positional: 'none',
  step: 'scores',
  predict: false,
  view: 'stepper',
  viewState: {},
};

/** Whether `id` names a preset: an own key of PRESETS, so "constructor" or "toString" does not. */
export const hasPreset = (id) => typeof id === 'string' && Object.hasOwn(PRESETS, id);

/** The full state of a preset (a fresh copy), or null when there is no such preset. */
export function presetState(id) {
  if (!hasPreset(id)) return null;
  const preset = PRESETS[id];
  const state = { ...structuredClone(BASE_STATE), ...structuredClone(preset.state) };
  const keys = state.mode === 'x' ? state.X.length : state.K.length;
  state.keyPadding = Array(keys).fill(false);
  state.step = state.mode === 'x' ? 'project-q' : 'scores';
  return state;
}

// The fields a preset sets that the learner edits: not what is on view (step, view,
// viewState) nor how they work (predict).
const INPUT_FIELDS = Object.keys(BASE_STATE).filter((key) => !['step', 'predict', 'view', 'viewState'].includes(key));

/**
 * The stepper preset whose inputs `state` still holds (a link to it, "#view=stepper" on the
 * default), or null when the inputs are the learner's own.
 */
export function presetOfState(state) {
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  return (
    STEPPER_PRESET_IDS.find((id) => {
      const preset = presetState(id);
      return INPUT_FIELDS.every((key) => same(preset[key], state[key]));
    }) ?? null
  );
}
