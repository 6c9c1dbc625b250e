"""Shared helpers. The tests import the installed attnlab (the wheel, in the virtual
environment python/scripts/test.sh makes), never python/attnlab from the source tree, unless
ATTNLAB_WHEEL is unset (a developer's quick run against a staged source tree)."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


class FakeTensor:
    """What attnlab needs of a torch.Tensor: .detach().cpu().numpy() (torch is no dependency)."""

    def __init__(self, array):
        self.array = array
        self.calls = []

    def detach(self):
        self.calls.append("detach")
        return self

    def cpu(self):
        self.calls.append("cpu")
        return self

    def numpy(self):
        self.calls.append("numpy")
        return self.array


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def wheel():
    path = os.environ.get("ATTNLAB_WHEEL")
    if not path:
        found = sorted((ROOT / "python" / "dist").glob("attnlab-*.whl"))
        if not found:
            pytest.fail("no wheel: run python/scripts/build-wheel.sh (npm test does)")
        path = found[-1]
    return Path(path)
