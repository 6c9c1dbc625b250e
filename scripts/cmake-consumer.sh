#!/usr/bin/env bash
# Installs the native build's C++ package (cmake --install) into a scratch prefix in the
# folder given, then configures, builds and runs tests/cmake-consumer against it through
# find_package(attnlab), as a user would.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: cmake-consumer.sh <folder>}

rm -rf "$out"
cmake --install build/native --prefix "$out/prefix" >/dev/null
# The package promises headers that need nothing but the standard library.
if grep -rln '#include <xsimd' "$out/prefix/include"; then
  echo "cmake-consumer: the installed headers above include xsimd" >&2
  exit 1
fi
cmake -S tests/cmake-consumer -B "$out/build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$PWD/$out/prefix" >/dev/null
cmake --build "$out/build" -j2 >/dev/null
"$out/build/attnlab-consumer"
echo "cmake-consumer: find_package(attnlab) from $out/prefix built and ran attnlab-consumer"
