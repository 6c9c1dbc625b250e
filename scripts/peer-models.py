"""One-op ONNX models for npm run bench:peers (scripts/bench-peers.mjs), written at bench time.

    /usr/bin/python3 scripts/peer-models.py OUTDIR

Each model is a single attention node over Q, K, V of shape [1, S, H*D] (S and H*D left
symbolic, so one file serves every size) with output [1, S, H*D]:
  mha-h{H}[-causal].onnx   com.microsoft MultiHeadAttention (causal: unidirectional = 1)
  gqa-h{H}.onnx            com.microsoft GroupQueryAttention, always causal; it also takes
                           seqlens_k [1] = S - 1 and total_sequence_length [] = S (int32)
  attention-h{H}[-causal].onnx   the opset-23 Attention op (causal: is_causal = 1)
Debian's python3-onnx (1.12) predates opset 23; it only serialises here, nothing checks the
schema, and ORT (1.30) is the judge.
"""
import os
import sys

from onnx import TensorProto, helper, save

OUT = sys.argv[1]
HEADS = (1, 8)


def tensor(name, dims=("batch", "S", "HD"), kind=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, kind, list(dims))


def write(name, node, inputs, outputs, opset):
    graph = helper.make_graph([node], name, inputs, outputs)
    model = helper.make_model(graph, opset_imports=opset, producer_name="attnlab bench:peers")
    model.ir_version = 10  # opset 23 needs IR 10; ORT 1.30 reads it
    save(model, os.path.join(OUT, f"{name}.onnx"))


QKV = [tensor("Q"), tensor("K"), tensor("V")]
OUTPUT = helper.make_tensor_value_info("O", TensorProto.FLOAT, None)  # shape left to ORT
MS = [helper.make_opsetid("", 23), helper.make_opsetid("com.microsoft", 1)]

os.makedirs(OUT, exist_ok=True)
for h in HEADS:
    for causal in (False, True):
        suffix = "-causal" if causal else ""
        mha = helper.make_node(
            "MultiHeadAttention", ["Q", "K", "V"], ["O"], domain="com.microsoft",
            num_heads=h, unidirectional=int(causal))
        write(f"mha-h{h}{suffix}", mha, QKV, [OUTPUT], MS)
        attention = helper.make_node(
            "Attention", ["Q", "K", "V"], ["O"], q_num_heads=h, kv_num_heads=h,
            is_causal=int(causal))
        write(f"attention-h{h}{suffix}", attention, QKV, [OUTPUT], [MS[0]])
    gqa = helper.make_node(
        "GroupQueryAttention",
        ["Q", "K", "V", "", "", "seqlens_k", "total_sequence_length"],
        ["O", "present_key", "present_value"], domain="com.microsoft",
        num_heads=h, kv_num_heads=h)
    lengths = [tensor("seqlens_k", [1], TensorProto.INT32),
               tensor("total_sequence_length", [], TensorProto.INT32)]
    present = [tensor(f"present_{x}", ["batch", h, "T", "D"]) for x in ("key", "value")]
    write(f"gqa-h{h}", gqa, QKV + lengths, [OUTPUT] + present, MS)
