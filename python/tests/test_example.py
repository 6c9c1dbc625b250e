"""The getting-started notebook's code runs against the installed package (the cells that
need a rendered widget, tagged needs-widget, run in the browser test's notebook instead)."""

import contextlib
import io
import json
import os

import numpy as np

import attnlab


def test_the_getting_started_notebook_runs(root):
    folder = root / "python" / "examples"
    notebook = json.loads((folder / "getting-started.ipynb").read_text())
    cells = [c for c in notebook["cells"] if c["cell_type"] == "code" and "needs-widget" not in c["metadata"].get("tags", [])]
    namespace, printed = {}, io.StringIO()
    here = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(printed):
            for cell in cells:
                exec(compile("".join(cell["source"]), "getting-started.ipynb", "exec"), namespace)
    finally:
        os.chdir(here)
    # The saved attention is a real model's: 3 layers of 4 heads, each row a softmax.
    attentions = namespace["attentions"]
    assert [a.shape[:2] for a in attentions] == [(1, 4)] * 3
    np.testing.assert_allclose(np.stack(attentions).sum(-1), 1, atol=1e-4)
    assert isinstance(namespace["stepper"], attnlab.Stepper)
    assert "tokens has 24 tokens" in printed.getvalue()
