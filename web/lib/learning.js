// The learning module, attnlab-learn: a wasm module of its own with the trace's backward steps,
// the gradient check and the trainer, loaded on demand (lab.loadLearning(), or the first
// lab.trainer()) so that `import 'attnlab'` does not download it. lab.trainer(config) gives
// the core's Trainer (an Embind object in that module's heap) behind plain methods: results
// are plain values; delete() frees the core's object, after which every method throws.
import { AttnLabError, unwrap } from './errors.js';
import { fromCore } from './matrices.js';
import { withOlderName } from './older-names.js';
import { stepRequest, trainerRequest } from './requests.js';
import { instantiate, onDemand } from './wasm-module.js';

let learnModule; // the loaded module
/** Loads the learning module once (onDemand: retried a few times, else a LoadError); resolves when it is ready. */
export const loadLearning = onDemand("attnlab's learning module (attnlab-learn.js and attnlab-learn.wasm)", () =>
  import('./attnlab-learn.js')
    .then(({ default: createLearnModule }) => instantiate(createLearnModule, new URL(/* @vite-ignore */ './attnlab-learn.wasm', import.meta.url)))
    .then((core) => (learnModule = core)),
);

/** The loaded learning module, for `what` (a request field or a method); throws if not loaded yet. */
export function learning(what) {
  if (!learnModule)
    throw new AttnLabError('invalid-argument', `${what}: needs attnlab's learning module, a download of its own; load it once with await lab.loadLearning()`);
  return learnModule;
}

/** A new trainer of `config` (checked before the module loads). */
export async function createTrainer(config) {
  const request = trainerRequest(config);
  const core = await loadLearning();
  return new Trainer(unwrap(core.trainer(request)));
}

/** Bytes malloc holds in the learning module; 0 before it loads. */
export const learningAllocatedBytes = () => learnModule?.allocatedBytes() ?? 0;

class Trainer {
  #handle;

  /** handle: the core's Trainer. */
  constructor(handle) {
    this.#handle = handle;
  }

  #core() {
    if (!this.#handle) throw new AttnLabError('invalid-argument', 'this trainer was deleted; make a new one with lab.trainer()');
    return this.#handle;
  }

  /**
   * count Adam steps (1 … limits().trainSteps), then { step, loss, heldOutLoss, accuracy } and
   * every head's scores on the induction probe: previousToken[layer][head], induction[layer][head].
   */
  step(count, ...extra) {
    return fromCore(unwrap(this.#core().step(stepRequest(count, ...extra))));
  }

  /** The sample's token ids and every head's weights on it: { tokenIds, weights[layer][head] (contextLength × contextLength) }. */
  attention() {
    return withOlderName(fromCore(unwrap(this.#core().attention())), 'tokens', 'tokenIds');
  }

  /**
   * Layer `layer` (0 … layers − 1, default 0) on the sample: { X (the residual stream entering
   * it), Wq, Wk, Wv, Wo, heads } as trace() takes them, and the sample's tokenIds.
   */
  model(layer = 0, ...extra) {
    if (extra.length) throw new AttnLabError('invalid-argument', `model() takes one argument, the layer; got ${1 + extra.length}`);
    // The core checks the range; a whole number reaches it as an int.
    if (!Number.isInteger(layer) || Math.abs(layer) > 2 ** 31 - 1)
      throw new AttnLabError('invalid-argument', `layer must be a whole number, got ${typeof layer === 'number' ? layer : typeof layer}`);
    return withOlderName(fromCore(unwrap(this.#core().model(layer))), 'tokens', 'tokenIds');
  }

  /** Frees the core's trainer; a second call does nothing. */
  delete() {
    this.#handle?.delete();
    this.#handle = null;
  }
}
