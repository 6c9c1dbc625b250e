// lab.trainer(config): the core's Trainer (an Embind object in the trainer's own wasm module,
// attnlab-train, loaded by the first call so that `import 'attnlab'` does not download it)
// behind plain methods. Results are plain values; delete() frees the core's object, after
// which every method throws.
import { AttnLabError, unwrap } from './errors.js';
import { fromCore } from './matrices.js';
import { stepRequest, trainerRequest } from './requests.js';
import { instantiate } from './wasm-module.js';

let trainModule; // the loaded module, for memory checks
let loading;
function loadTrainModule() {
  loading ??= import('./attnlab-train.js')
    .then(({ default: createTrainModule }) => instantiate(createTrainModule, new URL(/* @vite-ignore */ './attnlab-train.wasm', import.meta.url)))
    .then((core) => (trainModule = core))
    .catch((error) => {
      loading = undefined; // let a later call try again
      throw error;
    });
  return loading;
}

/** A new trainer of `config` (checked before the module loads). */
export async function createTrainer(config) {
  const request = trainerRequest(config);
  const core = await loadTrainModule();
  if (request.task) request.task = core.TrainingTask[request.task];
  return new Trainer(unwrap(core.trainer(request)));
}

/** Bytes malloc holds in the trainer's module; 0 before the first trainer. */
export const trainerAllocatedBytes = () => trainModule?.allocatedBytes() ?? 0;

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

  /** count Adam steps (1 … limits().trainSteps), then { step, loss, accuracy }. */
  step(count) {
    return unwrap(this.#core().step(stepRequest(count)));
  }

  /** The sample's tokens and every head's weights on it: weights[layer][head] (context × context). */
  attention() {
    return fromCore(unwrap(this.#core().attention()));
  }

  /** Layer 1 on the sample as trace() takes it: { X, Wq, Wk, Wv, Wo, heads, tokens }. */
  model() {
    return fromCore(unwrap(this.#core().model()));
  }

  /** Frees the core's trainer; a second call does nothing. */
  delete() {
    this.#handle?.delete();
    this.#handle = null;
  }
}
