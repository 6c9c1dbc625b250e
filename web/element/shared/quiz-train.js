// The train view's self-check questions (quiz-questions.js has the other topics and the
// format: each with the index of the right option and why it is right).
export const TRAIN_QUESTIONS = [
  {
    id: 'previous-pattern',
    prompt: 'A one-layer model has learned the previous-token task. What does its head’s weight matrix look like on a sample?',
    options: ['A bright diagonal', 'A bright line just below the diagonal', 'A bright first column', 'Uniform rows'],
    answer: 1,
    explanation:
      'Row i is the query at position i; to predict the token before it, the head puts its weight on key i − 1, the cell just left of the diagonal. ' +
      'The value vector of that token then carries its identity to the output.',
  },
  {
    id: 'positions-needed',
    prompt: 'Why does the previous-token task need the learned position embeddings P?',
    options: [
      'Softmax needs positive inputs',
      'Without them, attention cannot tell which key is one step back: the scores only see the tokens',
      'The causal mask needs them',
      'They make training faster but are not needed',
    ],
    answer: 1,
    explanation:
      'Attention is blind to order: a query scores every earlier key by content alone. Adding P to each token’s vector lets W_Q and W_K ' +
      'learn scores that are high exactly for the key one position back, whatever the tokens are.',
  },
  {
    id: 'loss-accuracy',
    prompt: 'The accuracy is already 100% but the loss keeps falling. Why?',
    options: [
      'The accuracy is measured wrongly',
      'The loss rewards confidence: the right token’s probability still rises towards 1',
      'The loss counts other positions',
      'Adam makes the loss fall forever',
    ],
    answer: 1,
    explanation:
      'Accuracy only asks whether the right token has the largest score; cross-entropy is −log of its probability, which keeps falling as that probability approaches 1.',
  },
  {
    id: 'induction-layers',
    prompt: 'Which task is the hardest for attention to learn in the general case, where a repeat may start anywhere?',
    options: ['Previous token', 'Copy the first token', 'Induction: find where the current token appeared before and copy what followed it', 'They are all equally hard'],
    answer: 2,
    explanation:
      'Induction needs two steps: one head copies each token’s predecessor into its position (a previous-token head), and a head in a later layer ' +
      'matches the current token against those copies. That is why induction heads appear in models with at least two layers.',
  },
];
