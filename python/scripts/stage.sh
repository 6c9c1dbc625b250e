#!/usr/bin/env bash
# Copies what the wheel carries into python/attnlab/static/ (gitignored): the built element
# and the package it imports (dist/: run `scripts/build.sh package` first), its Worker, the
# wasm files and the little model's files, and schema.json, the lists the Python API checks
# its arguments against (the core's trace() fields, step ids and limits, the element's views
# and presets), read from the same sources as the element so that they cannot drift.
# The threaded core is left out: it needs a cross-origin-isolated page, which no notebook is.
set -euo pipefail
cd "$(dirname "$0")/../.."
static=python/attnlab/static
for file in dist/element.js dist/attnlab.js dist/attnlab-core.wasm dist/attnlab-worker.js; do
  [ -f "$file" ] || { echo "stage: $file is missing: run scripts/build.sh package first" >&2; exit 1; }
done
rm -rf "$static"
mkdir -p "$static/model"
for file in dist/*.js dist/*.wasm; do
  case "$file" in *threads*) continue ;; esac
  cp "$file" "$static/"
done
cp model/model.json model/tokenizer.json model/weights.bin "$static/model/"
node --input-type=module -e "
import { TRACE_GROUPS, STEP_IDS, LIMITS } from './web/lib/core-lists.js';
import { VIEW_IDS } from './web/element/views/list.js';
import { PRESETS, STEPPER_PRESET_IDS } from './web/element/presets.js';
const presets = Object.keys(PRESETS);
process.stdout.write(JSON.stringify({ traceGroups: TRACE_GROUPS, stepIds: STEP_IDS, limits: LIMITS, views: VIEW_IDS, presets, stepperPresets: STEPPER_PRESET_IDS }, null, 1));
" > "$static/schema.json"
echo "stage: $(ls "$static" | wc -l) files in $static"
