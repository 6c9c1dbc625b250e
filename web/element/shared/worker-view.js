// The base of the views whose heavy work runs in a Worker: cost, long-sequence and train. The
// view's run (shared/worker-run.js) is `this.run`; a change of the settings also ends it, and
// clears the figures, which belong to the settings they were measured with.
import { ViewBase } from './view-base.js';
import { WorkerRun } from './worker-run.js';

export class WorkerViewBase extends ViewBase {
  constructor() {
    super();
    this.run = new WorkerRun(this);
  }

  willUpdate(changed) {
    const previous = changed.get('viewState');
    if (previous && JSON.stringify(previous) !== JSON.stringify(this.viewState)) {
      this.run.cancel(null);
      this.clearFigures();
    }
  }

  /** Drops the figures shown (the settings changed). */
  clearFigures() {}
}
