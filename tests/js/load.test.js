// The parts of the package loaded on demand go through one loader (wasm-module.js onDemand):
// a part that cannot load is tried a bounded number of times, then fails with a LoadError
// naming the part; a later call tries again, and succeeds once the part is back. Tried on a
// copy of the installed package whose learning module's wasm is missing (a 404's equivalent).
import assert from 'node:assert/strict';
import { cp, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { packageDir } from './support/package.js';

test('a missing learning module fails after a bounded retry with a LoadError naming it; the next call loads it once back', async (t) => {
  const copy = await mkdtemp(join(tmpdir(), 'attnlab-load-'));
  t.after(() => rm(copy, { recursive: true, force: true }));
  await cp(packageDir, copy, { recursive: true });
  const wasm = join(copy, 'dist', 'attnlab-learn.wasm');
  await rename(wasm, `${wasm}.away`);
  const attnlab = await import(pathToFileURL(join(copy, 'dist', 'attnlab.js')).href);
  const lab = await attnlab.createAttnLab();

  // A bad config is refused before anything loads.
  await assert.rejects(lab.trainer({ task: 'copy' }), (error) => error instanceof attnlab.AttnLabError && /task/.test(error.message));

  const start = performance.now();
  const failure = await lab.trainer({}).then(
    () => null,
    (error) => error,
  );
  const seconds = (performance.now() - start) / 1000;
  assert.ok(failure instanceof attnlab.LoadError, `a LoadError, got ${failure?.name}: ${failure?.message}`);
  assert.equal(failure.name, 'LoadError');
  assert.match(failure.message, /learning module/);
  assert.match(failure.message, /attnlab-learn/);
  assert.match(failure.message, /tried 3 times/);
  // Three tries, 0.25 s and 1 s apart: bounded, and not given up at the first.
  assert.ok(seconds >= 1.2 && seconds < 10, `${seconds.toFixed(2)} s`);
  // loadLearning() goes the same way, and the core itself stays usable.
  await assert.rejects(lab.loadLearning(), attnlab.LoadError);
  assert.deepEqual(lab.attention({ Q: [[1]], K: [[1]], V: [[2]] }).output, [[2]]);

  // Back in place: the next call starts over and loads it.
  await rename(`${wasm}.away`, wasm);
  const trainer = await lab.trainer({});
  assert.equal(trainer.step(1).step, 1);
  trainer.delete();
});
