// One run at a time of heavy work in a Worker (core-worker.js), as a Lit reactive controller:
// the cost, long-sequence and train views (through WorkerViewBase) and the efficient view's
// timing hold one. A run ends early, its worker terminated, when the learner cancels it, starts
// another, or the host leaves the page. Between runs the worker stays, ready for the next one,
// until the host leaves the page: the host owns its worker, opened when it is shown and closed
// when it goes, whatever it was doing, so no task starts one after.
import { html, nothing } from 'lit';

import { CoreWorker, TaskCancelled } from './core-worker.js';

export class WorkerRun {
  #busy = false;
  #message = null; // why the last run failed
  #status = null; // how the last run ended early, when it did
  #id = 0;

  constructor(host) {
    this.host = host;
    this.tasks = new CoreWorker(() => host.requestUpdate());
    host.addController(this);
  }

  get busy() {
    return this.#busy;
  }

  get message() {
    return this.#message;
  }

  set message(text) {
    this.#message = text;
    this.host.requestUpdate();
  }

  get status() {
    return this.#status;
  }

  hostConnected() {
    this.tasks.open();
  }

  hostDisconnected() {
    this.cancel(null);
    this.tasks.close(); // an idle worker too: it holds a core and its memory
  }

  /**
   * Runs `work(current)`, after ending the run under way. `work` checks current() after each
   * await and stops once it is false: the run was cancelled or replaced. A failure shows as the
   * message, through `describe`.
   */
  async start(work, describe = (error) => error.message) {
    this.cancel(null);
    const id = this.#id;
    const current = () => id === this.#id;
    this.#set(true, null, null);
    try {
      await work(current);
    } catch (error) {
      if (current() && !(error instanceof TaskCancelled)) {
        this.message = error.message; // kept even where describe throws on (a bug): no view retries a failure by itself
        this.message = describe(error);
      }
    } finally {
      if (current()) this.#set(false, this.#message, this.#status);
    }
  }

  /** Ends the run under way, if any (its worker stops), and shows `status`. */
  cancel(status) {
    this.#id++;
    if (!this.#busy) return;
    this.tasks.stop();
    this.#set(false, this.#message, status);
  }

  /** The button that ends the run under way; `status()` says how it ended. */
  cancelButton({ action = 'cancel', label = 'Cancel', status = () => 'Cancelled.' } = {}) {
    return html`<button data-action=${action} ?disabled=${!this.#busy} @click=${() => this.cancel(status())}>${label}</button>`;
  }

  /** Where no Worker could start, a note that the work runs on the page itself. */
  workerNote() {
    if (!this.tasks.onPage) return nothing;
    return html`<p class="lead" data-role="worker-note">
      This browser could not start a background worker, so the work runs on the page itself: the page stops responding
      until each run ends.
    </p>`;
  }

  #set(busy, message, status) {
    [this.#busy, this.#message, this.#status] = [busy, message, status];
    this.host.requestUpdate();
  }
}
