// The Worker behind core-worker.js: its own copy of the wasm core, running core-tasks.js on
// request. In: { id, task, args }. Out: { ready } once the core has loaded (or { failed } if
// it cannot load), then { id, result } or { id, error: { name, code, message } } per task.
import { createAttnLab } from 'attnlab';

import { TASKS } from './core-tasks.js';

const loading = createAttnLab();
const kept = {}; // this worker's caller's: one view owns each worker
loading.then(
  () => postMessage({ ready: true }),
  (error) => postMessage({ failed: error.message }),
);

onmessage = async ({ data: { id, task, args } }) => {
  try {
    const { result, transfer } = await TASKS[task](await loading, args, kept);
    postMessage({ id, result }, transfer);
  } catch ({ name, code, message }) {
    postMessage({ id, error: { name, code, message } });
  }
};
