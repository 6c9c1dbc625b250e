// lab.trainer(config): the core's Trainer (an Embind object in the wasm heap) behind plain
// methods. Results are plain values; delete() frees the core's object, after which every
// method throws.
import { AttnLabError, unwrap } from './errors.js';
import { fromCore } from './matrices.js';
import { stepRequest } from './requests.js';

export class Trainer {
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
