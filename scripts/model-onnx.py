"""The little language model (model/) as one ONNX graph, for npm run bench:model's peer.

    /usr/bin/python3 scripts/model-onnx.py MODEL_DIR OUT.onnx

Reads MODEL_DIR/model.json and its float16 weights.bin (the order of model.json's tensors) and
writes the same decoder as onnxruntime runs it best: token_ids int64 [1, S] (S symbolic, at
most the context) to logits float32 [1, S, vocab]. Per block: LayerNormalization (opset 17),
one MatMul by [W_Q | W_K | W_V] split in three, com.microsoft MultiHeadAttention (causal:
unidirectional = 1, its scale 1/sqrt(d_head) as the model's), W_O, the residual; then
LayerNormalization, W_fc with com.microsoft FastGelu (GPT-2's tanh GELU, its bias fused),
W_proj + b_proj, the residual. The weights are stored as float32, the values of the float16
ones, so the logits can match attnlab's forward() to float32 rounding (bench-model.mjs checks).
Debian's python3-onnx (1.12) only serialises; onnxruntime (1.30) is the judge.
"""
import json
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

MODEL_DIR, OUT = sys.argv[1], sys.argv[2]
EPSILON = 1e-5  # cpp/src/model/ops.hpp's layer_norm_epsilon

with open(os.path.join(MODEL_DIR, "model.json"), encoding="utf-8") as f:
    description = json.load(f)
config = description["config"]
flat = np.fromfile(os.path.join(MODEL_DIR, description["weights"]["file"]), dtype="<f2")
flat = flat.astype(np.float32)
d, heads = config["d_model"], config["heads"]


def tensor(name):
    """A tensor of model.json by name, as a float32 array of its rows × cols."""
    t = next(t for t in description["tensors"] if t["name"] == name)
    return flat[t["offset"]: t["offset"] + t["rows"] * t["cols"]].reshape(t["rows"], t["cols"])


initializers, nodes = [], []


def constant(name, array):
    initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
    return name


def node(op, inputs, output, domain=None, **attributes):
    nodes.append(helper.make_node(op, inputs, [output], domain=domain, **attributes))
    return output


def layer_norm(x, prefix, name):
    gain = constant(f"{prefix}.gain", tensor(f"{prefix}.gain")[0])
    bias = constant(f"{prefix}.bias", tensor(f"{prefix}.bias")[0])
    return node("LayerNormalization", [x, gain, bias], name, axis=-1, epsilon=EPSILON)


# x = E[token_ids] + P[0 … S − 1] (a Slice of P: ORT's own rewrite of Gather by Range to one
# fails its shape inference)
length = node("Slice", [node("Shape", ["token_ids"], "shape"), constant("one", np.array([1], np.int64)),
                        constant("two", np.array([2], np.int64))], "length")
places = node("Slice", [constant("positions", tensor("positions")), constant("zero", np.array([0], np.int64)),
                        length, constant("rows", np.array([0], np.int64))], "places")
x = node("Add", [node("Gather", [constant("embedding", tensor("embedding")), "token_ids"], "tokens"), places],
         "x0")

for layer in range(config["layers"]):
    p = f"layers.{layer}"
    qkv_weights = np.concatenate([tensor(f"{p}.w_{m}") for m in "qkv"], axis=1)
    qkv = node("MatMul", [layer_norm(x, f"{p}.ln1", f"{p}.norm1"), constant(f"{p}.w_qkv", qkv_weights)],
               f"{p}.qkv")
    nodes.append(helper.make_node("Split", [qkv, constant(f"{p}.split", np.array([d, d, d], np.int64))],
                                  [f"{p}.q", f"{p}.k", f"{p}.v"], axis=-1))
    heads_out = node("MultiHeadAttention", [f"{p}.q", f"{p}.k", f"{p}.v"], f"{p}.heads",
                     domain="com.microsoft", num_heads=heads, unidirectional=1)
    attended = node("MatMul", [heads_out, constant(f"{p}.w_o", tensor(f"{p}.w_o"))], f"{p}.attention")
    x = node("Add", [x, attended], f"{p}.mid")
    hidden = node("MatMul", [layer_norm(x, f"{p}.ln2", f"{p}.norm2"), constant(f"{p}.w_fc", tensor(f"{p}.w_fc"))],
                  f"{p}.fc")
    hidden = node("FastGelu", [hidden, constant(f"{p}.b_fc", tensor(f"{p}.b_fc")[0])], f"{p}.gelu",
                  domain="com.microsoft")
    projected = node("Add", [node("MatMul", [hidden, constant(f"{p}.w_proj", tensor(f"{p}.w_proj"))], f"{p}.proj"),
                             constant(f"{p}.b_proj", tensor(f"{p}.b_proj")[0])], f"{p}.mlp")
    x = node("Add", [x, projected], f"{p}.out")

node("MatMul", [layer_norm(x, "final", "final.norm"), constant("unembedding", tensor("unembedding"))], "logits")

graph = helper.make_graph(
    nodes, "attnlab little model", [helper.make_tensor_value_info("token_ids", TensorProto.INT64, [1, "S"])],
    [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, "S", config["vocab"]])], initializers)
model = helper.make_model(graph, producer_name="attnlab bench:model",
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
model.ir_version = 8
save(model, OUT)
