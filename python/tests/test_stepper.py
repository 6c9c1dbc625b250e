"""Stepper and View: what goes into the element's state, and the argument checks."""

import numpy as np
import pytest

import attnlab
from conftest import FakeTensor

Q = [[1.0, 0.0], [0.0, 1.0]]
K = [[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
V = [[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]


def test_numpy_lists_and_tensors_give_the_same_state():
    from_lists = attnlab.Stepper(Q=Q, K=K, V=V)
    from_numpy = attnlab.Stepper(Q=np.array(Q, dtype=np.float32), K=np.array(K), V=np.array(V, dtype=np.int64).astype(np.float64))
    tensor = FakeTensor(np.array(Q))
    from_tensor = attnlab.Stepper(Q=tensor, K=tuple(map(tuple, K)), V=V)
    assert from_lists.state == from_numpy.state == from_tensor.state
    assert tensor.calls == ["detach", "cpu", "numpy"]
    assert from_lists.state["Q"] == Q and isinstance(from_lists.state["Q"][0][0], float)
    assert from_lists.state["mode"] == "qkv"
    assert from_lists.state["tokens"] == ["t1", "t2", "t3"]  # one label a key
    np.testing.assert_array_equal(from_lists.K, np.array(K))


def test_projection_mode_and_trace_options_in_snake_case():
    X = np.arange(12.0).reshape(3, 4) / 10
    W = np.eye(4)
    s = attnlab.Stepper(X=X, Wq=W, Wk=W, Wv=W, Wo=W, heads=2, causal=True, window={"left": 1, "right": 0}, key_padding=[True, True, False], kv_heads=1, rope=True, step="softmax")
    assert s.state["mode"] == "x"
    assert s.state["heads"] == 2 and s.state["causal"] is True
    assert s.state["window"] == {"left": 1, "right": 0}
    assert s.state["keyPadding"] == [True, True, False] and s.state["kvHeads"] == 1
    assert s.state["step"] == "softmax" and s._attributes["step"] == "softmax"
    assert s.Q is None and s.X.shape == (3, 4)


def test_preset_alone():
    s = attnlab.Stepper(preset="two-heads", step="scores")
    assert s._attributes["preset"] == "two-heads"
    assert s.state == {"step": "scores"}
    assert attnlab.Stepper()._attributes["preset"] == "tiny"


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        (dict(Q=[[1, "x"]], K=K, V=V), TypeError, "Q must hold numbers"),
        (dict(Q=[[1, 0], [1]], K=K, V=V), ValueError, "Q must be rectangular"),
        (dict(Q=[1, 0], K=K, V=V), ValueError, "Q must have 2 dimensions"),
        (dict(Q=[[1, np.inf]], K=K, V=V), ValueError, "Q[0, 1] is inf"),
        (dict(Q=np.zeros((0, 2)), K=K, V=V), ValueError, "Q is empty"),
        (dict(Q=Q, K=K), TypeError, "missing V"),
        (dict(Q=Q, K=K, V=V, X=Q, Wq=Q, Wk=Q, Wv=Q), TypeError, "not both"),
        (dict(X=Q, Wq=Q), TypeError, "missing Wk, Wv"),
        (dict(causl=True), TypeError, "'causl'; did you mean causal"),
        (dict(causal="yes"), TypeError, "causal must be True or False"),
        (dict(heads=0), ValueError, "heads must be a whole number of at least 1"),
        (dict(heads=2.5), ValueError, "heads must be a whole number"),
        (dict(window=-1), ValueError, "window must be a whole number"),
        (dict(window={"up": 1}), ValueError, "window takes only 'left' and 'right'"),
        (dict(positional="learned"), ValueError, "positional must be one of 'none', 'sinusoidal'"),
        (dict(dropout=1.5), ValueError, "dropout must be a probability"),
        (dict(key_padding=[1, 0]), TypeError, "key_padding must be a 1-D list of True/False"),
        (dict(tokens="abc"), TypeError, "tokens must be a list of strings"),
        (dict(preset="nope"), ValueError, "preset must be one of"),
        (dict(step="softmaxx"), ValueError, "step must be one of"),
        (dict(theme="blue"), ValueError, "theme must be one of"),
        (dict(inputs="open"), ValueError, "inputs must be one of"),
    ],
)
def test_bad_arguments_raise_naming_the_argument(kwargs, error, words):
    with pytest.raises(error) as caught:
        attnlab.Stepper(**kwargs)
    assert words in str(caught.value)


def test_setting_a_matrix_or_the_step_changes_the_synced_state():
    a = attnlab.Stepper(Q=Q, K=K, V=V)
    b = attnlab.Stepper(Q=Q, K=K, V=V)
    seen = []
    a.observe(lambda change: seen.append(change["new"]), names="state")
    a.Q = np.array([[2.0, 0.0], [0.0, 3.0]])
    a.step = "scores"
    assert seen[0]["Q"] == [[2.0, 0.0], [0.0, 3.0]] and seen[-1]["step"] == "scores"
    np.testing.assert_array_equal(a.Q, [[2, 0], [0, 3]])
    assert b.state["Q"] == Q  # two widgets share nothing
    with pytest.raises(ValueError, match="step must be one of"):
        a.step = "nope"
    with pytest.raises(TypeError, match="Q must hold numbers"):
        a.Q = [["a"]]
    a.set(causal=True, temperature=2)
    assert a.state["causal"] is True and a.state["temperature"] == 2.0
    a.set(X=np.eye(3), Wq=np.eye(3), Wk=np.eye(3), Wv=np.eye(3))
    assert a.state["mode"] == "x"
    a.Wo = np.eye(3)
    assert a.state["mode"] == "x"
    a.K = K
    assert a.state["mode"] == "qkv"


def test_values_need_a_rendered_widget_and_stack_heads():
    s = attnlab.Stepper(preset="two-heads")
    with pytest.raises(RuntimeError, match="display it first"):
        s.values("softmax")
    # What front.js sends once the element has a trace (heads out of order on purpose).
    s._trace = {"steps": [
        {"id": "scores", "head": 1, "shape": [2, 2], "values": [5, 6, 7, 8]},
        {"id": "scores", "head": 0, "shape": [2, 2], "values": [1, 2, 3, 4]},
        {"id": "concat", "head": None, "shape": [2, 3], "values": [1, 2, 3, 4, 5, 6]},
    ]}
    np.testing.assert_array_equal(s.values("scores"), [[[1, 2], [3, 4]], [[5, 6], [7, 8]]])
    assert s.values("concat").shape == (2, 3)
    assert s.steps() == ["scores", "concat"]
    with pytest.raises(ValueError, match="its steps are scores, concat"):
        s.values("softmax")
    s._trace = {"steps": [{"id": "scores", "head": None, "shape": [600, 600], "values": None}], "tooLarge": "this trace has 360000 values, more than the 250000 the widget sends back"}
    with pytest.raises(RuntimeError, match="360000 values"):
        s.values("scores")


def test_views():
    for view in ["geometry", "softmax", "tokens", "model", "quiz"]:
        assert attnlab.View(view)._attributes["preset"] == view
    with pytest.raises(ValueError, match="view must be one of 'geometry'"):
        attnlab.View("stepper")
    assert attnlab.View("softmax", quiz=False)._attributes["no-quiz"] is True
