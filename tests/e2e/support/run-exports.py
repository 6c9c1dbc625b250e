"""Runs many of attnlab's generated export scripts in one Python process (a process per
script would be most of the test's time) and writes back what each computed.

stdin: a JSON list of scripts. stdout: a JSON list, per script, either {"results": [...],
"dtypes": [...]} (its `results`, one matrix per head, -inf as the string "-Infinity" as
attnlab's JSON export writes it) or {"error": "..."}. With --torch-standin, `import torch`
finds the NumPy-backed stand-in beside this file instead of PyTorch.
"""
import contextlib
import io
import json
import math
import os
import sys


def cell(v):
    if v == -math.inf:
        return "-Infinity"
    if v == math.inf:
        return "Infinity"
    if v != v:
        return "NaN"
    return v


def run(code):
    scope = {"__name__": "__export__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "<export>", "exec"), scope)
    results = scope["results"]
    return {
        "results": [[[cell(v) for v in row] for row in r.tolist()] for r in results],
        "dtypes": [str(r.dtype) for r in results],
    }


def main():
    sys.dont_write_bytecode = True  # no __pycache__ left in the tree
    if "--torch-standin" in sys.argv:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch-standin"))
    out = []
    for code in json.load(sys.stdin):
        try:
            out.append(run(code))
        except Exception as e:  # reported per script, so one failure does not hide the others
            out.append({"error": f"{type(e).__name__}: {e}"})
    json.dump(out, sys.stdout)


main()
