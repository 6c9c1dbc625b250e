# PyTorch's side of bench:peers' native rows, a child process like attnlab-peer and ort-peer.mjs:
# torch.nn.functional.scaled_dot_product_attention on the CPU (its own flash kernel), fed the
# same Q, K, V file. One command a line on stdin, one JSON line back:
#   run INPUT N D HEADS CAUSAL THREADS OUTPUT [CALLS]  → {"times": […]}; INPUT holds Q, K, V
#     ([N, HEADS·D] each, float32, one after another), OUTPUT ("-" for none) receives O in the
#     same layout; CALLS runs back to back (1 when absent), "times" each one's ms
#   release                                   → {} (drops the tensors)
#   version                                   → {"torch": …, "capability": …}
# The instruction set is PyTorch's to pick at import (ATEN_CPU_CAPABILITY=avx2 holds ATen to
# AVX2, MKL_ENABLE_INSTRUCTIONS=AVX2 its matrix products: native.mjs's startTorch sets both for
# the forced-AVX2 rows).
import json
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

inputs = {"key": None}


def tensors(path, n, d, heads):
    key = (path, n, d, heads)
    if inputs["key"] != key:
        data = np.fromfile(path, dtype=np.float32)
        size = n * heads * d
        if data.size != 3 * size:
            raise ValueError(f"{path} holds {data.size} floats, not 3 × {n} × {heads * d}")
        # [N, HEADS·D] seen as [1, HEADS, N, D]: the view a model hands SDPA after its projections
        # (q.view(B, N, H, D).transpose(1, 2)), no copy. attnlab and ORT read these same rows.
        shaped = [torch.from_numpy(data[i * size : (i + 1) * size]).view(n, heads, d).transpose(0, 1).unsqueeze(0) for i in range(3)]
        inputs.update(key=key, qkv=shaped)
    return inputs["qkv"]


def run(args):
    path, n, d, heads, causal, threads, output = args[0], *map(int, args[1:6]), args[6]
    calls = int(args[7]) if len(args) > 7 else 1
    if calls < 1:
        raise ValueError(f"CALLS must be at least 1, not {calls}")
    torch.set_num_threads(threads)
    q, k, v = tensors(path, n, d, heads)
    with torch.inference_mode():
        times = []  # each call's ms
        for _ in range(calls):
            start = time.perf_counter()
            # and back to [N, HEADS·D], the output the other kernels write
            o = F.scaled_dot_product_attention(q, k, v, is_causal=causal == 1)[0].transpose(0, 1).reshape(n, heads * d)
            times.append((time.perf_counter() - start) * 1e3)
    if output != "-":
        o.numpy().tofile(output)
    return {"times": times}


def release(_):
    inputs.update(key=None, qkv=None)
    return {}


def version(_):
    return {"torch": torch.__version__, "capability": torch.backends.cpu.get_cpu_capability()}


COMMANDS = {"run": run, "release": release, "version": version}

for line in sys.stdin:
    command, *args = line.split()
    try:
        reply = COMMANDS[command](args) if command in COMMANDS else {"error": f'unknown command "{command}" ({", ".join(COMMANDS)})'}
    except Exception as error:  # the driver reports it in the row, as it does ORT's
        reply = {"error": str(error).split("\n")[0]}
    print(json.dumps(reply), flush=True)
