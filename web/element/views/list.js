// Every view of <attn-lab>, in tab order: the one list that the tabs, the `view` attribute
// and state field, the presets, the quiz topics, the typings' ViewId, the manifest, the
// screenshot script and the view tests take their ids from. A view is its folder,
// views/ID/ID.js (whose defineView({ id, title, element, fields }) registers <attn-ID-view>),
// and one entry here: { id, preset: [name, description] of <attn-lab preset="ID">, topic:
// the title of its quiz topic, when it has questions (shared/quiz-questions.js) }.
// Plain data: Node (tests, scripts, the build) reads it without loading the views.
export const VIEW_LIST = [
  { id: 'stepper', topic: 'The whole computation' },
  {
    id: 'geometry',
    preset: ['Geometry: weights on the simplex, the output inside the values', 'Drag a 2-D query and watch the scores, the weights and the output move.'],
    topic: 'Geometry',
  },
  { id: 'scaling', preset: ['Why divide by √dₖ', 'Raw dot products spread like √dₖ; without scaling, softmax turns one-hot.'], topic: 'Scaling by 1/√d_k' },
  { id: 'softmax', preset: ['Softmax up close', 'Subtract the max, exponentiate, add up, divide, and what overflows without the max.'], topic: 'Softmax' },
  {
    id: 'patterns',
    preset: ['Patterns: a gallery and a quiz', 'The classic weight patterns, the inputs that make them, and "which pattern is this?".'],
    topic: 'Patterns',
  },
  {
    id: 'tokens',
    preset: ['Tokens: who attends to whom', 'A sentence with lines from each token to the tokens it attends to, for every head.'],
    topic: 'Tokens',
  },
  { id: 'positions', preset: ['Positions', 'The sinusoidal encoding, and why attention without it cannot tell word order.'], topic: 'Positions' },
  { id: 'cost', preset: ['Cost: time and memory against n', 'The naive and the flash kernel measured in your browser, on a log-log chart.'], topic: 'Cost' },
  {
    id: 'flash',
    preset: ['FlashAttention: the tile walk', 'Step through the tiles: the running max, the rescale, the running sum, and no n×n matrix.'],
    topic: 'Flash tiles',
  },
  {
    id: 'variants',
    preset: [
      'Variants: RoPE, ALiBi, windows, shared K/V, the KV cache',
      'One tiny example; each change modern models make to attention is a switch, with every step’s numbers.',
    ],
    topic: 'Variants',
  },
  {
    id: 'efficient',
    preset: ['Cheaper attention: linear, retention, low rank, sparse', 'Each shortcut beside exact softmax: its weights, error, cost and state.'],
    topic: 'Cheaper attention',
  },
  {
    id: 'long-sequence',
    preset: ['Long sequences: the flash kernel on WebGPU', 'Up to 16,384 tokens on WebGPU (4,096 in WebAssembly), with a sampled block of the exact weights.'],
  },
  {
    id: 'train',
    preset: ['Train: watch attention learn', 'A tiny transformer learns a toy task in your browser: loss, accuracy and every head’s weights as it trains.'],
    topic: 'Training',
  },
  {
    id: 'model',
    preset: [
      'A little language model',
      'A real model trained on real text: its tokens, its next-token probabilities, generation, and every head’s attention, each head opening in the stepper.',
    ],
    topic: 'A little language model',
  },
  { id: 'quiz', preset: ['Self-check quizzes', 'Short quizzes on every topic, with explanations; progress stays on this device.'] },
];

export const VIEW_IDS = VIEW_LIST.map((view) => view.id);

/** The teaching views: every view but the stepper. */
export const TEACHING_VIEW_IDS = VIEW_IDS.filter((id) => id !== 'stepper');
