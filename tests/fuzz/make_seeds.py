#!/usr/bin/env python3
"""Writes the seed corpus of trace_fuzzer.cpp: a few well-formed requests in its byte layout.

The byte layout is described at the top of trace_fuzzer.cpp.
"""
import pathlib
import struct

HERE = pathlib.Path(__file__).parent / "corpus"


def floats(values):
    return b"".join(struct.pack("<f", v) for v in values)


def seed(name, flags, heads, n, width, d_model, body, n_k=None, extra=b""):
    head = bytes([flags, heads + 1, n, width, d_model]) + (bytes([n_k]) if n_k is not None else b"")
    (HERE / name).write_bytes(head + extra + body)


HERE.mkdir(exist_ok=True)
# The tiny example: Q 2x2, K 3x2, V 3x2 (flag 8: n_k given).
seed("tiny", 8, 1, 2, 2, 0, floats([1, 0, 0, 1] + [1, 0, 1, 1, 0, 1] + [1, 0, 0, 2, 1, 1]), n_k=3)
# Causal self-attention on 3 tokens, width 2.
seed("causal", 1, 1, 3, 2, 0, floats([0.5, -1, 2, 0, 1, 1] * 3))
# Projections with sinusoidal positions, 2 heads: X 3x2, W_Q/W_K/W_V 2x4.
seed("projections", 64, 2, 3, 4, 2, floats([1, 0, 0, 1, 1, 1] + [0.1 * i for i in range(8)] * 3))
# An explicit scale and temperature, and the second of two keys as padding.
seed("padding", 2 | 4 | 16, 1, 2, 2, 0, floats([1, 2, 3, 4] * 3), extra=floats([0.5, 2.0]) + bytes([2, 0, 1]))
# A boolean mask (2x2, query 1 may not see key 2) and W_O (2x3).
seed("mask-wo", 32 | 128, 1, 2, 2, 0, floats([1, 0, 0, 1] * 3) + bytes([3]) + floats([1, 0, 0, 0, 1, 0]), extra=bytes([2, 2, 1, 0, 1, 1]))
