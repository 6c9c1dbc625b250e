// The self-check questions of every topic: multiple choice, each with the index of the
// right option and an explanation of why it is right. Topic ids are the view ids, plus
// PREDICT_TOPIC for the whole computation (where the stepper's predictions are recorded too).
import { PREDICT_TOPIC, topicScore } from './progress.js';
// The longer topics' questions are data files in quiz/, in the same format.
import FLASH_QUESTIONS from './quiz/flash.json' with { type: 'json' };
import VARIANTS_QUESTIONS from './quiz/variants.json' with { type: 'json' };
import TRAIN_QUESTIONS from './quiz/train.json' with { type: 'json' };
import MODEL_QUESTIONS from './quiz/model.json' with { type: 'json' };
import EFFICIENT_QUESTIONS from './quiz/efficient.json' with { type: 'json' };
import { VIEW_LIST } from '../views/list.js';

// Every view with a `topic` in views/list.js; the stepper's is PREDICT_TOPIC.
export const TOPICS = VIEW_LIST.filter((view) => view.topic).map(({ id, topic }) => ({ id, title: topic }));

export const topicTitle = (id) => TOPICS.find((topic) => topic.id === id)?.title ?? id;

export const QUESTIONS = {
  [PREDICT_TOPIC]: [
    {
      id: 'weights-shape',
      prompt: 'Q has 2 rows (queries) and K has 3 rows (keys), both of width d_k. What is the shape of the weights softmax(QKᵀ/√d_k)?',
      options: ['3×2', '2×3', '2×2', '3×3'],
      answer: 1,
      explanation:
        'QKᵀ pairs every query with every key: one row per query, one column per key, so 2×3. ' +
        'Scaling works entry by entry and softmax row by row, so neither changes the shape.',
    },
    {
      id: 'output-mix',
      prompt: 'What is one row of the output softmax(QKᵀ/√d_k)·V?',
      options: [
        'The row of V whose key matched the query best',
        'The sum of all the rows of V',
        'A weighted average of the rows of V, using that query’s weights',
        'The query row, multiplied by its weights',
      ],
      answer: 2,
      explanation:
        'Output row i is Σⱼ aᵢⱼ·vⱼ, where the weights aᵢⱼ of query i are all ≥ 0 and add up to 1. ' +
        'That is a weighted average of the value rows; it equals a single value row only when one weight is exactly 1.',
    },
    {
      id: 'mask-before-softmax',
      prompt: 'Where does the causal mask act?',
      options: [
        'On the scaled scores, before softmax: the scores of later keys become −∞',
        'On the weights, after softmax: the weights of later keys are set to 0 and the others kept',
        'On V: the value rows of later tokens are set to 0',
        'On Q: the queries of later tokens are removed',
      ],
      answer: 0,
      explanation:
        'exp(−∞) = 0, so a masked key gets weight 0 and the other keys of the row still share a total of 1. ' +
        'Zeroing weights after softmax would leave rows that no longer add up to 1.',
    },
    {
      id: 'heads-width',
      prompt: 'The projections give Q, K and V of width 4, and there are 2 heads. What width d_k do the queries and keys of each head have?',
      options: ['4', '8', '1', '2'],
      answer: 3,
      explanation:
        'The heads split the columns: head 1 takes columns 1–2 of Q, K and V, head 2 columns 3–4, so d_k = 4 / 2 = 2 ' +
        '(and each head scales by 1/√2). Putting the two n×2 head outputs side by side gives n×4 again, which W_O then mixes.',
    },
  ],
  geometry: [
    {
      id: 'weights-simplex',
      prompt: 'What is true of every row of attention weights (a row that is not fully masked)?',
      options: [
        'Each weight is between −1 and 1, and the row adds up to 0',
        'Each weight is ≥ 0, and the row adds up to 1',
        'The row adds up to the number of keys',
        'Exactly one weight is not zero',
      ],
      answer: 1,
      explanation:
        'Softmax exponentiates each score (exp is never negative) and divides by the row’s total. ' +
        'So the weights are ≥ 0 and add up to 1: the row is a point of the probability simplex, whose corners are the one-hot rows.',
    },
    {
      id: 'output-hull',
      prompt: 'Three value vectors v₁, v₂, v₃ are the corners of a triangle in the plane. Where can an output row be?',
      options: ['Only at one of the corners', 'Anywhere in the plane', 'Only at the centre of the triangle', 'Anywhere inside the triangle or on its edges'],
      answer: 3,
      explanation:
        'An output row is w₁v₁ + w₂v₂ + w₃v₃ with every wⱼ ≥ 0 and w₁ + w₂ + w₃ = 1: a convex combination of the values. ' +
        'Such combinations fill exactly the triangle. Equal weights give its centre, a one-hot row gives a corner, and no weights lead outside.',
    },
    {
      id: 'sharp-row',
      prompt: 'When is a query’s row of weights close to one-hot (near a corner of the simplex)?',
      options: [
        'When one key’s score is much larger than the others',
        'When all its scores are equal',
        'When the value vectors are far apart',
        'When the query is the zero vector',
      ],
      answer: 0,
      explanation:
        'Softmax depends only on the gaps between a row’s scores. A large gap makes the top key’s exponential dwarf the rest, so its weight nears 1. ' +
        'Equal scores (a zero query, for instance, scores 0 with every key) give the centre of the simplex instead; the values do not enter the weights at all.',
    },
    {
      id: 'double-query',
      prompt: 'You double the query vector q (same direction). What happens to its row of weights?',
      options: [
        'Nothing: the weights depend only on the direction of q',
        'Each weight doubles',
        'It gets sharper (closer to the top key’s corner), unless all its scores were equal',
        'It gets flatter (closer to uniform)',
      ],
      answer: 2,
      explanation:
        'Every score q·kⱼ doubles, so every gap between scores doubles, and softmax of larger gaps is more peaked. ' +
        'If the scores were all equal they stay equal and the weights stay uniform. Weights cannot double: they must still add up to 1.',
    },
  ],
  scaling: [
    {
      id: 'variance',
      prompt: 'q and k each have d_k independent entries with mean 0 and variance 1. What is the variance of the dot product q·k?',
      options: ['1', '√d_k', '1/d_k', 'd_k'],
      answer: 3,
      explanation:
        'q·k = Σᵢ qᵢkᵢ is a sum of d_k independent terms, each with mean 0 and variance E[qᵢ²]·E[kᵢ²] = 1. ' +
        'Variances of independent terms add, so the variance is d_k and the typical size √d_k. Dividing by √d_k brings the variance back to 1.',
    },
    {
      id: 'unscaled-large-d',
      prompt: 'Without the 1/√d_k factor, what happens to the weights when d_k is large, say 512?',
      options: [
        'Rows become nearly one-hot, and the gradients through softmax nearly vanish',
        'Rows become nearly uniform',
        'Nothing: softmax does not depend on the size of the scores',
        'Every weight becomes NaN',
      ],
      answer: 0,
      explanation:
        'Raw scores then spread by about √512 ≈ 22.6. Gaps that large let the top exponential dominate, so softmax saturates to almost one-hot, ' +
        'and a saturated softmax passes back almost no gradient, which stalls training. Scaling keeps the spread near 1 whatever d_k is.',
    },
    {
      id: 'factor-64',
      prompt: 'For d_k = 64, what factor multiplies the raw scores?',
      options: ['1/64', '1/8', '8', '1/√8'],
      answer: 1,
      explanation:
        'The factor is 1/√d_k = 1/√64 = 1/8 = 0.125. Dividing by d_k itself (1/64) would shrink the variance to 1/64 and make the weights almost uniform.',
    },
    {
      id: 'temperature',
      prompt: 'The temperature T divides the scaled scores. Raising T from 1 to 4 makes the weights:',
      options: ['sharper', 'unchanged', 'flatter, closer to uniform', 'negative'],
      answer: 2,
      explanation:
        'Dividing by 4 shrinks every gap between a row’s scores by 4, and smaller gaps give more even weights. ' +
        'As T grows the row tends to 1/n_k everywhere; as T shrinks towards 0 it tends to one-hot on the top score.',
    },
  ],
  softmax: [
    {
      id: 'shift',
      prompt: 'You subtract the same constant c from every score of a row. What happens to that row’s softmax?',
      options: ['Every weight drops by c', 'Nothing: the weights are exactly the same', 'Every weight is multiplied by e⁻ᶜ', 'The row no longer adds up to 1'],
      answer: 1,
      explanation:
        'exp(sⱼ − c) = exp(sⱼ)·e⁻ᶜ: every term and their sum pick up the same factor e⁻ᶜ, which cancels in the division. ' +
        'That is why the core subtracts the row max m first: the weights do not change, and every exponent is ≤ 0.',
    },
    {
      id: 'overflow',
      prompt: 'In float32, exp(x) overflows to +∞ once x is above about:',
      options: ['10', '709.8', '88.7', '1000'],
      answer: 2,
      explanation:
        'The largest float32 is about 3.4·10³⁸ ≈ e⁸⁸·⁷², so exp(89) is already +∞ (float64 lasts until about 709.8). ' +
        'Then ∞/∞ gives NaN. After subtracting the row max, the largest exponent is exp(0) = 1 and nothing overflows.',
    },
    {
      id: 'masked-weight',
      prompt: 'A key is masked: its score is set to −∞ before softmax. What is its weight?',
      options: ['A small negative number', 'NaN', 'Its weight from before the mask', 'Exactly 0, and the other weights still add up to 1'],
      answer: 3,
      explanation:
        'exp(−∞) = 0, so the masked key adds nothing to the row’s sum and its weight is 0; the other keys share the whole 1. ' +
        'If every key of a row is masked the sum is 0 and 0/0 is undefined: attnlab then defines the row’s weights and output as zeros.',
    },
    {
      id: 'example',
      prompt: 'A row of scores is [2, 1, 0]. Which is its softmax (rounded)?',
      options: ['[0.667, 0.333, 0]', '[0.665, 0.245, 0.090]', '[0.333, 0.333, 0.333]', '[1, 0, 0]'],
      answer: 1,
      explanation:
        'e² ≈ 7.389, e¹ ≈ 2.718 and e⁰ = 1 add up to about 11.107; dividing each by that sum gives 0.665, 0.245 and 0.090. ' +
        'Dividing the scores themselves by their sum (the first option) is not softmax, and it would break for negative scores.',
    },
  ],
  patterns: [
    {
      id: 'uniform',
      prompt: 'Every score in a row is the same (for example because W_Q = 0). What weights does the row get?',
      options: ['1 on the first key, 0 elsewhere', '1/n_k on every key', '0 on every key', 'It depends on the values V'],
      answer: 1,
      explanation:
        'With no gaps between the scores, every exponential in the row is the same, so each of the n_k keys gets 1/n_k (1/6 in the six-token sentence). ' +
        'The output row is then the plain mean of the value rows.',
    },
    {
      id: 'diagonal',
      prompt: 'The weights are large on the diagonal and small elsewhere. What does each token do?',
      options: ['Attends mostly to the previous token', 'Attends to every token equally', 'Attends mostly to itself', 'Attends mostly to the first token'],
      answer: 2,
      explanation:
        'Row i holds token i’s weights over the keys, and column i is its own key. A large entry at (i, i) means its query matched its own key best ' +
        '(as in the preset with W_Q = W_K), so its output is close to its own value row.',
    },
    {
      id: 'causal-zeros',
      prompt: 'With the causal mask, which weights are 0?',
      options: [
        'Those above the diagonal: keys later than the query',
        'Those below the diagonal: keys earlier than the query',
        'Those on the diagonal',
        'None: the mask changes only the scores',
      ],
      answer: 0,
      explanation:
        'Query i may look at keys 1…i only. The keys j > i lie above the diagonal; their scores become −∞ and their weights 0. ' +
        'The first token can see only itself, so its row is [1, 0, …, 0].',
    },
    {
      id: 'bright-column',
      prompt: 'Every row of the weights peaks in the same column j. What does that mean?',
      options: ['Token j reads from every other token', 'Token j is masked', 'The weights are uniform', 'Every token reads mostly from token j’s value'],
      answer: 3,
      explanation:
        'Columns are keys. A bright column means every query matches key j best, so every output row is pulled towards vⱼ ' +
        '(the preset where everyone looks at “cat”). A row says where one token looks; a column says who looks at one token.',
    },
  ],
  tokens: [
    {
      id: 'line-sum',
      prompt: 'In the head view, the lines from one token have thicknesses proportional to its weights. What do those weights add up to?',
      options: ['The number of tokens', '1, for every token', 'It depends on the scores', 'The largest score'],
      answer: 1,
      explanation:
        'The lines show one row of the softmax weights, and softmax makes every row positive and adding up to 1. ' +
        'A token can spread its attention thinly or put it all on one word, but the total is always 1.',
    },
    {
      id: 'heads-differ',
      prompt: 'Why can two heads draw completely different lines for the same token?',
      options: [
        'Each head has its own slice of W_Q and W_K, so its own queries and keys',
        'The heads use different softmax functions',
        'One head sees the tokens in reverse order',
        'They cannot: every head gives the same weights',
      ],
      answer: 0,
      explanation:
        'Each head projects the tokens with its own columns of W_Q, W_K and W_V, so it compares different features. ' +
        'One head may follow the previous word while another links a verb to its subject.',
    },
    {
      id: 'causal-lines',
      prompt: 'With the causal mask, which tokens can the third token of a sentence draw lines to?',
      options: ['Every token', 'Only itself', 'Tokens 1, 2 and 3', 'Tokens 3 onwards'],
      answer: 2,
      explanation: 'The mask sets every later key to −∞ before softmax, so its weight is exactly 0 and no line is drawn. Token 3 sees tokens 1 to 3.',
    },
  ],
  positions: [
    {
      id: 'permutation',
      prompt: 'Without positions (and without a mask), you swap the first two tokens of X. What happens to the output?',
      options: ['Every output row changes', 'Nothing changes at all', 'Its first two rows swap, and nothing else changes', 'The output becomes NaN'],
      answer: 2,
      explanation:
        'Without positions self-attention is permutation-equivariant: swapping input rows swaps the rows of Q, K and V alike, ' +
        'each query meets the same keys and values in another order, and a weighted sum does not care about order. ' +
        'So the rows come out the same, only swapped: word order is invisible.',
    },
    {
      id: 'sinusoid',
      prompt: 'What is the sinusoidal encoding of position p in the pair of dimensions (2i, 2i+1), for model width d?',
      options: [
        'p/d in every dimension',
        'sin(p / 10000^(2i/d)) and cos(p / 10000^(2i/d))',
        'A random vector per position, drawn once',
        'A one-hot vector with a 1 at position p',
      ],
      answer: 1,
      explanation:
        'Each pair is a sine and a cosine of the position at its own frequency, fast in the first dimensions and slow in the last. ' +
        'Every position gets a distinct pattern with entries in [−1, 1], and moving k positions on turns each (sin, cos) pair by a fixed angle, ' +
        'so dot products can reflect relative offsets.',
    },
    {
      id: 'added-where',
      prompt: 'Where does attnlab put the positional encoding?',
      options: [
        'It is added to X before the projections, so Q, K and V all carry it',
        'It is added to the scores',
        'It is multiplied into V only',
        'It replaces the tokens',
      ],
      answer: 0,
      explanation:
        'X + PE feeds all three projections. The same token at two positions now has two different rows, ' +
        'so its query, its key and hence its scores depend on where it stands.',
    },
  ],
  cost: [
    {
      id: 'naive-memory',
      prompt: 'The naive kernel stores the whole n×n matrix of scores. With d fixed, how does its memory grow with the sequence length n?',
      options: ['Like n', 'Like n²', 'Like n³', 'It stays the same'],
      answer: 1,
      explanation:
        'An n×n matrix has n² entries. At n = 16,384 that is about 268 million float32 numbers, 1 GiB per head, ' +
        'while Q, K, V and the output are only n×d each.',
    },
    {
      id: 'flash-memory',
      prompt: 'The flash kernel (tiled, FlashAttention-style) walks the keys block by block with an online softmax. How does its memory grow with n?',
      options: [
        'Like n²: it still stores every score, only in tiles',
        'Like log n',
        'Like n: it keeps Q, K, V, the output and a running max and sum per row',
        'Like n³',
      ],
      answer: 2,
      explanation:
        'Each block of scores is computed, folded into a running row max m, a running sum l and the output accumulator, then dropped. ' +
        'What stays is O(n·d): the inputs, the output and two numbers per row; the n×n matrix never exists.',
    },
    {
      id: 'time',
      prompt: 'With d fixed, how does the time of the two kernels grow with n?',
      options: [
        'Like n for the flash kernel and n² for the naive one',
        'Like n² for both: every query still meets every key',
        'Like n log n for both',
        'Like n² for the flash kernel and n³ for the naive one',
      ],
      answer: 1,
      explanation:
        'Both compute all n² dot products qᵢ·kⱼ and n² weighted value rows, about 4·n²·d floating-point operations per head. ' +
        'Tiling changes where the numbers live, not how many there are; it is faster in practice because it reuses data in cache. ' +
        'On a log-log chart both lines have slope 2.',
    },
    {
      id: 'double-n',
      prompt: 'You double n. Roughly how do the time and the naive kernel’s memory change?',
      options: ['Time ×2, memory ×2', 'Time ×4, memory ×2', 'Time ×2, memory ×4', 'Time ×4, memory ×4'],
      answer: 3,
      explanation: 'Both grow like n², and (2n)² = 4n². The flash kernel’s memory, growing like n, would only double.',
    },
  ],
  flash: FLASH_QUESTIONS,
  variants: VARIANTS_QUESTIONS,
  efficient: EFFICIENT_QUESTIONS,
  train: TRAIN_QUESTIONS,
  model: MODEL_QUESTIONS,
};

/** { answered, right } over `topic`'s quiz questions only (not the stepper's predictions). */
export function quizScore(progress, topic) {
  const ids = new Set(QUESTIONS[topic].map((q) => q.id));
  return topicScore(progress, topic, (id) => ids.has(id));
}
