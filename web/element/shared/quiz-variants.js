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
  {
    id: 'softcap-limit',
    prompt: 'With softcap c = 50 (Gemma 2’s), a scaled score of 0.5 and one of 500 go through c·tanh(s / c). What comes out?',
    options: ['0.5 and 500: the cap changes nothing', 'About 0.5 and just under 50', '0.01 and 10', '50 and 50'],
    answer: 1,
    explanation: 'tanh(x) ≈ x for small x, so 50·tanh(0.5/50) ≈ 0.5; tanh approaches 1 for large x, so 500 becomes just under 50. Small scores pass, large ones can no longer saturate the softmax.',
  },
  {
    id: 'alignment-generation',
    prompt: 'A decoder has 5 tokens in its cache and computes the query of token 6 against all 6 keys, with a causal mask. Which alignment lets that query see every key?',
    options: ['Top-left: the query sits at key 1', 'Bottom-right: the query sits at key 6, the last', 'Either: they agree when there is one query', 'Neither: causal forbids the cached keys'],
    answer: 1,
    explanation: 'With fewer queries than keys, top-left puts query i at key i, so the single query would see only the first key. Bottom-right puts the queries at the end of the keys, where generation’s newest token is: it sees all 6.',
  },
  {
    id: 'bias-minus-infinity',
    prompt: 'An additive bias puts −∞ at (query 2, key 1) and 0 elsewhere. What is the weight of key 1 for query 2?',
    options: ['Exactly 0, as if a mask blocked it', 'Small but above 0', 'Unchanged: a bias only shifts the scores', 'NaN'],
    answer: 0,
    explanation: 'The score becomes −∞ and e^(−∞) = 0, so the key gets no weight at all: a −∞ bias is how a float attention mask blocks a key. The row’s other weights still sum to 1.',
  },
  {
    id: 'decode-from-cache',
    prompt: 'decode() is given the keys and values of the first 3 tokens as a past cache and then 3 new tokens. Compared with full causal attention over all 6 tokens, its 3 output rows are…',
    options: ['an approximation that drifts with each token', 'the last 3 rows of full causal attention, the same numbers', 'the first 3 rows of full causal attention', 'different, because the cache holds no queries'],
    answer: 1,
    explanation: 'Causal attention’s row i uses only keys and values up to i, which the cache holds; the queries of earlier tokens are never needed again. So continuing from the cache gives exactly the last rows of the full computation.',
  },
];
