// The threaded core's loader in Node, without globals: Emscripten 3.1.6's Node code reads
// require and __dirname as free names and stores the Worker class in global.Worker. Declared
// here (a --pre-js runs inside the module's factory), they are the factory's own: in the main
// thread from the settings attnlab.js passes (nodeRequire, nodeDirname); in a worker thread,
// whose own script sets its globals, from those.
var require = Module['nodeRequire'] || globalThis['require'];
var __dirname = Module['nodeDirname'];
var Worker = globalThis['Worker'];
var global = Module['nodeRequire']
  ? {
      set Worker(worker) {
        Worker = worker;
      },
    }
  : globalThis;
