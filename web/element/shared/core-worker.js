// Runs the tasks of core-tasks.js off the page's thread, in a module Worker with its own copy
// of the wasm core, so seconds of kernel work leave the page responsive. A wasm call cannot
// be interrupted, so stop() terminates the worker, which ends its CPU work (Chromium forces
// it within 2 s); the next task starts a fresh one. Its view owns it: close() when the view
// leaves the page ends the worker for good (a task asked for after that is cancelled, never
// started) until open() when the view is shown again. Where no Worker starts (none in this browser, or a
// Content-Security-Policy that forbids it), tasks run on the page's thread instead and
// `onPage` is true, for the view to say so.
import { createAttnLab } from 'attnlab';

import { TASKS } from './core-tasks.js';

/** What a task's promise rejects with when stop() ended it. */
export class TaskCancelled extends Error {
  constructor() {
    super('The work was cancelled.');
    this.name = 'TaskCancelled';
  }
}

// After the next frame, so that what the view shows before a task is drawn before the task
// takes the page's thread.
const afterFrame = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done)));

export class CoreWorker {
  /** True once tasks run on the page's thread (no Worker could start). */
  onPage = false;
  #onFallback;
  #worker = null;
  #ready = false; // the current worker's core has loaded
  #calls = new Map(); // id → { task, args, resolve, reject }
  #nextId = 1;
  #generation = 0; // bumped by stop(): a task waiting to run on the page then never runs
  #closed = false;
  #kept = {}; // what the tasks keep between calls when they run on the page (in a worker, its own)

  /** `onFallback` is called once, when tasks move to the page's thread. */
  constructor(onFallback = () => {}) {
    this.#onFallback = onFallback;
  }

  /** Runs TASKS[task] on `args`; resolves with its result, rejects with its error or TaskCancelled. */
  run(task, args) {
    if (this.#closed) return Promise.reject(new TaskCancelled());
    if (this.onPage || !this.#start()) return this.#runOnPage(task, args);
    return new Promise((resolve, reject) => {
      const id = this.#nextId++;
      this.#calls.set(id, { task, args, resolve, reject });
      this.#worker.postMessage({ id, task, args });
    });
  }

  /** Ends every task under way or waiting, and the worker; their promises reject with TaskCancelled. */
  stop() {
    this.#generation++;
    this.#end();
    this.#settleAll((call) => call.reject(new TaskCancelled()));
    this.#kept.training?.trainer.delete(); // as a terminated worker's trainer ends
    this.#kept = {};
  }

  /** Ends everything as stop() does, and refuses every task until open(). */
  close() {
    this.stop();
    this.#closed = true;
  }

  /** Takes tasks again after close(). */
  open() {
    this.#closed = false;
  }

  #start() {
    if (this.#worker) return true;
    try {
      this.#worker = new Worker(new URL('./attnlab-worker.js', import.meta.url), { type: 'module' });
    } catch {
      return this.#fallBack(); // no Worker in this browser, or one refused at once
    }
    this.#ready = false;
    this.#worker.onmessage = ({ data }) => {
      if (data.ready) this.#ready = true;
      else if ('failed' in data) this.#fallBack();
      else this.#answer(data);
    };
    // Before its core has loaded, an error means the worker's script or the wasm was refused
    // (a policy, a missing file): it never will load. After, a task's errors come as answers,
    // so an error event is a crash that ends the tasks under way.
    this.#worker.onerror = (event) => {
      if (!this.#ready) return this.#fallBack();
      this.#settleAll((call) => call.reject(new Error(`The background worker failed: ${event.message}`)));
    };
    return true;
  }

  // Terminates the worker and lets go of it: its handlers would keep this object, and the view,
  // alive for whoever still holds the Worker.
  #end() {
    if (!this.#worker) return;
    this.#worker.terminate();
    this.#worker.onmessage = this.#worker.onerror = null;
    this.#worker = null;
  }

  #answer({ id, result, error }) {
    const call = this.#calls.get(id);
    this.#calls.delete(id);
    if (error) call?.reject(Object.assign(new Error(error.message), error));
    else call?.resolve(result);
  }

  #settleAll(settle) {
    const calls = [...this.#calls.values()];
    this.#calls.clear();
    calls.forEach(settle);
  }

  // No worker: the tasks it held, and every later one, run on the page's thread.
  #fallBack() {
    this.#end();
    this.onPage = true;
    this.#onFallback();
    this.#settleAll(({ task, args, resolve, reject }) => this.#runOnPage(task, args).then(resolve, reject));
    return false;
  }

  async #runOnPage(task, args) {
    const generation = this.#generation;
    await afterFrame();
    if (generation !== this.#generation) throw new TaskCancelled();
    const kept = this.#kept;
    try {
      return (await TASKS[task](await createAttnLab(), args, kept)).result;
    } finally {
      // Stopped while the task awaited: what it made since belongs to no one.
      if (generation !== this.#generation) kept.training?.trainer.delete();
    }
  }
}
