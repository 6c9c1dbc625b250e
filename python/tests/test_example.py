"""The getting-started notebook's code runs against the installed package (the cells that
need a rendered widget, tagged needs-widget, run in the browser test's notebook instead)."""

import contextlib
import io
import json
import os

import numpy as np
import pytest

import attnlab
from conftest import FakeTensor


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
    # The saved attention is a real model's, all-MiniLM-L6-v2's (minilm-attention.py): 6 layers
    # of 12 heads over its 9 tokens, each row a softmax.
    attentions = namespace["attentions"]
    assert [a.shape for a in attentions] == [(1, 12, 9, 9)] * 6
    np.testing.assert_allclose(np.stack(attentions).sum(-1), 1, atol=1e-5)
    assert isinstance(namespace["stepper"], attnlab.Stepper)
    assert "tokens has 8 tokens" in printed.getvalue()


def test_the_real_models_attention_as_torch_tensors_and_bad_ones_named(root):
    """out.attentions as transformers returns it (a tuple of tensors), and mistakes made with it."""
    saved = json.loads((root / "python" / "examples" / "minilm-attention.json").read_text())
    layers = tuple(FakeTensor(np.array(layer, dtype=np.float32)) for layer in saved["attentions"])
    sent = json.loads(attnlab.show_attention(layers, saved["tokens"]).attention_json)
    assert sent["tokens"][:3] == ["[CLS]", "the", "cat"]
    np.testing.assert_allclose(np.array(sent["attentions"]), np.stack([t.array for t in layers]), atol=1e-6)
    assert all(t.calls[-3:] == ["detach", "cpu", "numpy"] for t in layers)  # read as torch tensors
    tokens = saved["tokens"]
    bad = [
        ((*layers[:5], layers[5].array[:, :6]), tokens, "attentions[5] has 6 heads but layer 1 has 12"),
        ((*layers[:2], np.log(layers[2].array + 1e-9)), tokens, "attentions[2]: head 1, row 1, column 1 is"),
        (layers, tokens[1:], "tokens has 8 tokens"),
        (layers, " ".join(tokens), "tokens must be a list of strings"),
        (tuple(t.array for t in layers), tokens, None),
    ]
    for attentions, labels, words in bad:
        if words is None:
            attnlab.show_attention(attentions, labels)  # the plain arrays are fine too
            continue
        with pytest.raises((ValueError, TypeError)) as caught:
            attnlab.show_attention(attentions, labels, batch=0)
        assert words in str(caught.value), str(caught.value)
