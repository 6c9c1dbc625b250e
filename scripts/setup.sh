#!/usr/bin/env bash
# One idempotent setup for `npm start` and `npm test`: installs the Debian packages and
# npm dependencies that are missing, and does nothing (quickly) when all are present.
set -euo pipefail
cd "$(dirname "$0")/.."

# libxsimd-dev, catch2: the C++ core and its tests. emscripten: the wasm build (binaryen: its
# wasm-opt, run again on the core after the link).
# chromium: the browser tests (and its SwiftShader Vulkan driver, which libvulkan1 loads for
# WebGPU in Node). libopenblas-dev: the BLAS baseline of the benchmark. clang-14 with
# libclang-rt-14-dev: the libFuzzer target. python3-numpy: runs the NumPy export in a test.
# clang-format-14: the C++ style check (.clang-format) that npm test runs first.
apt_packages=(cmake g++ pkg-config libxsimd-dev catch2 emscripten binaryen chromium libvulkan1 libopenblas-dev
  clang-14 libclang-rt-14-dev python3-numpy clang-format-14)
# python3-venv: the Python package's virtual environment (python/, below).
apt_packages+=(python3-venv)
# Extra packages a script asks for (npm run bench:peers: python3-onnx).
apt_packages+=("$@")

missing=()
for package in "${apt_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}"
fi

# npm ci only when node_modules is missing or older than the lockfile.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies"
  npm ci --no-audit --no-fund
fi

# The Python package (python/): a virtual environment with the pinned PyPI versions of
# python/requirements-dev.txt, made anew when that file is newer than the environment.
venv=python/.venv
if [ ! -f "$venv/installed" ] || [ python/requirements-dev.txt -nt "$venv/installed" ]; then
  echo "setup: making $venv from python/requirements-dev.txt"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r python/requirements-dev.txt
  touch "$venv/installed"
fi
