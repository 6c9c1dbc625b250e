#!/usr/bin/env bash
# Builds the wheel into python/dist/ from the built element (dist/, scripts/build.sh package),
# with the pinned hatchling of python/.venv (no download: --no-isolation).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/stage.sh
rm -rf dist
.venv/bin/python -m build --wheel --no-isolation --outdir dist . >build-wheel.log 2>&1 || { cat build-wheel.log; exit 1; }
rm -f build-wheel.log
ls dist/*.whl
