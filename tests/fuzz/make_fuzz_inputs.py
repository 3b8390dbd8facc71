#!/usr/bin/python3
"""Gathers the fuzzers' seed corpora and writes the model fuzzer's dictionary.

Usage: /usr/bin/python3 tests/fuzz/make_fuzz_inputs.py OUT_DIR [--zoo DIR] [--onnx-data DIR]

Writes, under OUT_DIR (a build directory: corpora are never committed):
  seeds/model/    every ONNX backend test model (DIR/**/model.onnx) and the reference-zoo models
                  (DIR/*.onnx) of at most 16 MiB. A zoo model over 256 KiB is slimmed: each initializer over 1 KiB
                  becomes a ConstantOfShape node of the same type and shape, which keeps the graph,
                  its attributes and its shapes in a few KiB (the fuzzer mutates small inputs faster).
  seeds/builder/  64 pseudo-random byte strings (fixed seed) for the Builder harness, which decodes
                  any bytes into calls.
  model.dict      libFuzzer dictionary: ONNX protobuf fields as they are encoded (NodeProto.op_type
                  with every op type of the op list, AttributeProto.name with every attribute name the
                  op families read, TensorProto data types, dimension values at the edges).

Needs Debian's python3-onnx for the slimming only.
"""
import argparse
import os
import random
import re
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_SEED_BYTES = 256 << 10
# Zoo models with more weights than this (alexnet, resnet18) are left out: importing one folds
# their ConstantOfShape weights back to full size, which takes seconds per run under the
# sanitizers. The smaller ones cover the same op types.
MAX_ZOO_WEIGHT_BYTES = 16 << 20


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, wire, payload=b""):
    """One encoded protobuf field (wire 0: varint payload already encoded; wire 2: bytes)."""
    key = varint((number << 3) | wire)
    return key + (varint(len(payload)) + payload if wire == 2 else payload)


def op_types():
    types = set()
    for name in os.listdir(os.path.join(ROOT, "core/src/ops")):
        if name.endswith(".def"):
            with open(os.path.join(ROOT, "core/src/ops", name)) as f:
                types.update(re.findall(r'^POPART_OP\(\w+, "([^"]+)"', f.read(), re.M))
    return sorted(types)


def attribute_names():
    names = set()
    pat = re.compile(r'get(?:Int|Float|String|Ints|Floats|Strings|Tensor|Graph)\("([^"]+)"')
    for d in ("core/src/ops", "core/src/backends/cpu/kernels", "core/src/ir"):
        for name in os.listdir(os.path.join(ROOT, d)):
            if name.endswith(".cpp"):
                with open(os.path.join(ROOT, d, name)) as f:
                    names.update(pat.findall(f.read()))
    return sorted(names)


def escape(b):
    return "".join(chr(c) if 32 <= c < 127 and chr(c) not in '"\\' else "\\x%02x" % c for c in b)


def write_dict(path):
    entries = []
    for t in op_types():
        entries.append(field(4, 2, t.encode()))  # NodeProto.op_type
    for a in attribute_names():
        entries.append(field(1, 2, a.encode()))  # AttributeProto.name
    for d in ("", "ai.onnx", "ai.graphcore", "ai.onnx.ml"):
        entries.append(field(1, 2, d.encode()))  # OperatorSetIdProto.domain
        entries.append(field(7, 2, d.encode()))  # NodeProto.domain
    for t in range(0, 17):
        entries.append(field(2, 0, varint(t)))  # TensorProto.data_type
        entries.append(field(1, 0, varint(t)))  # TypeProto.Tensor.elem_type
    for a in range(0, 14):
        entries.append(field(20, 0, varint(a)))  # AttributeProto.type
    for v in (0, 1, 2, 3, 7, 255, 1 << 31, (1 << 32) + 1, (1 << 62), -1, -2, -(1 << 63)):
        entries.append(field(1, 0, varint(v)))  # TensorProto.dims, Dimension.dim_value, ...
        entries.append(field(3, 0, varint(v)))  # AttributeProto.i
    for n in (1, 3, 7, 8, 11, 13, 17, 18, 1000):
        entries.append(field(2, 0, varint(n)))  # OperatorSetIdProto.version
        entries.append(field(1, 0, varint(n)))  # ModelProto.ir_version
    entries.append(field(14, 0, varint(1)))  # TensorProto.data_location = EXTERNAL
    entries = list(dict.fromkeys(entries))
    with open(path, "w") as f:
        f.write("# libFuzzer dictionary for popart_fuzz_model (tests/fuzz/make_fuzz_inputs.py).\n")
        for i, e in enumerate(entries):
            f.write('e%d="%s"\n' % (i, escape(e)))
    return len(entries)


def slim(src, dst):
    """A zoo model with its large initializers replaced by ConstantOfShape nodes."""
    import onnx
    from onnx import helper, numpy_helper
    m = onnx.load(src)
    g = m.graph
    keep, nodes = [], []
    for t in g.initializer:
        n = 1
        for d in t.dims:
            n *= d
        if n * 4 <= 1024 or t.data_type not in (onnx.TensorProto.FLOAT, onnx.TensorProto.INT64):
            keep.append(t)
            continue
        shape_name = t.name + "__fuzz_shape"
        keep.append(helper.make_tensor(shape_name, onnx.TensorProto.INT64, [len(t.dims)], list(t.dims)))
        fill = 0.01 if t.data_type == onnx.TensorProto.FLOAT else 1
        value = helper.make_tensor("value", t.data_type, [1], [fill])
        nodes.append(helper.make_node("ConstantOfShape", [shape_name], [t.name], value=value))
    names = {t.name for t in g.initializer}
    inputs = [i for i in g.input if i.name not in names or any(t.name == i.name for t in keep)]
    del g.initializer[:]
    g.initializer.extend(keep)
    del g.input[:]
    g.input.extend(inputs)
    old = list(g.node)
    del g.node[:]
    g.node.extend(nodes + old)
    onnx.save(m, dst)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--zoo", default="")
    ap.add_argument("--onnx-data", default="/usr/share/libonnx-testdata/data")
    args = ap.parse_args()

    model_dir = os.path.join(args.out, "seeds", "model")
    builder_dir = os.path.join(args.out, "seeds", "builder")
    for d in (model_dir, builder_dir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)

    n_onnx = 0
    if os.path.isdir(args.onnx_data):
        for dirpath, _, files in os.walk(args.onnx_data):
            if "model.onnx" in files:
                rel = os.path.relpath(dirpath, args.onnx_data).replace(os.sep, "_")
                src = os.path.join(dirpath, "model.onnx")
                if os.path.getsize(src) <= MAX_SEED_BYTES:
                    shutil.copyfile(src, os.path.join(model_dir, rel + ".onnx"))
                    n_onnx += 1
    n_zoo = 0
    if args.zoo and os.path.isdir(args.zoo):
        for name in sorted(os.listdir(args.zoo)):
            if not name.endswith(".onnx"):
                continue
            src, dst = os.path.join(args.zoo, name), os.path.join(model_dir, "zoo_" + name)
            if os.path.getsize(src) > MAX_ZOO_WEIGHT_BYTES:
                continue
            if os.path.getsize(src) <= MAX_SEED_BYTES:
                shutil.copyfile(src, dst)
            else:
                slim(src, dst)
                if os.path.getsize(dst) > MAX_SEED_BYTES:
                    os.remove(dst)
                    continue
            n_zoo += 1

    rng = random.Random(20261122)
    for i in range(64):
        with open(os.path.join(builder_dir, "gen%02d" % i), "wb") as f:
            f.write(bytes(rng.getrandbits(8) for _ in range(rng.randint(32, 512))))

    n_dict = write_dict(os.path.join(args.out, "model.dict"))
    print("fuzz inputs: %d ONNX test models, %d zoo models, 64 Builder seeds, %d dictionary entries"
          % (n_onnx, n_zoo, n_dict))


if __name__ == "__main__":
    sys.exit(main())
