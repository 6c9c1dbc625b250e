// The heavy work of the views that time kernels (cost, long-sequence) or train (train), as tasks
// (lab, args, kept) → { result, transfer }; `kept` holds what one caller's tasks keep between
// calls (the train view's trainer). core-worker.js runs them in a Worker, or on the page's
// thread where no Worker can start. Each task draws its own inputs from the seed
// (random-inputs.js), so only a few numbers cross to the worker, and big results cross as
// transferred buffers, not copies.
import { randomQKV } from './random-inputs.js';

export const TASKS = {
  /**
   * The train view's run: `steps` (≥ 0) more steps of the trainer of `config` (a new one when
   * `fresh` or the config changed; 0 steps just makes it), then { progress, attention } and,
   * with `withModel`, the model of layer `layer` (0 … layers − 1, default 0) for the stepper. The trainer is kept between calls in
   * `kept`, the caller's own (one per CoreWorker, so two views never share a trainer).
   */
  async train(lab, { config, steps, fresh, withModel, layer = 0 }, kept) {
    const key = JSON.stringify(config);
    if (fresh || kept.training?.key !== key) {
      kept.training?.trainer.delete();
      kept.training = null; // a config the core refuses leaves no trainer behind
      kept.training = { key, trainer: await lab.trainer(config), progress: { step: 0, loss: null, accuracy: null } };
    }
    const { training } = kept;
    // Any number of steps (the view rebuilds a trainer it had by replaying them), in calls the core allows.
    for (let left = steps, most = lab.limits().trainSteps; left > 0; left -= most) training.progress = training.trainer.step(Math.min(left, most));
    const result = { progress: training.progress, attention: training.trainer.attention() };
    if (withModel) result.model = training.trainer.model(layer);
    return { result, transfer: [] };
  },

  /** Q, K and V of the seed, for a kernel that runs on the page (WebGPU). */
  inputs(lab, args) {
    const inputs = randomQKV(lab, args);
    return { result: inputs, transfer: [inputs.Q.data.buffer] }; // the three share one buffer
  },

  /**
   * The long-sequence view's run: with `kernel`, the flash kernel timed once (and its output
   * with `keepOutput`, to compare with another backend); always the exact weights of the
   * sampled `rows` and `cols`. Returns { ms?, output?, refused?, weights, hidden, visibleKeys }: `refused` is the
   * core's message when the kernel's size is beyond its limits for one call.
   */
  longSequence(lab, { n, d, causal, seed, rows, cols, kernel, keepOutput }) {
    const inputs = randomQKV(lab, { n, d, seed });
    const result = {};
    if (kernel) {
      try {
        const start = performance.now();
        const { output } = lab.flashAttention({ ...inputs, causal });
        result.ms = performance.now() - start;
        if (keepOutput) result.output = output.data;
      } catch (error) {
        // Beyond what one call may take (lab.limits()): said, and the sample still shown.
        if (error.code !== 'too-large') throw error;
        result.refused = error.message;
      }
    }
    Object.assign(result, lab.sampledCells({ Q: inputs.Q, K: inputs.K, causal, rows, cols }));
    return { result, transfer: result.output ? [result.output.buffer] : [] };
  },

  /**
   * The cost view's figure for one kernel ('naiveAttention' or 'flashAttention') at size n:
   * the fastest of `repeats` runs (the others paid for a timer tick or the garbage
   * collector) and the bytes the core held at its peak beyond what it held before; or
   * { refused } with the core's message when n is beyond the kernel's limits. `options`: the
   * kernel's own fields (the efficient view's window, φ or γ; longRetention takes no causal).
   */
  measure(lab, { method, n, d, causal, seed, repeats, options = { causal } }) {
    const request = { ...randomQKV(lab, { n, d, seed }), ...options };
    let ms = Infinity;
    lab.resetPeakMemory();
    const before = lab.memoryStats().trackedBytes;
    try {
      for (let repeat = 0; repeat < repeats; repeat++) {
        const start = performance.now();
        lab[method](request);
        ms = Math.min(ms, performance.now() - start);
      }
    } catch (error) {
      // The core caps one call (lab.limits()) so it returns within a couple of seconds.
      if (error.code !== 'too-large') throw error;
      return { result: { refused: error.message }, transfer: [] };
    }
    return { result: { ms, peakBytes: lab.memoryStats().peakTrackedBytes - before }, transfer: [] };
  },
};
