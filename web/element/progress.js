// The learner's progress (quiz answers and predictions), kept in localStorage on this
// device only. Storage may be missing or refuse writes (private windows, sandboxed
// iframes): progress then lasts for the page's lifetime and nothing breaks.
const KEY = 'attnlab:progress:v1';

// Once storage has refused a write, this copy holds the progress and wins over storage
// (which may still hold an older state).
let memory = null;

function read() {
  if (memory) return memory;
  try {
    const parsed = JSON.parse(window.localStorage.getItem(KEY) ?? '{}');
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function write(progress) {
  try {
    window.localStorage.setItem(KEY, JSON.stringify(progress));
    memory = null;
  } catch {
    memory = progress; // kept in memory only
  }
  window.dispatchEvent(new CustomEvent('attnlab-progress', { detail: { progress } }));
}

/** { topic: { questionId: true | false } }: whether each answered question was right. */
export const loadProgress = read;

/** Records an answer; a later answer to the same question replaces the earlier one. */
export function recordAnswer(topic, questionId, correct) {
  const progress = read();
  const answers = progress[topic] && typeof progress[topic] === 'object' ? progress[topic] : {};
  write({ ...progress, [topic]: { ...answers, [questionId]: Boolean(correct) } });
}

/** Forgets the answers of one topic, or of every topic when none is given. */
export function resetProgress(topic) {
  if (topic === undefined) return write({});
  const { [topic]: _dropped, ...rest } = read();
  write(rest);
}
