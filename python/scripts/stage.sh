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

# For attnlab's nbconvert template (attnlab/_nbconvert.py): Jupyter's widget manager for static
# pages and RequireJS, which nbconvert's own HTML export loads from a CDN. From the npm registry
# at the pinned versions, each tarball checked against its integrity, cached in python/build/npm/
# (fetched once, at build time; the wheel carries the two files and their licences).
vendor=$static/vendor
cache=python/build/npm
mkdir -p "$vendor" "$cache"
while read -r spec integrity file; do
  tarball=$cache/$(echo "$spec" | sed 's/^@//; s/\//-/; s/@\([^@]*\)$/-\1/').tgz
  if [ ! -f "$tarball" ]; then
    (cd "$cache" && npm pack --silent "$spec" >/dev/null) || { echo "stage: npm pack $spec failed" >&2; exit 1; }
  fi
  got="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  [ "$got" = "$integrity" ] || { echo "stage: $tarball is not $spec ($got)" >&2; rm -f "$tarball"; exit 1; }
  name=$(basename "$file")
  tar -xzOf "$tarball" "package/$file" >"$vendor/$name"
  if [ "$name" = embed-amd.js ]; then
    tar -xzOf "$tarball" package/dist/embed.js.LICENSE.txt >"$vendor/embed-amd.js.LICENSE.txt"
  fi
done <<'PINNED'
@jupyter-widgets/html-manager@1.0.15 sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA== dist/embed-amd.js
requirejs@2.3.8 sha512-7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNehIonFlyQXSowL6Mw== require.js
PINNED
cat >"$vendor/README.txt" <<'NOTICE'
embed-amd.js: @jupyter-widgets/html-manager 1.0.15 (npm), Copyright (c) Jupyter Development Team,
BSD-3-Clause licence; the licences of the libraries it bundles are in embed-amd.js.LICENSE.txt.
require.js: requirejs 2.3.8 (npm), Copyright jQuery Foundation and other contributors, MIT licence.
NOTICE
echo "stage: $(ls "$static" | wc -l) files in $static"
