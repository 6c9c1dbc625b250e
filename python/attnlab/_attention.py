"""show_attention: a real model's attention (Hugging Face `output_attentions`, or NumPy arrays)
in the element's head grid and token lines, the model view's "bring your own attention".

The checks are those of the core's importAttention (cpp/src/model/attention_import.cpp), done
here first so that a mistake raises in Python naming the argument, the layer and the head,
before anything is drawn; the widget's core checks the same again.
"""

from __future__ import annotations

import json

import ipywidgets
import numpy as np
import traitlets as t

from ._assets import schema
from ._convert import to_array
from ._widgets import THEMES, _Element, _one_of

ROW_TOLERANCE = 1e-2  # attnlab::import_row_tolerance (attention_import.hpp)
IMPORT_LAYERS = 128  # attnlab::import_layers
IMPORT_VALUES = 1 << 22  # attnlab::import_values: layers × heads × tokens × tokens


class Attention(_Element):
    """The widget show_attention() returns; attention_json is what the element imports."""

    attention_json = t.Unicode().tag(sync=True)

    def __init__(self, attention_json, *, theme):
        super().__init__("attention", {}, theme=theme, with_model=False, attention_json=attention_json)


def _layers(name, attentions, batch):
    """[(name of the layer, (heads, n, n) array)] from the forms a user has at hand."""
    if isinstance(attentions, (tuple, list)) and attentions and np.ndim(_plain(attentions[0])) in (3, 4):
        layers = [(f"{name}[{i}]", to_array(f"{name}[{i}]", a)) for i, a in enumerate(attentions)]  # Hugging Face's tuple
    else:
        whole = to_array(name, attentions)
        if whole.ndim == 5:  # [layer, batch, head, query, key]
            layers = [(f"{name}[{i}]", layer) for i, layer in enumerate(whole)]
        else:
            layers = [(name, whole)]  # one layer, [batch, head, query, key] or [head, query, key]
    out = []
    for where, layer in layers:
        if layer.ndim == 4:
            if not 0 <= batch < layer.shape[0]:
                raise ValueError(f"{where} has a batch of {layer.shape[0]} sequences, so batch={batch} is out of range")
            layer = layer[batch]
        elif layer.ndim != 3:
            raise ValueError(f"{where} must be [batch, heads, query, key] (or [heads, query, key]), got shape {layer.shape}")
        out.append((where, layer))
    return out


def _plain(value):
    return value.detach().cpu().numpy() if hasattr(value, "detach") else value


def check_attention(attentions, tokens, *, name="attentions", tokens_name="tokens", batch=0):
    """The checked weights as (layers, heads, n, n) float32 and the tokens; ValueError/TypeError naming the argument."""
    limits = schema()["limits"]
    if isinstance(tokens, str) or not isinstance(tokens, (list, tuple)) or not all(isinstance(t, str) for t in tokens):
        raise TypeError(f"{tokens_name} must be a list of strings, one a token (e.g. tokenizer.convert_ids_to_tokens(ids)), got {type(tokens).__name__}")
    n = len(tokens)
    if not 2 <= n <= limits["traceTokens"]:
        raise ValueError(f"{tokens_name} must hold 2 to {limits['traceTokens']} tokens, got {n}")
    layers = _layers(name, attentions, batch)
    if not 1 <= len(layers) <= IMPORT_LAYERS:
        raise ValueError(f"{name} must hold 1 to {IMPORT_LAYERS} layers, got {len(layers)}")
    heads = layers[0][1].shape[0]
    if not 1 <= heads <= limits["maxHeads"]:
        raise ValueError(f"{name}: a layer must hold 1 to {limits['maxHeads']} heads, got {heads}")
    if len(layers) * heads * n * n > IMPORT_VALUES:
        raise ValueError(f"{name}: {len(layers)} layers × {heads} heads × {n} × {n} tokens are more than {IMPORT_VALUES} weights")
    for l, (where, layer) in enumerate(layers):
        if layer.shape[0] != heads:
            raise ValueError(f"{where} has {layer.shape[0]} heads but layer 1 has {heads}: every layer needs the same heads")
        if layer.shape[1:] != (n, n):
            raise ValueError(
                f"{where} is {layer.shape[1]}×{layer.shape[2]} a head, but {tokens_name} has {n} tokens: each head's weights "
                f"must be {n}×{n} (cross-attention between two sequences is not square: show the encoder's or the decoder's self-attention)"
            )
        outside = np.argwhere((layer < 0) | (layer > 1))
        if len(outside):
            h, i, j = outside[0]
            raise ValueError(f"{where}: head {h + 1}, row {i + 1}, column {j + 1} is {layer[h, i, j]:.4g}: attention weights lie in 0 … 1 (pass the softmax weights, not the scores)")
        sums = layer.sum(axis=-1)
        off = np.argwhere(np.abs(sums - 1) > ROW_TOLERANCE)
        if len(off):
            h, i = off[0]
            raise ValueError(f"{where}: head {h + 1}, row {i + 1} sums to {sums[h, i]:.4g}, not 1 (within {ROW_TOLERANCE}): each row must be one query's softmax weights")
    return np.stack([layer for _, layer in layers]).astype(np.float32), list(tokens)


def attention_json(weights, tokens):
    """{ tokens, attentions: [layer][batch = 1][head][query][key] }, as lab.importAttention() reads it."""
    return json.dumps({"tokens": tokens, "attentions": np.round(weights.astype(np.float64), 6)[:, None].tolist()}, separators=(",", ":"))


def show_attention(attentions=None, tokens=None, *, encoder_attentions=None, decoder_attentions=None, encoder_tokens=None, decoder_tokens=None, batch=0, theme="auto"):
    """A model's attention: each layer × head as a thumbnail, and a chosen head's lines between tokens.

    attentions: Hugging Face's ``output_attentions`` as it comes (a tuple per layer of
    [batch, heads, query, key] tensors), one array [layers, batch, heads, query, key], or one
    layer [heads, query, key]; tokens: the n token strings. ``batch`` picks the sequence.
    For an encoder–decoder model give encoder_attentions with encoder_tokens and/or
    decoder_attentions with decoder_tokens instead: one grid each.
    """
    _one_of("theme", theme, THEMES)
    pairs = [("attentions", attentions, "tokens", tokens), ("encoder_attentions", encoder_attentions, "encoder_tokens", encoder_tokens), ("decoder_attentions", decoder_attentions, "decoder_tokens", decoder_tokens)]
    given = [p for p in pairs if p[1] is not None]
    if not given:
        raise TypeError("show_attention() needs attentions (with tokens), or encoder_attentions / decoder_attentions (with their tokens)")
    if attentions is not None and len(given) > 1:
        raise TypeError("give attentions, or encoder_attentions / decoder_attentions, not both")
    for name, value, tokens_name, labels in pairs:
        if value is None and labels is not None:
            raise TypeError(f"{tokens_name} was given without {name}")
        if value is not None and labels is None:
            raise TypeError(f"{name} needs {tokens_name}: the list of its token strings")
    widgets = []
    for name, value, tokens_name, labels in given:
        weights, labels = check_attention(value, labels, name=name, tokens_name=tokens_name, batch=batch)
        widgets.append((name, Attention(attention_json(weights, labels), theme=theme)))
    if len(widgets) == 1:
        return widgets[0][1]
    titles = {"encoder_attentions": "Encoder self-attention", "decoder_attentions": "Decoder self-attention"}
    return ipywidgets.VBox([w for name, widget in widgets for w in (ipywidgets.HTML(f"<h3>{titles[name]}</h3>"), widget)])
