// The model view's self-check questions (quiz-questions.js has the other topics and the
// format: each with the index of the right option and why it is right).
export const MODEL_QUESTIONS = [
  {
    id: 'bpe-pieces',
    prompt: 'Why is a rare word such as “forebode” split into several boxes, while “ the” is one?',
    options: [
      'The tokenizer splits every word into syllables',
      'Byte-pair encoding merged the byte sequences most frequent in the training text; a rare word is left in smaller pieces',
      'Long words are cut every three letters',
      'The model cannot read letters, only whole words',
    ],
    answer: 1,
    explanation:
      'The tokenizer starts from single bytes and repeatedly merges the most frequent pair it saw in the corpus. Common words and word starts become one token; ' +
      'a word it rarely saw stays in pieces, each of which the model has learned.',
  },
  {
    id: 'temperature-sharper',
    prompt: 'The temperature goes from 1 down to 0.5. What happens to the next-token bars?',
    options: [
      'Nothing: temperature only matters for generation',
      'The likeliest tokens gain probability and the rest lose it: the distribution gets sharper',
      'Every probability halves',
      'The distribution gets flatter',
    ],
    answer: 1,
    explanation:
      'The scores are divided by the temperature before softmax, so at 0.5 every gap between two scores doubles, and softmax turns larger gaps into a ' +
      'larger share for the top tokens. At 0 only the likeliest token is left.',
  },
  {
    id: 'top-k-one',
    prompt: 'Top-k is set to 1. How does generation then behave, whatever the temperature and the seed?',
    options: ['It always takes the likeliest token', 'It takes a random token', 'It stops after one token', 'It repeats the prompt'],
    answer: 0,
    explanation:
      'Top-k keeps only the k likeliest tokens before drawing; with k = 1 one token is left, with probability 1, so the draw (and the seed) no longer matters: ' +
      'this is greedy decoding.',
  },
  {
    id: 'previous-head-thumbnail',
    prompt: 'A head is named “previous token”. Where is the bright line in its thumbnail?',
    options: ['On the diagonal', 'Just below the diagonal', 'In the first column', 'Spread evenly over each row'],
    answer: 1,
    explanation:
      'Row i is the query of token i; a previous-token head puts most of its weight on key i − 1, the cell just left of the diagonal. ' +
      'The first column would be a first-token (“sink”) head, the diagonal a head looking at its own token.',
  },
];
