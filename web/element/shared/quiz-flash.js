// The flash topic's self-check questions (the format of quiz-questions.js).
export const FLASH_QUESTIONS = [
  {
    id: 'rescale',
    prompt: 'A new key tile raises a row\'s running max from m_old to m_new. What happens to the sum l gathered so far?',
    options: ['Nothing', 'It is multiplied by exp(m_old − m_new)', 'It is reset to 0', 'It is divided by the number of tiles'],
    answer: 1,
    explanation: 'Each term was e^(s − m_old); measured against the new max it is e^(s − m_new) = e^(s − m_old)·e^(m_old − m_new), so l and the accumulator shrink by that factor.',
  },
  {
    id: 'memory',
    prompt: 'n doubles and the tile sizes stay. How does the memory the walk holds at once change?',
    options: ['It doubles', 'It grows four times', 'It stays the same', 'It halves'],
    answer: 2,
    explanation: 'It holds one Q block, one K and V tile, their scores and m, l and acc per query of the block: all set by the tile sizes, not by n. The n×n matrix, which it never forms, would grow four times.',
  },
  {
    id: 'exact',
    prompt: 'Is the tile walk\'s output an approximation of softmax(QKᵀ/√d)·V?',
    options: ['Yes, it drops small weights', 'Yes, it samples the keys', 'No, it is the same result, computed in a different order', 'Only without the causal mask'],
    answer: 2,
    explanation: 'The rescaling makes every exponential relative to the final max, so the result is exact up to float rounding; the view shows it beside the stepper\'s O.',
  },
];
