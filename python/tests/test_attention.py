"""show_attention: Hugging Face's output_attentions and NumPy arrays in, the importAttention
JSON out, and the core's checks raised in Python naming the argument."""

import json

import numpy as np
import pytest

import attnlab
from conftest import FakeTensor

rng = np.random.default_rng(7)


def softmax_rows(shape):
    scores = rng.normal(size=shape)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


TOKENS = ["The", "cat", "sat", "down"]


def imported(widget):
    return json.loads(widget.attention_json)


def test_hugging_face_tuple_of_layers():
    layers = tuple(FakeTensor(softmax_rows((1, 3, 4, 4)).astype(np.float32)) for _ in range(2))
    widget = attnlab.show_attention(layers, TOKENS)
    sent = imported(widget)
    assert sent["tokens"] == TOKENS
    got = np.array(sent["attentions"])
    assert got.shape == (2, 1, 3, 4, 4)  # [layer][batch][head][query][key]
    np.testing.assert_allclose(got[:, 0], np.stack([l.array[0] for l in layers]), atol=1e-6)


def test_one_array_and_one_layer_and_a_batch_index():
    five = softmax_rows((2, 3, 2, 4, 4))  # [layer, batch, head, query, key]
    got = np.array(imported(attnlab.show_attention(five, TOKENS, batch=2))["attentions"])
    np.testing.assert_allclose(got[:, 0], five[:, 2], atol=1e-6)
    one = softmax_rows((2, 4, 4))
    got = np.array(imported(attnlab.show_attention(one, TOKENS))["attentions"])
    assert got.shape == (1, 1, 2, 4, 4)
    nested = one.tolist()
    assert imported(attnlab.show_attention([nested], TOKENS)) == imported(attnlab.show_attention(one, TOKENS))


def test_encoder_and_decoder_each_get_a_grid():
    box = attnlab.show_attention(encoder_attentions=(softmax_rows((1, 2, 4, 4)),), encoder_tokens=TOKENS, decoder_attentions=(softmax_rows((1, 2, 3, 3)),), decoder_tokens=["a", "b", "c"])
    grids = [w for w in box.children if hasattr(w, "attention_json")]
    assert [imported(g)["tokens"] for g in grids] == [TOKENS, ["a", "b", "c"]]


def with_cell(head, row, col, value):
    """Two heads of uniform weights, one cell changed."""
    w = np.full((1, 2, 4, 4), 0.25)
    w[0, head, row, col] = value
    return (w,)


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: attnlab.show_attention(with_cell(1, 2, 3, 1.5), TOKENS), ValueError, "attentions[0]: head 2, row 3, column 4 is 1.5"),
        (lambda: attnlab.show_attention(with_cell(0, 1, 0, 0.15), TOKENS), ValueError, "attentions[0]: head 1, row 2 sums to 0.9, not 1"),
        (lambda: attnlab.show_attention((-softmax_rows((1, 2, 4, 4)),), TOKENS), ValueError, "attention weights lie in 0 … 1"),
        (lambda: attnlab.show_attention((softmax_rows((1, 2, 4, 4)),), TOKENS[:3]), ValueError, "tokens has 3 tokens"),
        (lambda: attnlab.show_attention((softmax_rows((1, 2, 4, 4)), softmax_rows((1, 3, 4, 4))), TOKENS), ValueError, "attentions[1] has 3 heads but layer 1 has 2"),
        (lambda: attnlab.show_attention((softmax_rows((2, 2, 4, 4)),), TOKENS, batch=2), ValueError, "batch=2 is out of range"),
        (lambda: attnlab.show_attention((softmax_rows((1, 2, 4, 4)),), [1, 2, 3, 4]), TypeError, "tokens must be a list of strings"),
        (lambda: attnlab.show_attention((softmax_rows((1, 2, 4, 4)),)), TypeError, "attentions needs tokens"),
        (lambda: attnlab.show_attention(softmax_rows((1, 1, 2, 600, 600)), ["x"] * 600), ValueError, "tokens must hold 2 to 512 tokens"),
        (lambda: attnlab.show_attention(np.full((4, 4), 0.25), TOKENS), ValueError, "attentions must be [batch, heads, query, key]"),
        (lambda: attnlab.show_attention(np.full((1, 1, 2, 2, 2), np.nan), TOKENS[:2]), ValueError, "attentions[0, 0, 0, 0, 0] is nan"),
        (lambda: attnlab.show_attention(encoder_attentions=(softmax_rows((1, 2, 4, 4)),), encoder_tokens=TOKENS, decoder_attentions=(softmax_rows((1, 2, 3, 4)),), decoder_tokens=["a", "b", "c"]), ValueError, "decoder_attentions[0] is 3×4"),
        (lambda: attnlab.show_attention(), TypeError, "needs attentions"),
    ],
)
def test_bad_attentions_raise_naming_the_argument(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_many_layers_over_the_core_limit():
    layers = tuple(softmax_rows((1, 64, 64, 64)).astype(np.float32) for _ in range(17))  # 17·64·64·64 > 2^22
    with pytest.raises(ValueError, match="more than 4194304 weights"):
        attnlab.show_attention(layers, [str(i) for i in range(64)])
