#!/usr/bin/env bash
# The Python package's tests (npm test runs this after the npm package is built into dist/):
# builds the wheel, installs it into a fresh virtual environment with its pinned
# dependencies and runs pytest there against the installed wheel; then installs it into
# python/.venv (which has JupyterLab, scripts/setup.sh) for the browser test in JupyterLab.
set -euo pipefail
cd "$(dirname "$0")/.."
wheel=$(bash scripts/build-wheel.sh | tail -n 1)
wheel=$PWD/$wheel

fresh=build/venv
rm -rf "$fresh"
.venv/bin/python -m venv "$fresh"
# The wheel's own dependencies at the pinned versions (requirements-dev.txt's), and pytest.
"$fresh/bin/pip" install --quiet --disable-pip-version-check -c requirements-dev.txt "$wheel" pytest
(cd tests && ATTNLAB_WHEEL="$wheel" "../$fresh/bin/python" -m pytest -p no:cacheprovider -q)

.venv/bin/pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheel"
cd ..
node --test --test-reporter=spec python/tests/browser/
