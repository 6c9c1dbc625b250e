// The learner's progress (quiz answers and predictions), kept in localStorage on this
// device only. Storage may be missing or refuse writes (private windows, sandboxed
// iframes): progress then lasts for the page's lifetime and nothing breaks.
const KEY = 'attnlab:progress:v1';

/** The topic the stepper's "predict, then reveal" answers are recorded under. */
export const PREDICT_TOPIC = 'stepper';
/** The question id of a prediction about step `step`, and the test for one. */
export const predictionId = (step, kind) => `predict-${step}-${kind}`;
export const isPrediction = (id) => id.startsWith('predict-');

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

/**
 * { answered, right } over the recorded answers of `topic` whose question id `counts`
 * accepts (all of them by default): one count for every score shown on the page.
 */
export function topicScore(progress, topic, counts = () => true) {
  const results = Object.entries(progress[topic] ?? {})
    .filter(([id, result]) => typeof result === 'boolean' && counts(id))
    .map(([, result]) => result);
  return { answered: results.length, right: results.filter(Boolean).length };
}

/**
 * A Lit reactive controller that re-renders its host whenever the progress changes: an
 * answer or reset anywhere on this page, or in another tab (the `storage` event).
 */
export class ProgressController {
  constructor(host) {
    this._onChange = () => host.requestUpdate();
    host.addController(this);
  }

  hostConnected() {
    window.addEventListener('attnlab-progress', this._onChange);
    window.addEventListener('storage', this._onChange);
  }

  hostDisconnected() {
    window.removeEventListener('attnlab-progress', this._onChange);
    window.removeEventListener('storage', this._onChange);
  }
}

/** Forgets the answers of one topic, or of every topic when none is given. */
export function resetProgress(topic) {
  if (topic === undefined) return write({});
  const { [topic]: _dropped, ...rest } = read();
  write(rest);
}
