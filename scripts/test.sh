#!/usr/bin/env bash
# Every test suite, in dependency order: the core natively (and installed as a CMake
# package), under sanitizers and as wasm under Node; then the npm package, packed and
# installed the way a user gets it; then the element, the page, the tutorial and the docs site in headless
# Chromium; then the examples that use the packed package from a VitePress docs site and a
# React 19 app.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each heading says how long the suites have run so far (setup.sh before them not counted):
# CI stops a whole run at 90 minutes.
section() { printf '\n== %s (at %d min %02d s) ==\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }

section "JavaScript: Prettier and ESLint (web/, scripts/, tests/)"
node_modules/.bin/prettier --check --log-level warn .
node_modules/.bin/eslint .

section "C++: clang-format (cpp/, tests/)"
find cpp tests \( -name '*.cpp' -o -name '*.hpp' \) -print0 | xargs -0 clang-format-14 --dry-run -Werror

section "C++ core, native (Catch2)"
scripts/build.sh native
ctest --preset native

section "C++ package: cmake --install, then find_package(attnlab) from a separate project"
scripts/cmake-consumer.sh build/cmake-consumer

section "C++ core, native with ASan + UBSan (Catch2)"
scripts/build.sh native-asan
ctest --preset native-asan

section "libFuzzer on trace(), the long-sequence kernels, the trainer and the model module, 30 s each from their seed corpora (clang, ASan + UBSan)"
scripts/build.sh fuzz
rm -rf build/fuzz/corpus && cp -r tests/fuzz/corpus build/fuzz/corpus # new inputs stay out of the repo
for target in trace long learn model; do
  log=build/fuzz/$target.log
  if ! build/fuzz/tests/fuzz/attnlab-$target-fuzzer -max_total_time=30 -print_final_stats=1 \
    -artifact_prefix=build/fuzz/$target- build/fuzz/corpus/$target >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "fuzz: attnlab-$target-fuzzer found a failing input (saved under build/fuzz/)" >&2
    exit 1
  fi
  echo "attnlab-$target-fuzzer:"
  grep -E '^(stat::|Done|INFO: seed corpus)' "$log"
done

section "C++ core compiled to wasm, under Node (Catch2)"
scripts/build.sh wasm
ctest --preset wasm

section "npm package: pack, install into a scratch project, test from JavaScript"
scripts/build.sh package
scripts/pack-consumer.sh build/js-consumer
build/native/tests/cpp/attnlab-golden build/js-consumer/golden.json
# ONNX's own Attention test cases for tests/js/onnx-attention.test.js, from the onnx pinned in
# python/requirements-dev.txt (collecting them takes ~20 s: redone when the script or the venv changes).
if [ ! build/onnx-cases.json -nt scripts/onnx-cases.py ] || [ ! build/onnx-cases.json -nt python/.venv/installed ]; then
  python/.venv/bin/python scripts/onnx-cases.py build/onnx-cases.json
fi
# WebGPU in Node: Dawn on the SwiftShader Vulkan driver that ships with Chromium.
VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json ATTNLAB_CONSUMER=build/js-consumer \
  node --test --test-reporter=spec tests/js/

section "Typings: the docs' calls under tsc --strict from the packed package, the invalid ones refused"
# tests/types in the consumer, so 'attnlab' resolves as in a user's project (the TypeScript 7
# compiler's binary is tsc); each @ts-expect-error line must fail, every other line compile.
rm -rf build/js-consumer/types && cp -r tests/types build/js-consumer/types
node_modules/.bin/tsc -p build/js-consumer/types
echo "typings: $(grep -c '@ts-expect-error' tests/types/invalid.ts) invalid calls refused; the calls of $(ls tests/types/*.ts | grep -vc invalid) docs type-check"

section "<attn-lab>, the page, the tutorial and the docs site in headless Chromium (Playwright)"
# `package` above bundled the element into dist/; the site and the docs are built from it and the package.
scripts/build.sh site docs
node --test --test-reporter=spec tests/e2e/

section "Examples from the packed package: a VitePress docs site (SSR) and a React 19 app, in Chromium"
ATTNLAB_CONSUMER=build/js-consumer node --test --test-reporter=spec tests/examples/

section "Python package: the wheel in a fresh virtual environment (pytest), the widget in JupyterLab (Chromium)"
# `package` above built dist/, which the wheel carries.
python/scripts/test.sh
section "All suites passed"
