#!/usr/bin/env bash
# Builds what is asked: native | native-asan | wasm (each a CMake preset) | package.
# `package` builds the wasm core and assembles the npm package in dist/.
set -euo pipefail
cd "$(dirname "$0")/.."

preset() {
  local name=$1
  shift
  cmake --preset "$name" >/dev/null
  cmake --build --preset "$name" "$@"
}

package() {
  preset wasm --target attnlab-core
  rm -rf dist
  mkdir -p dist
  cp web/lib/*.js web/lib/*.d.ts build/wasm/cpp/bindings/attnlab-core.js \
    build/wasm/cpp/bindings/attnlab-core.wasm dist/
  echo "build: package assembled in dist/"
}

for target in "${@:-package}"; do
  case "$target" in
    native | native-asan | wasm) preset "$target" ;;
    package) package ;;
    *) echo "build: unknown target '$target' (native, native-asan, wasm, package)" >&2; exit 2 ;;
  esac
done
