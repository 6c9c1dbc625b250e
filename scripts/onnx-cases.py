"""Writes ONNX's own test cases for its Attention operator as JSON, for
tests/js/onnx-attention.test.js to run through attnlab's paths.

Usage: python scripts/onnx-cases.py OUT.json  (inside python/.venv, which has the onnx
version pinned in python/requirements-dev.txt; the cases change from one onnx release to
the next, so the test checks the count this script reports).

Each case: its name, opset, element type, the node's attributes, the inputs present (by the
operator's slot names: Q, K, V, attn_mask, past_key, past_value, nonpad_kv_seqlen) and the
expected outputs present (Y, present_key, present_value, qk_matmul_output), each as
{ shape, dtype, data } with data flat in row-major order. JSON has no infinities: -inf, inf
and NaN are written as the strings "-Infinity", "Infinity" and "NaN".

fp16 and bf16 cases also carry `float32Reference`: ONNX's own reference implementation run on
the same (already rounded) inputs cast to float32, so that attnlab's float32 result can be held
to float32's tolerance while the case's expected outputs carry fp16/bf16 rounding.
"""

import json
import math
import sys
import warnings

import numpy as np
import onnx
from onnx import helper
from onnx.backend.test.case.node import collect_testcases
from onnx.reference import ReferenceEvaluator

INPUT_SLOTS = ["Q", "K", "V", "attn_mask", "past_key", "past_value", "nonpad_kv_seqlen"]
OUTPUT_SLOTS = ["Y", "present_key", "present_value", "qk_matmul_output"]


def number(x):
    if math.isfinite(x):
        return x
    return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")


def tensor(value):
    array = np.asarray(value)
    dtype = str(array.dtype)
    if array.dtype == np.bool_:
        data = [int(v) for v in array.reshape(-1)]
    elif np.issubdtype(array.dtype, np.integer):
        data = [int(v) for v in array.reshape(-1)]
    else:
        # fp16 and bf16 widen exactly to float32, float32 exactly to Python's float64.
        data = [number(float(v)) for v in array.astype(np.float32).reshape(-1)]
    return {"shape": list(array.shape), "dtype": dtype, "data": data}


def float32_reference(node, opset, inputs, outputs):
    """ONNX's reference on the inputs cast to float32 (masks and lengths kept as they are)."""
    feeds = {}
    graph_inputs = []
    for slot, value in inputs.items():
        array = np.asarray(value)
        if array.dtype != np.bool_ and not np.issubdtype(array.dtype, np.integer):
            array = array.astype(np.float32)
        feeds[slot] = array
        graph_inputs.append(
            helper.make_tensor_value_info(slot, helper.np_dtype_to_tensor_dtype(array.dtype), array.shape)
        )
    node_inputs = [INPUT_SLOTS[i] if name else "" for i, name in enumerate(node.input)]
    node_outputs = [OUTPUT_SLOTS[i] if name else "" for i, name in enumerate(node.output)]
    attributes = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    graph = helper.make_graph(
        [helper.make_node("Attention", node_inputs, node_outputs, **attributes)],
        "float32_reference",
        graph_inputs,
        [helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None) for name in outputs],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    results = ReferenceEvaluator(model).run(list(outputs), feeds)
    return {name: tensor(result) for name, result in zip(outputs, results)}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: onnx-cases.py OUT.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the case modules' own overflow warnings
        cases = [
            t
            for t in collect_testcases("Attention")
            if t.name.startswith("test_attention") and not t.name.endswith("_expanded")
        ]
    written = []
    for case in cases:
        node = case.model.graph.node[0]
        assert node.op_type == "Attention", case.name
        assert len(case.data_sets) == 1, f"{case.name}: {len(case.data_sets)} data sets"
        feeds, expected = case.data_sets[0]
        # The graph names inputs and outputs as it likes; the node's slot order says which is which.
        input_names = [INPUT_SLOTS[i] for i, name in enumerate(node.input) if name]
        output_names = [OUTPUT_SLOTS[i] for i, name in enumerate(node.output) if name]
        inputs = dict(zip(input_names, feeds, strict=True))
        outputs = dict(zip(output_names, expected, strict=True))
        opset = next(o.version for o in case.model.opset_import if o.domain in ("", "ai.onnx"))
        entry = {
            "name": case.name,
            "opset": opset,
            "dtype": str(np.asarray(inputs["Q"]).dtype),
            "attributes": {a.name: helper.get_attribute_value(a) for a in node.attribute},
            "inputs": {name: tensor(value) for name, value in inputs.items()},
            "outputs": {name: tensor(value) for name, value in outputs.items()},
        }
        if entry["dtype"] != "float32":
            entry["float32Reference"] = float32_reference(node, opset, inputs, outputs)
        written.append(entry)
    with open(sys.argv[1], "w") as out:
        json.dump({"onnx": onnx.__version__, "cases": written}, out, allow_nan=False)
    print(f"onnx-cases: {len(written)} Attention cases of onnx {onnx.__version__} in {sys.argv[1]}")


if __name__ == "__main__":
    main()
