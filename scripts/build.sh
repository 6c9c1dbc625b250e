#!/usr/bin/env bash
# Builds what is asked: native | native-asan | wasm | fuzz (each a CMake preset) | package |
# element | site | docs.
# `package` builds the wasm cores (single-threaded, and with pthreads) and assembles the npm
# package in dist/, <attn-lab> included.
# `element` bundles web/element/ into dist/element.js and its Worker into
# dist/attnlab-worker.js, next to the package they import, and writes the element's Custom
# Elements Manifest, custom-elements.json, at the package root.
# `site` builds the page web/app/ into web/dist/ (it needs the package and the element).
# `docs` builds the docs site into docs/.vitepress/dist/ (it needs the package and the element).
set -euo pipefail
cd "$(dirname "$0")/.."

preset() {
  local name=$1
  shift
  cmake --preset "$name" >/dev/null
  cmake --build --preset "$name" "$@"
}

package() {
  preset wasm --target attnlab-core attnlab-learn attnlab-model attnlab-typings
  preset wasm-threads --target attnlab-core-threads
  # The request and result interfaces of attnlab.d.ts, from the fields the core declares
  # (attnlab-typings, not shipped; a test checks that the committed typings are not stale).
  node scripts/typings.mjs build/wasm/cpp/bindings
  rm -rf dist
  mkdir -p dist
  cp web/lib/*.d.ts build/wasm/cpp/bindings/attnlab-core.wasm build/wasm/cpp/bindings/attnlab-learn.wasm dist/
  cp build/wasm/cpp/bindings/attnlab-model.wasm dist/
  # The threaded core (createAttnLab({ threads: true })): its wasm, its loader (minified: the
  # glue is most of it) and the script of its workers, also as .cjs, which Node runs as
  # CommonJS inside this "type": "module" package.
  local threads=build/wasm-threads/cpp/bindings/attnlab-core-threads
  node_modules/.bin/rolldown $threads.js --format esm --minify --file dist/attnlab-core-threads.js --logLevel silent
  cp $threads.wasm $threads.worker.js dist/
  cp $threads.worker.js dist/attnlab-core-threads.worker.cjs
  vite build --mode package --logLevel warn
  element
  echo "build: package assembled in dist/"
}

vite() { node_modules/.bin/vite "$@"; }

element() {
  vite build --mode element --logLevel warn
  vite build --mode worker --logLevel warn
  node_modules/.bin/custom-elements-manifest analyze --quiet --config scripts/custom-elements-manifest.config.mjs
  echo "build: element bundled into dist/element.js, its worker into dist/attnlab-worker.js, its manifest in custom-elements.json"
}

site() {
  vite build --logLevel warn
  echo "build: site built in web/dist/"
}

docs() {
  node scripts/docs.mjs
  echo "build: docs site built in docs/.vitepress/dist/"
}

for target in "${@:-package}"; do
  case "$target" in
    native | native-asan | wasm | fuzz) preset "$target" ;;
    package) package ;;
    element) element ;;
    site) site ;;
    docs) docs ;;
    *) echo "build: unknown target '$target' (native, native-asan, wasm, fuzz, package, element, site, docs)" >&2; exit 2 ;;
  esac
done
