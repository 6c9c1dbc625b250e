// The variants topic's self-check questions (the format of quiz-questions.js).
export const VARIANTS_QUESTIONS = [
  {
    id: 'rope-offset',
    prompt: 'With RoPE, tokens at positions 2 and 5 get a score s. Both move 10 places later, same words. What is their score now?',
    options: ['s, unchanged', 's × 10', 's rotated by 10 radians', 'It depends on the sequence length'],
    answer: 0,
    explanation: 'RoPE turns q and k by angles proportional to their positions; a dot product of turned vectors depends only on the difference of the angles, and 5 − 2 = 15 − 12.',
  },
  {
    id: 'gqa-cache',
    prompt: 'A model has 32 query heads. Grouped-query attention gives it 8 key/value heads. What happens to its KV cache?',
    options: ['It grows 4 times', 'It stays the same', 'It shrinks to a quarter', 'It shrinks to 1/32'],
    answer: 2,
    explanation: 'Only K and V are cached, one pair per K/V head: 8 instead of 32 means a quarter of the bytes per token. The queries are never cached.',
  },
  {
    id: 'kv-cache-equal',
    prompt: 'A decoder with a KV cache computes only the newest query’s row at each step. Compared with full causal attention over the whole sequence, its outputs are…',
    options: ['an approximation', 'the same', 'the same only for the first token', 'different, because the keys are stale'],
    answer: 1,
    explanation: 'With the causal mask no row depends on later tokens, so the earlier keys and values never change: caching them and computing the new row gives exactly the rows of full causal attention.',
  },
  {
    id: 'dropout-sum',
    prompt: 'Dropout with p = 0.5 is applied to a row of weights that summed to 1. What does the row sum to now?',
    options: ['Exactly 1', 'Exactly 0.5', '1 on average, but any single row may differ', 'Exactly 2'],
    answer: 2,
    explanation: 'Each weight is kept with probability 1 − p and then divided by 1 − p, so its expected value is unchanged; which weights survive is random, so one row’s sum is not 1.',
  },
];
