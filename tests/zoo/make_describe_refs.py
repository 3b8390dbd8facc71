#!/usr/bin/python3
"""Reference descriptions of the zoo's models for popart::describeModel, made with the `onnx`
Python package and NumPy (not with the runtime): tests/zoo/zoo_describe_test.cpp and
tests/js/describe.test.mjs compare the runtime's description of every model with them.

Usage: /usr/bin/python3 tests/zoo/make_describe_refs.py ZOO_DIR [--out DIR] [--force]

For every model of ZOO_DIR/manifest.json (make_zoo.py's models and seed models) writes
OUT_DIR/NAME.describe.json (OUT_DIR defaults to ZOO_DIR):
- the model's fields, opsets, inputs (not initializers), outputs, parameter count and bytes, and
  the op-type histogram;
- every node: name (the ONNX name when non-empty and unique in the graph, else
  "<opType>_<index>", with "_<k>" added when taken), op type, domain ("ai.onnx" for ""), opset,
  inputs, outputs, attributes (onnx.helper.get_attribute_value; TENSOR as {dtype, shape, elements,
  values when <= 16});
- every tensor: kind, producer, consumers, and dtype / shape from onnx.shape_inference.infer_shapes
  (null dims where ONNX does not know them);
- statistics of numeric initializers and Constant outputs in float64: count, min, max, mean,
  population std (over the finite values), zeros, nans, infs and numpy.histogram(finite values,
  bins=HISTOGRAM_BINS, range=(min, max)).
- the parameter count and bytes: the initializers except optimizer state (Accl___ and PopART's other
  reserved prefixes) and the numeric Constant outputs.
A reference newer than its model with the same RECIPE is kept unless --force.
"""
import argparse
import json
import os
import sys

import numpy as np

# onnx 1.12 still uses numpy aliases that numpy 1.24 removed.
for _name, _typ in (("float", float), ("int", int), ("bool", bool), ("object", object)):
    if _name not in np.__dict__:
        setattr(np, _name, _typ)

import onnx  # noqa: E402
from onnx import numpy_helper, shape_inference  # noqa: E402

RECIPE = 2
HISTOGRAM_BINS = 32
STATS_TYPES = {"FLOAT", "DOUBLE", "FLOAT16", "BFLOAT16", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16",
               "UINT32", "UINT64"}
ELEMENT_BYTES = {"FLOAT": 4, "DOUBLE": 8, "FLOAT16": 2, "BFLOAT16": 2, "INT8": 1, "INT16": 2, "INT32": 4,
                 "INT64": 8, "UINT8": 1, "UINT16": 2, "UINT32": 4, "UINT64": 8, "BOOL": 1, "COMPLEX64": 8,
                 "COMPLEX128": 16}


def type_name(t):
    return onnx.TensorProto.DataType.Name(t) if t else None


def domain_name(d):
    return d or "ai.onnx"


def stats(a):
    a = np.asarray(a).astype(np.float64).ravel()
    finite = a[np.isfinite(a)]
    s = {"count": int(a.size), "zeros": int(np.count_nonzero(a == 0)), "nans": int(np.count_nonzero(np.isnan(a))),
         "infs": int(np.count_nonzero(np.isinf(a)))}
    if finite.size == 0:
        s.update(min=None, max=None, mean=None, std=None, histogram=None)
        return s
    lo, hi = float(finite.min()), float(finite.max())
    counts, edges = np.histogram(finite, bins=HISTOGRAM_BINS, range=(lo, hi))
    s.update(min=lo, max=hi, mean=float(finite.mean()), std=float(finite.std()),
             histogram={"min": float(edges[0]), "max": float(edges[-1]), "counts": [int(c) for c in counts]})
    return s


def tensor_summary(t):
    dims = [int(d) for d in t.dims]
    s = {"dtype": type_name(t.data_type), "shape": dims, "elements": int(np.prod(dims, dtype=np.int64))}
    if s["elements"] <= 16:
        v = numpy_helper.to_array(t).ravel()
        s["values"] = [x.decode("utf-8", "replace") if isinstance(x, bytes) else float(x) for x in v.tolist()]
    return s


def attribute(a):
    v = onnx.helper.get_attribute_value(a)
    kind = onnx.AttributeProto.AttributeType.Name(a.type)
    if kind == "TENSOR":
        v = tensor_summary(v)
    elif kind == "TENSORS":
        v = [tensor_summary(t) for t in v]
    elif kind == "GRAPH":
        v = {"graph": v.name, "nodes": len(v.node)}
    elif kind == "GRAPHS":
        v = [{"graph": g.name, "nodes": len(g.node)} for g in v]
    elif kind == "STRING":
        v = v.decode("utf-8", "replace")
    elif kind == "STRINGS":
        v = [x.decode("utf-8", "replace") for x in v]
    elif kind in ("FLOAT", "INT"):
        v = float(v) if kind == "FLOAT" else int(v)
    elif kind in ("FLOATS", "INTS"):
        v = [float(x) if kind == "FLOATS" else int(x) for x in v]
    else:
        v = None
    return {"name": a.name, "type": kind, "value": v}


def node_names(graph):
    count = {}
    for n in graph.node:
        count[n.name] = count.get(n.name, 0) + 1
    used = {n.name for n in graph.node if n.name and count[n.name] == 1}
    names = []
    for i, n in enumerate(graph.node):
        if n.name and count[n.name] == 1:
            names.append(n.name)
            continue
        base = "%s_%d" % (n.op_type, i)
        name, k = base, 1
        while name in used:
            name, k = "%s_%d" % (base, k), k + 1
        used.add(name)
        names.append(name)
    return names


def shape_of(vi):
    tt = vi.type.tensor_type
    dtype = type_name(tt.elem_type)
    if not tt.HasField("shape"):
        return dtype, None
    dims = []
    for d in tt.shape.dim:
        dims.append(int(d.dim_value) if d.HasField("dim_value") else (d.dim_param if d.HasField("dim_param") else None))
    return dtype, dims


def describe(path):
    model = onnx.load(path)
    inferred = shape_inference.infer_shapes(model)
    g, ig = model.graph, inferred.graph
    opsets = {domain_name(o.domain): int(o.version) for o in model.opset_import}
    inits = {t.name: t for t in g.initializer}
    inputs = [i.name for i in g.input if i.name not in inits]
    outputs = [o.name for o in g.output]
    names = node_names(g)

    infos = {}
    for vi in list(ig.value_info) + list(ig.input) + list(ig.output):
        infos[vi.name] = shape_of(vi)

    producer, consumers, order = {}, {}, []

    def mention(t):
        if t and t not in consumers:
            consumers[t] = []
            order.append(t)

    for i in g.input:
        mention(i.name)
    for t in g.initializer:
        mention(t.name)
    for n in g.node:
        for t in list(n.input) + list(n.output):
            mention(t)
    for o in g.output:
        mention(o.name)

    nodes = []
    constant = {}
    for name, n in zip(names, g.node):
        for t in n.output:
            if t:
                producer[t] = name
                if n.op_type == "Constant" and domain_name(n.domain) == "ai.onnx":
                    constant[t] = n
        for t in dict.fromkeys(i for i in n.input if i):
            consumers[t].append(name)
        nodes.append({"name": name, "opType": n.op_type, "domain": domain_name(n.domain),
                      "opset": opsets.get(domain_name(n.domain), 0), "inputs": list(n.input),
                      "outputs": list(n.output), "attributes": [attribute(a) for a in n.attribute]})

    tensors = {}
    for t in order:
        kind = ("input" if t in inputs else "initializer" if t in inits else "output" if t in outputs
                else "constant" if t in constant else "activation")
        if t in inits:
            dtype, shape = type_name(inits[t].data_type), [int(d) for d in inits[t].dims]
        else:
            dtype, shape = infos.get(t, (None, None))
        entry = {"kind": kind, "dtype": dtype, "shape": shape, "producer": producer.get(t, ""),
                 "consumers": consumers[t], "stats": None}
        known = dtype is not None and shape is not None and all(isinstance(d, int) for d in shape)
        entry["elements"] = int(np.prod(shape, dtype=np.int64)) if known else None
        entry["bytes"] = entry["elements"] * ELEMENT_BYTES[dtype] if known and dtype in ELEMENT_BYTES else None
        if t in inits and type_name(inits[t].data_type) in STATS_TYPES:
            entry["stats"] = stats(numpy_helper.to_array(inits[t]))
        elif t in constant:
            value = next((a for a in constant[t].attribute if a.name.startswith("value")), None)
            if value is not None and value.name in ("value", "value_float", "value_floats", "value_int", "value_ints"):
                v = onnx.helper.get_attribute_value(value)
                arr = numpy_helper.to_array(v) if value.name == "value" else np.asarray(v)
                if value.name != "value" or type_name(v.data_type) in STATS_TYPES:
                    entry["stats"] = stats(arr)
        tensors[t] = entry

    # Parameters: the initializers except optimizer state (PopART's reserved prefixes), plus the
    # numeric values of Constant nodes (those with statistics).
    state_prefixes = ("Accum___", "Accl___", "Accl1___", "Accl2___", "Accl3___", "Step___")
    params = param_bytes = 0
    for t in g.initializer:
        if t.name.startswith(state_prefixes):
            continue
        n = int(np.prod(t.dims, dtype=np.int64))
        params += n
        param_bytes += n * ELEMENT_BYTES.get(type_name(t.data_type), 0)
    for t, n in constant.items():
        if t in outputs:  # a graph output is described as an output, not a constant
            continue
        value = next((a for a in n.attribute if a.name.startswith("value")), None)
        if value is None:
            continue
        v = onnx.helper.get_attribute_value(value)
        if value.name == "value" and type_name(v.data_type) in STATS_TYPES:
            k, b = int(np.prod(v.dims, dtype=np.int64)), ELEMENT_BYTES[type_name(v.data_type)]
        elif value.name in ("value_float", "value_floats"):
            k, b = (1 if value.name == "value_float" else len(v)), 4
        elif value.name in ("value_int", "value_ints"):
            k, b = (1 if value.name == "value_int" else len(v)), 8
        else:
            continue
        params += k
        param_bytes += k * b
    hist = {}
    for n in g.node:
        hist[n.op_type] = hist.get(n.op_type, 0) + 1
    return {
        "recipe": RECIPE, "histogramBins": HISTOGRAM_BINS, "onnx": onnx.__version__, "numpy": np.__version__,
        "irVersion": int(model.ir_version), "producerName": model.producer_name,
        "producerVersion": model.producer_version, "graphName": g.name, "docString": model.doc_string,
        "modelBytes": os.path.getsize(path),
        "opsets": [{"domain": domain_name(o.domain), "version": int(o.version)} for o in model.opset_import],
        "inputs": inputs, "outputs": outputs, "parameterCount": params, "parameterBytes": param_bytes,
        "opHistogram": hist, "nodes": nodes, "tensors": tensors,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("zoo_dir")
    ap.add_argument("--out", default="")
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()
    out_dir = args.out or args.zoo_dir
    os.makedirs(out_dir, exist_ok=True)
    manifest = json.load(open(os.path.join(args.zoo_dir, "manifest.json")))
    names = list(manifest.get("models", {})) + list(manifest.get("seed_models", {}))
    for name in names:
        model = os.path.join(args.zoo_dir, name + ".onnx")
        ref = os.path.join(out_dir, name + ".describe.json")
        if not os.path.exists(model):
            continue
        if not args.force and os.path.exists(ref) and os.path.getmtime(ref) >= os.path.getmtime(model):
            try:
                if json.load(open(ref)).get("recipe") == RECIPE:
                    continue
            except ValueError:
                pass
        d = describe(model)
        with open(ref + ".tmp", "w") as f:
            json.dump(d, f)
        os.replace(ref + ".tmp", ref)
        print("described %s" % name, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
