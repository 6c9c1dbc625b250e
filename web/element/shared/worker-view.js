// The base of the views whose heavy work runs in a Worker (core-worker.js): cost and
// long-sequence. A view has one run at a time; the run ends early, its worker terminated,
// when the learner cancels it, starts another, changes the settings, or the view leaves the
// page (another view chosen, the element removed). Between runs the worker stays, ready for
// the next one, until the view leaves the page: the view owns its worker, opened when it is
// shown and closed when it goes, whatever it was doing, so no task starts one after.
import { html, nothing } from 'lit';

import { CoreWorker, TaskCancelled } from './core-worker.js';
import { internalState, ViewBase } from './view-base.js';

export class WorkerViewBase extends ViewBase {
  static properties = { ...ViewBase.properties, ...internalState('_busy', '_message', '_status') };

  constructor() {
    super();
    this._busy = false;
    this._message = null; // why the last run failed
    this._status = null; // how the last run ended early, when it did
    this._runId = 0;
    this.tasks = new CoreWorker(() => this.requestUpdate());
  }

  connectedCallback() {
    super.connectedCallback();
    this.tasks.open();
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.cancelRun(null);
    this.tasks.close(); // an idle worker too: it holds a core and its memory
  }

  willUpdate(changed) {
    // Figures belong to the settings they were measured with.
    const previous = changed.get('viewState');
    if (previous && JSON.stringify(previous) !== JSON.stringify(this.viewState)) {
      this.cancelRun(null);
      this.clearFigures();
    }
  }

  /** Drops the figures shown (the settings changed). */
  clearFigures() {}

  /**
   * Runs `work(current)` as the view's run, after ending the one under way. `work` checks
   * current() after each await and stops once it is false: the run was cancelled or replaced.
   * A failure shows as the message, through `describe`.
   */
  async startRun(work, describe = (error) => error.message) {
    this.cancelRun(null);
    const id = this._runId;
    const current = () => id === this._runId;
    [this._busy, this._message, this._status] = [true, null, null];
    try {
      await work(current);
    } catch (error) {
      if (current() && !(error instanceof TaskCancelled)) {
        this._message = error.message; // kept even where describe throws on (a bug): no view retries a failure by itself
        this._message = describe(error);
      }
    } finally {
      if (current()) this._busy = false;
    }
  }

  /** Ends the run under way, if any (its worker stops), and shows `status`. */
  cancelRun(status) {
    this._runId++;
    if (!this._busy) return;
    this.tasks.stop();
    [this._busy, this._status] = [false, status];
  }

  /** The button that ends the run under way; `status()` says how it ended. */
  cancelButton({ action = 'cancel', label = 'Cancel', status = () => 'Cancelled.' } = {}) {
    return html`<button data-action=${action} ?disabled=${!this._busy} @click=${() => this.cancelRun(status())}>${label}</button>`;
  }

  /** Where no Worker could start, a note that the work runs on the page itself. */
  workerNote() {
    if (!this.tasks.onPage) return nothing;
    return html`<p class="lead" data-role="worker-note">
      This browser could not start a background worker, so the work runs on the page itself: the page stops responding
      until each run ends.
    </p>`;
  }
}
