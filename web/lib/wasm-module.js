// Instantiates an Emscripten module whose wasm sits beside the package's files. Browsers
// and bundlers fetch it through the loader's own new URL(…, import.meta.url); in Node the
// bytes are read here, because the generated loader only knows how to fetch.
export const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';

/** createModule: an Emscripten MODULARIZE factory; wasm: the URL of its .wasm file; options: more of Module's settings. */
export async function instantiate(createModule, wasm, options = {}) {
  if (!isNode) return createModule(options);
  const fs = 'node:fs/promises'; // a variable, so browser bundlers leave it alone
  const { readFile } = await import(/* @vite-ignore */ fs);
  return createModule({ ...options, wasmBinary: await readFile(wasm) });
}
