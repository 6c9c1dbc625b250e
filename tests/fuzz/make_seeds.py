#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets: a few well-formed requests in each one's byte layout.

corpus/trace/ for trace_fuzzer.cpp, corpus/long/ for long_fuzzer.cpp, corpus/learn/ and
corpus/model/ for learn_fuzzer.cpp and model_fuzzer.cpp; each layout is described
at the top of its target.
"""
import math
import pathlib
import struct

CORPUS = pathlib.Path(__file__).parent / "corpus"


def floats(values):
    return b"".join(struct.pack("<f", v) for v in values)


def wave(count, phase):
    """count small values, different for each phase."""
    return [round(math.sin(phase + 0.7 * i), 3) for i in range(count)]


def write(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def trace_seed(name, flags, heads, n, width, d_model, body, n_k=None, extra=b""):
    head = bytes([flags, heads + 1, n, width, d_model]) + (bytes([n_k]) if n_k is not None else b"")
    write("trace", name, head + extra + body)


# The tiny example: Q 2x2, K 3x2, V 3x2 (flag 8: n_k given).
trace_seed("tiny", 8, 1, 2, 2, 0, floats([1, 0, 0, 1] + [1, 0, 1, 1, 0, 1] + [1, 0, 0, 2, 1, 1]), n_k=3)
# Causal self-attention on 3 tokens, width 2.
trace_seed("causal", 1, 1, 3, 2, 0, floats([0.5, -1, 2, 0, 1, 1] * 3))
# Projections with sinusoidal positions, 2 heads: X 3x2, W_Q/W_K/W_V 2x4.
trace_seed("projections", 64, 2, 3, 4, 2, floats([1, 0, 0, 1, 1, 1] + [0.1 * i for i in range(8)] * 3))
# An explicit scale and temperature, and the second of two keys as padding.
trace_seed("padding", 2 | 4 | 16, 1, 2, 2, 0, floats([1, 2, 3, 4] * 3), extra=floats([0.5, 2.0]) + bytes([2, 0, 1]))
# A boolean mask (2x2, query 1 may not see key 2) and W_O (2x3).
trace_seed("mask-wo", 32 | 128, 1, 2, 2, 0, floats([1, 0, 0, 1] * 3) + bytes([3]) + floats([1, 0, 0, 0, 1, 0]), extra=bytes([2, 2, 1, 0, 1, 1]))

# long_fuzzer.cpp's flags.
CAUSAL, SCALE, TWO_THREADS, BATCH, LONG_KEYS, WIDE_HEAD, SKEW, SAMPLED = (1 << i for i in range(8))


def long_seed(name, flags, heads, n_q, n_k, d, d_v, values, batch=None, skew=None, scale=None, window=None, options=None):
    """n_k is one byte, or a pair of bytes (summed) with LONG_KEYS; window = (head, rows, cols);
    options = (flags, their bytes before Q, K and V, what follows them: padding bytes and bias floats)."""
    data = bytes([flags, heads + 1 + (5 if options else 0)]) + (bytes([batch]) if batch is not None else b"")
    data += bytes([n_q]) + bytes(n_k if isinstance(n_k, tuple) else [n_k]) + bytes([d, d_v])
    data += (bytes([skew]) if skew is not None else b"") + (floats([scale]) if scale is not None else b"")
    if window is not None:
        head, rows, cols = window
        data += bytes([head + 1, len(rows), *rows, len(cols), *cols])
    after = b""
    if options is not None:
        data += bytes([options[0]]) + options[1]
        after = options[2]
    write("long", name, data + floats(values) + after)


# The tiny example through the kernels: Q 2x2, K 3x2, V 3x2.
long_seed("tiny", 0, 1, 2, 3, 2, 2, [1, 0, 0, 1] + [1, 0, 1, 1, 0, 1] + [1, 0, 0, 2, 1, 1])
# Causal, two heads of width 2 (Q, K 4x4) with values of width 1 (V 4x2).
long_seed("causal-heads", CAUSAL, 2, 4, 4, 2, 1, wave(16, 0) + wave(16, 1) + wave(8, 2))
# Two sequences of 3 queries and 2 keys each (Q 6x2, K and V 4x2), scale 0.5, on two threads.
long_seed("batch-scale", BATCH | SCALE | TWO_THREADS, 1, 3, 2, 2, 2, wave(12, 3) + wave(8, 4) + wave(8, 5), batch=2, scale=0.5)
# 70 queries and 300 keys, causal: past one 64-query block and one 256-key macro tile (the
# values not given are zeros).
long_seed("long-keys", LONG_KEYS | CAUSAL, 1, 70, (150, 150), 4, 2, wave(280, 6) + wave(400, 7))
# A head 512 wide, the widest the kernel takes (d byte 3: 509 + 3).
long_seed("wide-head", WIDE_HEAD, 1, 2, 2, 3, 1, wave(64, 8))
# Huge values whose scores overflow float32: a non-finite error, not NaN.
long_seed("overflow", SCALE, 1, 2, 2, 2, 1, [1e20, -1e20, 3e19, 1e20] * 2 + [1, 2], scale=1.0)
# K one column wider than Q: a shape mismatch, refused alike by the check and both kernels.
long_seed("skew", SKEW, 1, 2, 2, 2, 1, wave(4, 9) + wave(6, 10) + wave(2, 11), skew=1)
# Sampled weights of head 1 of 2 (Q, K 3x4), causal, rows 0 and 2, columns 0 … 2.
long_seed("sampled", SAMPLED | CAUSAL, 2, 3, 3, 2, 2, wave(12, 12) + wave(12, 13) + wave(12, 14), window=(1, [0, 2], [0, 1, 2]))

# long_fuzzer.cpp's options (with heads byte + 5).
BOTTOM_RIGHT, WINDOW_SIDES, KV, PADDING, SOFTCAP, ALIBI_BIAS, BIAS, CELL_SKEW = (1 << i for i in range(8))
# Every option at once: 2 query heads over 1 K/V head, causal bottom-right (5 queries, 9 keys),
# window 3 behind and 1 ahead, keys 2 and 7 padding, softcap 1.5, ALiBi, and a bias with a −∞
# cell and query 4's row blocked whole.
every_bias = [0.1 * (i % 5) for i in range(45)]
every_bias[3] = float("-inf")
every_bias[36:45] = [float("-inf")] * 9
long_seed("every-option", CAUSAL, 2, 5, 9, 2, 2, wave(20, 15) + wave(18, 16) + wave(18, 17),
          options=(BOTTOM_RIGHT | WINDOW_SIDES | KV | PADDING | SOFTCAP | ALIBI_BIAS | BIAS, bytes([3, 1, 2]) + floats([1.5]),
                   bytes([0, 0, 1, 0, 0, 0, 0, 1, 0]) + floats(every_bias)))
# 70 queries over 300 keys, bottom-right causal with a window of 30 keys behind (none ahead: 255).
long_seed("long-window", LONG_KEYS | CAUSAL, 1, 70, (150, 150), 4, 2, wave(280, 18) + wave(400, 19),
          options=(BOTTOM_RIGHT | WINDOW_SIDES, bytes([30, 255]), b""))

# trace_fuzzer.cpp's variant flags (after W_O): RoPE, its base, ALiBi, KV heads, dropout, a
# window with global tokens, dOutput, the gradient check.
ROPE, ROPE_BASE, ALIBI, KV_HEADS, DROPOUT, WINDOW, D_OUTPUT, CHECK = (1 << i for i in range(8))
# RoPE and ALiBi on 2 heads (Q, K, V 3x4), dropout 0.25 seed 7.
trace_seed("variants", 0, 2, 3, 4, 0, floats(wave(36, 15)) + bytes([ROPE | ALIBI | DROPOUT]) + floats([0.25]) + bytes([7]))
# The backward pass and the gradient check of X[1][0] with projections (X 3x2, W 2x4, 2 heads),
# a window of 2 with token 0 global.
write("trace", "backward", bytes([64, 3, 3, 4, 2]) + floats([1, 0, 0, 1, 1, 1] + [0.1 * i for i in range(8)] * 3)
      + bytes([WINDOW | D_OUTPUT | CHECK, 2, 1, 0, 3, 4]) + floats(wave(12, 18)) + bytes([0, 1, 0]))


def learn_seed(name, task, layers, heads, d_model, context, vocab, batch, rate, seed, steps, tail):
    """learn_fuzzer.cpp's layout; bytes are the field + 1 where the target subtracts 1."""
    write("learn", name, bytes([task + 1, layers + 1, heads + 1, d_model, context, vocab, batch]) + floats([rate])
          + bytes([seed, *steps]) + tail)


# Previous-token, 1 layer of 2 heads (d_model 8, context 6, vocab 8, batch 4), two steps of 2.
learn_seed("previous-token", 0, 1, 2, 8, 6, 8, 4, 0.01, 1, [2, 2, 0], floats([0.5]) + bytes([0, 1, 2]))
# Induction, 2 layers of 1 head, a large learning rate, and one refused step (count 0).
learn_seed("induction", 3, 2, 1, 4, 8, 6, 2, 1.0, 3, [0, 1, 4], floats([1e30]) + bytes([4, 0, 3]))


def model_seed(name, vocab, context, d_model, layers, heads, scale, tokens, tail):
    """model_fuzzer.cpp's layout; layers and heads are the field + 1 where the target subtracts 1."""
    ids = b"".join(struct.pack("<h", t) for t in tokens)
    write("model", name, bytes([vocab, context, d_model, layers + 1, heads + 1]) + floats([scale]) + bytes([0, 0, len(tokens)]) + ids + tail)


# A model of 2 layers of 2 heads (vocab 20, context 8, d_model 8) on 5 tokens, decoded 2 + 3,
# head 1 of layer 0, period 2; logits of 4 at temperature 0.7, top-3; 2 merges, an import of
# 1 layer of 2 heads over 3 tokens, and a text.
model_seed("small", 20, 8, 8, 2, 2, 0.1, [1, 5, 7, 5, 7],
           bytes([2, 1, 2, 2, 4]) + floats([0.5, -1, 2, 0]) + floats([0.7]) + bytes([3, 100, 2])
           + struct.pack("<hhhh", 116, 104, 256, 101) + bytes([1, 2, 3, 0]) + floats(wave(18, 1)) + b"the theme, then 42!")
# Parameters that overflow the residual stream, a token past the vocabulary, top-k past the logits.
model_seed("overflow", 16, 6, 4, 1, 1, 3e37, [0, 15, 16],
           bytes([0, 0, 0, 0, 2]) + floats([1e38, 3e38]) + floats([1e-45]) + bytes([9, 0, 0]))
