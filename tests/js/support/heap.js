// A wasm heap that cannot grow, as in a browser that is out of memory: while call() runs,
// WebAssembly.Memory.prototype.grow refuses the way a browser's does, so a call that needs
// more than the heap holds fails for real inside the core.
export function withoutGrowth(call) {
  const grow = WebAssembly.Memory.prototype.grow;
  WebAssembly.Memory.prototype.grow = () => {
    throw new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded');
  };
  try {
    return call();
  } finally {
    WebAssembly.Memory.prototype.grow = grow;
  }
}
