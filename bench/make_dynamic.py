#!/usr/bin/python3
"""Writes a copy of a zoo model whose input has symbolic dimensions (batch, height, width: "N",
"H", "W") and whose output's batch is "N", for the run-time planning benchmark
(bench/run_replan_bench.mjs): the stand-in for a detector fed images of any size.

    make_dynamic.py IN.onnx OUT.onnx
"""
import sys

import onnx


def main():
    m = onnx.load(sys.argv[1])
    for vi in m.graph.input:
        dims = vi.type.tensor_type.shape.dim
        for d, name in zip(dims, ["N", None, "H", "W"]):
            if name:
                d.ClearField("dim_value")
                d.dim_param = name
    for vi in m.graph.output:
        d = vi.type.tensor_type.shape.dim[0]
        d.ClearField("dim_value")
        d.dim_param = "N"
    del m.graph.value_info[:]
    onnx.save(m, sys.argv[2])


if __name__ == "__main__":
    main()
