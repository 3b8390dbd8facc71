#!/usr/bin/python3
"""Generates the Builder's per-opset op methods (AiOnnxOpset6 .. AiOnnxOpset17) from the ONNX
schemas (Debian's python3-onnx) for every ai.onnx op in the op list (src/oplist/ops.def).

Signatures follow PopART's generated builder: inputs, then `unsigned num_outputs` for ops with a
variable number of outputs, then the required attributes and the optional ones (each group in
alphabetical order), then the DebugContext. `auto_pad` is left out, as PopART does; set it with
Builder::addNodeAttribute.
"""
import argparse
import re
import sys

import onnx
from onnx import defs, helper

FIRST_OPSET, LAST_OPSET = 6, 17
RENAMES = {"And": "logical_and", "Or": "logical_or", "Not": "logical_not", "Xor": "logical_xor",
           "If": "logical_if"}
CPP_KEYWORDS = {"and", "or", "not", "xor", "if", "else", "default", "case", "switch", "for", "while",
                "do", "int", "float", "double", "char", "new", "delete", "this", "template", "class",
                "struct", "union", "namespace", "operator", "return", "private", "public",
                "protected", "virtual", "const", "static", "auto", "register", "volatile"}
SKIP_ATTRS = {"auto_pad"}
AT = defs.OpSchema.AttrType


OP_LINE = re.compile(r"\s*POPART_OP\((\w+),\s*\"(\w+)\",\s*(\w+),\s*(\w+),\s*(-?\d+),\s*(-?\d+),\s*(-?\d+),\s*(-?\d+),"
                     r"\s*(\d+)\)")


STRUCTURED_LINE = re.compile(r"\s*POPART_STRUCTURED_OP\(\"(\w+)\",\s*(-?\d+),\s*(-?\d+),\s*(-?\d+),\s*(-?\d+),"
                             r"\s*(\d+)\)")


def read_ops(path):
    """ONNX-domain ops of the list, following `#include "oplist/x.def"` lines: op type ->
    (minIn, maxIn, minOut, maxOut, since), the list's own arity and opset."""
    import os
    ops = {}
    for line in open(path):
        inc = re.match(r'\s*#include\s+"oplist/([\w.]+)"', line)
        if inc:
            ops.update(read_ops(os.path.join(os.path.dirname(path), inc.group(1))))
            continue
        m = OP_LINE.match(line)
        if line.lstrip().startswith("POPART_OP(") and not m:
            sys.exit("%s: cannot read op list line: %s" % (path, line.strip()))
        if m and m.group(3) == "onnx":
            ops[m.group(2)] = tuple(int(m.group(i)) for i in range(5, 10))
        # Ops on sequence and optional values (oplist/ops_structured.def): ai.onnx, no kernel.
        s = STRUCTURED_LINE.match(line)
        if line.lstrip().startswith("POPART_STRUCTURED_OP(") and not s:
            sys.exit("%s: cannot read op list line: %s" % (path, line.strip()))
        if s:
            ops[s.group(1)] = tuple(int(s.group(i)) for i in range(2, 7))
    return ops


def check_arity(ops):
    """The op list's arity (what the importer accepts) must cover every ONNX schema version the
    runtime implements (since ..): otherwise a model the Builder makes would fail at import."""
    bad = []
    for op_type, (min_in, max_in, _min_out, max_out, since) in sorted(ops.items()):
        for v in range(max(FIRST_OPSET, since), LAST_OPSET + 1):
            try:
                schema = defs.get_schema(op_type, v, "")
            except Exception:
                continue
            s_max_in = schema.max_input if schema.max_input < 2 ** 30 else -1
            s_max_out = schema.max_output if schema.max_output < 2 ** 30 else -1
            if schema.min_input < min_in or (max_in != -1 and (s_max_in == -1 or s_max_in > max_in)):
                bad.append("%s opset %d: ONNX allows %d..%d inputs, the op list %d..%d" % (
                    op_type, v, schema.min_input, s_max_in, min_in, max_in))
            if max_out != -1 and (s_max_out == -1 or s_max_out > max_out):
                bad.append("%s opset %d: ONNX allows up to %d outputs, the op list %d" % (
                    op_type, v, s_max_out, max_out))
    if bad:
        sys.exit("core/src/oplist: arity narrower than the ONNX schemas:\n  " + "\n  ".join(bad))


def cpp_float(v):
    r = repr(float(v))
    if r in ("inf", "-inf", "nan"):
        return {"inf": "std::numeric_limits<float>::infinity()",
                "-inf": "-std::numeric_limits<float>::infinity()",
                "nan": "std::numeric_limits<float>::quiet_NaN()"}[r]
    if "e" not in r and "." not in r:
        r += ".0"
    return r + "f"


def cpp_str(s):
    if isinstance(s, bytes):
        s = s.decode()
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def param_name(name):
    return name + "_" if name in CPP_KEYWORDS else name


class Attr:
    def __init__(self, name, a):
        self.name = name
        self.required = a.required
        self.type = a.type
        dv = a.default_value
        self.default = None
        if dv is not None and dv.type != onnx.AttributeProto.UNDEFINED:
            self.default = helper.get_attribute_value(dv)

    def supported(self):
        return self.type in (AT.INT, AT.FLOAT, AT.STRING, AT.INTS, AT.FLOATS, AT.STRINGS,
                             AT.TENSOR, AT.GRAPH)

    def decl(self, op_type):
        """(C++ parameter declaration, default expression or None)"""
        p = param_name(self.name)
        t = self.type
        if op_type == "Cast" and self.name == "to":
            return "const std::string &" + p, None
        if t == AT.INT:
            if self.required:
                return "int64_t " + p, None
            if self.default is None:
                return "nonstd::optional<int64_t> " + p, "nonstd::optional<int64_t>()"
            return "int64_t " + p, str(int(self.default))
        if t == AT.FLOAT:
            if self.required:
                return "float " + p, None
            if self.default is None:
                return "nonstd::optional<float> " + p, "nonstd::optional<float>()"
            return "float " + p, cpp_float(self.default)
        if t == AT.STRING:
            if self.required:
                return "const std::string &" + p, None
            if self.default is None:
                return "nonstd::optional<std::string> " + p, "nonstd::optional<std::string>()"
            return "const std::string &" + p, cpp_str(self.default)
        if t in (AT.INTS, AT.FLOATS, AT.STRINGS):
            el = {AT.INTS: "int64_t", AT.FLOATS: "float", AT.STRINGS: "std::string"}[t]
            d = None
            if not self.required:
                if self.default:
                    fmt = {AT.INTS: str, AT.FLOATS: cpp_float, AT.STRINGS: cpp_str}[t]
                    d = "std::vector<%s>{%s}" % (el, ", ".join(fmt(v) for v in self.default))
                else:
                    d = "std::vector<%s>()" % el
            return "const std::vector<%s> &%s" % (el, p), d
        if t == AT.TENSOR:
            return "const ConstVoidData &" + p, (None if self.required else "ConstVoidData()")
        if t == AT.GRAPH:
            return "const Builder &" + p, None
        raise ValueError(t)

    def store(self, op_type):
        """C++ statement adding the attribute to `attrs`."""
        p = param_name(self.name)
        n = cpp_str(self.name)
        t = self.type
        if op_type == "Cast" and self.name == "to":
            return "attrs[%s] = static_cast<int64_t>(onnxDataType(dataTypeFromString(%s)));" % (n, p)
        if t in (AT.INT, AT.FLOAT, AT.STRING):
            if self.default is None and not self.required:
                return "if (%s) attrs[%s] = *%s;" % (p, n, p)
            if t == AT.STRING:
                return "attrs[%s] = std::string(%s);" % (n, p)
            return "attrs[%s] = %s;" % (n, p)
        if t in (AT.INTS, AT.FLOATS, AT.STRINGS):
            if self.required:
                return "attrs[%s] = %s;" % (n, p)
            return "if (!%s.empty()) attrs[%s] = %s;" % (p, n, p)
        if t == AT.TENSOR:
            return "if (%s.data) attrs[%s] = %s;" % (p, n, p)
        if t == AT.GRAPH:
            return "attrs[%s] = &%s;" % (n, p)
        raise ValueError(t)


def method(op_type, schema):
    name = RENAMES.get(op_type, op_type.lower())
    attrs = [Attr(k, v) for k, v in sorted(schema.attributes.items())
             if k not in SKIP_ATTRS]
    attrs = [a for a in attrs if a.supported() and not (op_type == "Constant" and a.name != "value")]
    if op_type == "Constant":
        for a in attrs:
            a.required = True
    attrs = [a for a in attrs if a.required] + [a for a in attrs if not a.required]
    max_out = schema.max_output
    variadic_out = schema.min_output != max_out
    multi = max_out > 1
    params = []
    # Ops without inputs (Constant, RandomUniform, RandomNormal) take no `args`, as PopART's.
    takes_args = schema.max_input != 0
    if takes_args:
        params.append("const std::vector<TensorId> &args")
    if multi and variadic_out:
        params.append("unsigned num_outputs")
    # Required attributes come first, so every parameter after a defaulted one has a default.
    fixed = [a.decl(op_type) for a in attrs]
    hdr_params = list(params)
    cpp_params = list(params)
    for d, dflt in fixed:
        hdr_params.append(d + (" = " + dflt if dflt else ""))
        cpp_params.append(d)
    hdr_params.append("const popart::DebugContext &debugContext = {}")
    cpp_params.append("const popart::DebugContext &debugContext")
    ret = "std::vector<TensorId>" if multi else "TensorId"
    min_in = schema.min_input
    max_in = schema.max_input if schema.max_input < 2 ** 30 else -1
    if multi and variadic_out:
        nout = "num_outputs"
    else:
        nout = str(max_out if multi else 1)
    body = ["  std::map<std::string, any> attrs;"]
    for a in attrs:
        body.append("  " + a.store(op_type))
    inputs = "args" if takes_args else "std::vector<TensorId>{}"
    call = 'op("%s", %s, %s, attrs, debugContext, %d, %d)' % (op_type, inputs, nout, min_in, max_in)
    body.append("  return %s;" % (call if multi else call + "[0]"))
    doc = "  /// Adds ONNX %s (version %d). https://onnx.ai/onnx/operators/onnx__%s.html" % (
        op_type, schema.since_version, op_type)
    hdr = "%s\n  %s %s(%s);" % (doc, ret, name, ",\n      ".join(hdr_params))
    return name, hdr, (ret, cpp_params, body)


JS_TYPES = {AT.INT: "i", AT.FLOAT: "f", AT.STRING: "s", AT.INTS: "ints", AT.FLOATS: "floats",
            AT.STRINGS: "strings", AT.TENSOR: "t", AT.GRAPH: "g"}


def js_value(v):
    import json
    import math
    if isinstance(v, bytes):
        return json.dumps(v.decode())
    if isinstance(v, float):
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        if math.isnan(v):
            return "NaN"
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(js_value(x) for x in v) + "]"
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)


def builder_versions(op_type):
    """The schema versions of `op_type` in opsets FIRST_OPSET..LAST_OPSET as the Builder exposes
    them: (schema, attributes in parameter order (required first), variadic outputs, number of
    outputs, maximum inputs or -1). The JS and Python op tables are both written from this."""
    seen = set()
    for v in range(FIRST_OPSET, LAST_OPSET + 1):
        try:
            schema = defs.get_schema(op_type, v, "")
        except Exception:
            continue
        if schema.since_version in seen:
            continue
        seen.add(schema.since_version)
        attrs = [Attr(k, a) for k, a in sorted(schema.attributes.items()) if k not in SKIP_ATTRS]
        attrs = [a for a in attrs if a.supported() and not (op_type == "Constant" and a.name != "value")]
        if op_type == "Constant":
            for a in attrs:
                a.required = True
        attrs = [a for a in attrs if a.required] + [a for a in attrs if not a.required]
        multi = schema.max_output > 1
        variadic = multi and schema.min_output != schema.max_output
        nout = schema.max_output if multi and not variadic else 1
        max_in = schema.max_input if schema.max_input < 2 ** 30 else -1
        yield schema, attrs, variadic, nout, max_in


def write_js(ops, path):
    """The JS Builder's op table: for every op, its schema versions in opsets 6..17 with the
    same parameter order as the C++ methods, so `aiOnnxOpsetN.<op>(args, ...)` matches C++."""
    lines = ["// GENERATED by core/src/builder/gen_builder.py from the ONNX %s schemas; do not edit." % onnx.__version__,
             "// name: [[sinceVersion, opType, deprecated, variadicOutputs, numOutputs, minInputs, maxInputs,",
             "//         [[attr, type, required, default], ...]], ...]  (attributes in parameter order)",
             "export const FIRST_OPSET = %d;" % FIRST_OPSET, "export const LAST_OPSET = %d;" % LAST_OPSET,
             "export const ONNX_OPS = {"]
    for op_type in sorted(ops):
        versions = []
        for schema, attrs, variadic, nout, max_in in builder_versions(op_type):
            ajs = []
            for a in attrs:
                t = "dtype" if (op_type == "Cast" and a.name == "to") else JS_TYPES[a.type]
                d = "null" if (a.default is None or a.type in (AT.TENSOR, AT.GRAPH)) else js_value(a.default)
                ajs.append('["%s","%s",%d,%s]' % (a.name, t, 1 if a.required else 0, d))
            versions.append('[%d,"%s",%d,%d,%d,%d,%d,[%s]]' % (
                schema.since_version, op_type, 1 if schema.deprecated else 0, 1 if variadic else 0,
                nout, schema.min_input, max_in, ",".join(ajs)))
        if versions:
            name = RENAMES.get(op_type, op_type.lower())
            lines.append('  %s: [%s],' % (name, ",".join(versions)))
    lines.append("};")
    open(path, "w").write("\n".join(lines) + "\n")
    return 0


ONNX_TYPES = {"tensor(float)": "FLOAT", "tensor(float16)": "FLOAT16", "tensor(bfloat16)": "BFLOAT16",
              "tensor(double)": "DOUBLE", "tensor(int8)": "INT8", "tensor(int16)": "INT16", "tensor(int32)": "INT32",
              "tensor(int64)": "INT64", "tensor(uint8)": "UINT8", "tensor(uint16)": "UINT16",
              "tensor(uint32)": "UINT32", "tensor(uint64)": "UINT64", "tensor(bool)": "BOOL",
              "tensor(string)": "STRING", "tensor(complex64)": "COMPLEX64", "tensor(complex128)": "COMPLEX128"}
OPTION = {defs.OpSchema.FormalParameterOption.Single: 0, defs.OpSchema.FormalParameterOption.Optional: 1,
          defs.OpSchema.FormalParameterOption.Variadic: 2}


def formal_params(schema, params):
    """name|TYPE,TYPE|option;... of a schema's inputs or outputs (tensor types only)."""
    constraints = {c.type_param_str: c.allowed_type_strs for c in schema.type_constraints}
    out = []
    for p in params:
        allowed = constraints.get(p.typeStr, [p.typeStr])
        types = [ONNX_TYPES[t] for t in allowed if t in ONNX_TYPES]
        out.append("%s|%s|%d" % (p.name, ",".join(types), OPTION.get(p.option, 0)))
    return ";".join(out)


def schema_table(ops):
    """Every ai.onnx schema version up to LAST_OPSET (what getUnsupportedOperations compares the op
    list with) and, for the op list's ops, its inputs, outputs and attributes (what
    getSupportedOperationsDefinition returns)."""
    rows = ["// Every ai.onnx schema version up to opset %d: type, since, deprecated, inputs, outputs," % LAST_OPSET,
            "// attributes (name|TYPES|option;...: inputs and outputs of the op list's ops only).",
            "extern const OnnxSchemaRow kOnnxSchemas[] = {"]
    n = 0
    for schema in sorted(defs.get_all_schemas_with_history(), key=lambda x: (x.name, x.since_version)):
        if schema.domain not in ("", "ai.onnx") or schema.since_version > LAST_OPSET:
            continue
        ins = outs = attrs = ""
        if schema.name in ops:
            ins = formal_params(schema, schema.inputs)
            outs = formal_params(schema, schema.outputs)
            attrs = ",".join(sorted(schema.attributes.keys()))
        rows.append('    {"%s", %d, %s, "%s", "%s", "%s"},' % (
            schema.name, schema.since_version, "true" if schema.deprecated else "false", ins, outs, attrs))
        n += 1
    rows.append("};")
    rows.append("extern const size_t kNumOnnxSchemas = %d;" % n)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", required=True)
    ap.add_argument("--hpp")
    ap.add_argument("--cpp")
    ap.add_argument("--js", help="write the JS op table (wasm/js) instead of the C++ files")
    args = ap.parse_args()
    ops = read_ops(args.ops)
    check_arity(ops)
    if args.js:
        return write_js(ops, args.js)
    h = ["// GENERATED by core/src/builder/gen_builder.py from the ONNX %s schemas; do not edit." % onnx.__version__,
         "#pragma once", "", "#include <cstdint>", "#include <limits>", "#include <string>", "#include <vector>", "",
         '#include "popart/debugcontext.hpp"', '#include "popart/domainopset.hpp"', '#include "popart/names.hpp"',
         '#include "popart/voiddata.hpp"', "", "namespace popart {", "", "class Builder;", ""]
    c = ["// GENERATED by core/src/builder/gen_builder.py from the ONNX %s schemas; do not edit." % onnx.__version__,
         '#include "builder/onnx_schemas.hpp"', '#include "popart/builder.hpp"', '#include "popart/datatype.hpp"', "",
         "namespace popart {", ""]
    c.extend(schema_table(ops))
    c.append("")
    for v in range(FIRST_OPSET, LAST_OPSET + 1):
        cls = "AiOnnxOpset%d" % v
        h.append("/// Builds ai.onnx ops at opset %d." % v)
        h.append("class %s : public DomainOpSet {" % cls)
        h.append(" public:")
        h.append('  explicit %s(BuilderImpl *impl) : DomainOpSet(impl, "ai.onnx", %d) {}' % (cls, v))
        h.append("")
        for op_type in sorted(ops):
            try:
                schema = defs.get_schema(op_type, v, "")
            except Exception:
                continue
            if schema.deprecated:
                continue
            name, hdr, (ret, cpp_params, body) = method(op_type, schema)
            h.append(hdr)
            c.append("%s %s::%s(%s) {" % (ret, cls, name, ", ".join(cpp_params)))
            c.extend(body)
            c.append("}")
            c.append("")
        h.append("};")
        h.append("")
    h.append("}  // namespace popart")
    c.append("}  // namespace popart")
    open(args.hpp, "w").write("\n".join(h) + "\n")
    open(args.cpp, "w").write("\n".join(c) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
