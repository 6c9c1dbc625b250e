// Instantiates an Emscripten module whose wasm sits beside the package's files. Browsers
// and bundlers fetch it through the loader's own new URL(…, import.meta.url); in Node the
// bytes are read here, because the generated loader only knows how to fetch.
const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';

/** createModule: an Emscripten MODULARIZE factory; wasm: the URL of its .wasm file. */
export async function instantiate(createModule, wasm) {
  if (!isNode) return createModule();
  const fs = 'node:fs/promises'; // a variable, so browser bundlers leave it alone
  const { readFile } = await import(/* @vite-ignore */ fs);
  return createModule({ wasmBinary: await readFile(wasm) });
}
