// Instantiates an Emscripten module whose wasm sits beside the package's files. Browsers
// and bundlers fetch it through the loader's own new URL(…, import.meta.url); in Node the
// bytes are read here, because the generated loader only knows how to fetch.
//
// onDemand() is the one way the package loads a part of itself (the core, the threaded core,
// the learning module): once, with a bounded retry, and a LoadError naming the part that failed.
export const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';

/** createModule: an Emscripten MODULARIZE factory; wasm: the URL of its .wasm file; options: more of Module's settings. */
export async function instantiate(createModule, wasm, options = {}) {
  if (!isNode) return createModule(options);
  const fs = 'node:fs/promises'; // a variable, so browser bundlers leave it alone
  const { readFile } = await import(/* @vite-ignore */ fs);
  return createModule({ ...options, wasmBinary: await readFile(wasm) });
}

/** A part of the package that could not load: `part` names it, the message says why. */
export class LoadError extends Error {
  constructor(part, reason) {
    super(`${part} could not load: ${reason}`);
    this.name = 'LoadError';
    this.part = part;
  }
}

// Waits before the second and third tries: a dropped connection may come back, a 404 or a
// refusing policy will not, so the tries stop soon.
const RETRY_WAITS_MS = Object.freeze([250, 1000]);
const offline = () => globalThis.navigator?.onLine === false;
const pause = (ms) => new Promise((done) => setTimeout(done, ms));

/**
 * Loads `part` (a name for messages, e.g. "attnlab's learning module (attnlab-learn.wasm)")
 * with `load()` once and keeps it: the returned function gives the same promise to every
 * caller. A failed try is tried again after each of RETRY_WAITS_MS (not while the browser is
 * offline), then rejects with a LoadError; the next call starts over.
 */
export function onDemand(part, load) {
  let loading;
  return () =>
    (loading ??= tries(part, load).catch((error) => {
      loading = undefined;
      throw error;
    }));
}

async function tries(part, load) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await load();
    } catch (error) {
      const reason = error?.message ?? String(error);
      if (offline()) throw new LoadError(part, `the browser is offline (${reason})`);
      if (attempt >= RETRY_WAITS_MS.length) throw new LoadError(part, `${reason} (tried ${attempt + 1} times)`);
      await pause(RETRY_WAITS_MS[attempt]);
    }
  }
}
