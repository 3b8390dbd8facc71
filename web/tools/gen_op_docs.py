#!/usr/bin/python3
"""Writes the operator documentation the page's node panel shows (build/web/op-docs.json), from
the ONNX schemas (Debian's python3-onnx, `onnx.defs`, as core/src/builder/gen_builder.py reads
them) and the runtime's op list (core/src/oplist/*.def) for the ops no ONNX schema documents.

Only what the panel shows: per op and schema version its summary (the schema's doc, markdown),
inputs / outputs (name, type string, option, description), attributes (name, type, required,
default, description), type constraints, and whether it is deprecated. Texts repeated across
versions are stored once (`texts`; fields hold an index into it). The page picks, per node, the
newest version at or below the model's opset of the node's domain.

Without Python's onnx the file still lists the op list's own ops, with "onnx": null, and the
page says the ONNX documentation is unavailable.

Usage: gen_op_docs.py --out FILE.json [--oplist core/src/oplist/ops.def]
"""
import argparse
import json
import os
import re
import sys

OP_LINE = re.compile(r"\s*POPART_OP\((\w+),\s*\"(\w+)\",\s*(\w+),\s*(\w+),\s*(-?\d+),\s*(-?\d+),\s*(-?\d+),\s*(-?\d+),"
                     r"\s*(\d+)\)")
DOMAINS = {"graphcore": "ai.graphcore"}  # ai.onnx ops are documented by their schemas


def read_oplist(path, out, section=None):
    """The op list's Graphcore ops (ai.onnx ops have schemas; internal ops never appear in a
    model): {domain: {op: {section, description?, inputs, outputs, since}}}. `description` is the
    comment directly above an entry, `section` the `// ---- ...` heading it is under."""
    comment = []
    for line in open(path):
        inc = re.match(r'\s*#include\s+"oplist/([\w.]+)"', line)
        if inc:
            section = read_oplist(os.path.join(os.path.dirname(path), inc.group(1)), out, section)
            comment = []
            continue
        text = line.strip()
        head = re.match(r"//\s*----\s*(.*?)\s*(\([^)]*\))?\s*$", text)
        if head:
            section, comment = head.group(1), []
            continue
        if text.startswith("//"):
            comment.append(text[2:].strip())
            continue
        m = OP_LINE.match(line)
        if m and m.group(3) in DOMAINS:
            arity = lambda lo, hi: lo if lo == hi else "%s..%s" % (lo, "any" if hi == "-1" else hi)  # noqa: E731
            entry = {"section": section or m.group(4), "inputs": arity(m.group(5), m.group(6)),
                     "outputs": arity(m.group(7), m.group(8)), "since": int(m.group(9))}
            if comment and not text.startswith("//"):
                entry["description"] = " ".join(comment)
            out.setdefault(DOMAINS[m.group(3)], {})[m.group(2)] = entry
        if text:
            comment = []
    return section


def onnx_docs():
    """({domain: {op: [version entries, newest first]}}, texts, onnx version) from onnx.defs, or
    (None, [], why not)."""
    try:
        import onnx
        from onnx import defs, helper
    except ImportError as e:
        print("gen_op_docs: no ONNX schemas (%s): the page says the ONNX documentation is unavailable" % e,
              file=sys.stderr)
        return None, [], "Python's onnx is not installed (%s)" % e
    texts, index = [], {}

    def text(s):
        s = (s or "").strip()
        if s not in index:
            index[s] = len(texts)
            texts.append(s)
        return index[s]

    def attr_type(t):
        return str(t).split(".")[-1]

    def default(a):
        if not a.default_value or not a.default_value.name:
            return None
        v = helper.get_attribute_value(a.default_value)
        if isinstance(v, bytes):
            return v.decode("utf-8", "replace")
        if isinstance(v, list):
            return [x.decode("utf-8", "replace") if isinstance(x, bytes) else x for x in v]
        if isinstance(v, (int, float, str)):
            return v
        return str(v)

    def param(p):
        opt = {0: None, 1: "optional", 2: "variadic"}.get(int(p.option), None)
        d = {"name": p.name, "type": p.typeStr, "doc": text(p.description)}
        if opt:
            d["option"] = opt
        return d

    ops = {}
    for s in defs.get_all_schemas_with_history():
        domain = s.domain or "ai.onnx"
        e = {"version": s.since_version, "doc": text(s.doc),
             "inputs": [param(p) for p in s.inputs], "outputs": [param(p) for p in s.outputs],
             "attributes": [], "types": [{"name": t.type_param_str, "allowed": list(t.allowed_type_strs),
                                          "doc": text(t.description)} for t in s.type_constraints]}
        for a in sorted(s.attributes.values(), key=lambda a: a.name):
            d = {"name": a.name, "type": attr_type(a.type), "doc": text(a.description)}
            if a.required:
                d["required"] = True
            dv = default(a)
            if dv is not None:
                d["default"] = dv
            e["attributes"].append(d)
        if s.deprecated:
            e["deprecated"] = True
        if s.support_level != defs.OpSchema.SupportType.COMMON:
            e["experimental"] = True
        ops.setdefault(domain, {}).setdefault(s.name, []).append(e)
    for by_op in ops.values():
        for versions in by_op.values():
            versions.sort(key=lambda e: -e["version"])
    return ops, texts, onnx.__version__


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--oplist", default=os.path.join(os.path.dirname(__file__), "../../core/src/oplist/ops.def"))
    args = ap.parse_args()
    runtime = {}
    read_oplist(args.oplist, runtime)
    ops, texts, version = onnx_docs()
    doc = {"generated": "by web/tools/gen_op_docs.py from onnx.defs and core/src/oplist; do not edit",
           "onnxVersion": version if ops else None, "onnx": ops, "texts": texts, "runtime": runtime}
    if ops is None:
        doc["unavailable"] = version
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, separators=(",", ":"), ensure_ascii=False)
    n = sum(len(v) for v in (ops or {}).values())
    print("gen_op_docs: %d ONNX ops (onnx %s), %d runtime ops -> %s (%d KiB)" % (
        n, doc["onnxVersion"], sum(len(v) for v in runtime.values()), args.out, os.path.getsize(args.out) // 1024))


if __name__ == "__main__":
    main()
