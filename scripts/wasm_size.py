#!/usr/bin/env python3
"""Code-size breakdown of a wasm module linked with names (emcc --profiling-funcs).

usage: wasm_size.py MODULE.wasm [--top N] [--objects BUILD_DIR ...] [--json OUT.json] [--csv OUT.csv]
                                 [--diff OLD.json] [--grep REGEX]

Prints: the module's sections; the top N function bodies (demangled); bytes per name-based group
(GROUPS: first matching regex over the demangled name wins); bytes per name prefix; with
--objects, bytes per defining object file (each function's name looked up in the build dirs' .o
files and Emscripten's system libraries, first dir wins; weak inline / template code defined in
several objects is its own bucket) and per feature area (AREAS over the object label); with
--diff, the groups, areas, objects, prefixes and functions that changed against an earlier run's
--json. Sizes are function bodies in the code section (size LEB included): they sum to the code
section. A non-unity build dir (-DPOPART_UNITY_BUILD=OFF) gives per-source-file labels; a unity
build dir can follow as a fallback for files that only compile in their batch.

Example (the analysis of 2026-11-30):
  scripts/wasm_size.py build/wasm-size/pkg/popart_wasm.wasm --objects build/wasm-size-nu \
      --objects build/wasm-size --json now.json --csv now.csv --diff old.json
"""
import argparse
import collections
import json
import re
import subprocess
import sys

SECTION_NAMES = {0: "custom", 1: "type", 2: "import", 3: "function", 4: "table", 5: "memory",
                 6: "global", 7: "export", 8: "start", 9: "element", 10: "code", 11: "data",
                 12: "datacount", 13: "tag"}


def leb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def parse(path):
    b = open(path, "rb").read()
    assert b[:4] == b"\0asm", "not a wasm module"
    i = 8
    sections = []
    n_imported_funcs = 0
    bodies = []  # (size incl. its LEB, offset)
    names = {}
    while i < len(b):
        sid = b[i]
        size, j = leb(b, i + 1)
        end = j + size
        label = SECTION_NAMES.get(sid, str(sid))
        if sid == 0:
            nl, k = leb(b, j)
            cname = b[k:k + nl].decode("utf-8", "replace")
            label = "custom:" + cname
            if cname == "name":
                k += nl
                while k < end:
                    sub = b[k]
                    ssize, k2 = leb(b, k + 1)
                    if sub == 1:  # function names
                        cnt, q = leb(b, k2)
                        for _ in range(cnt):
                            idx, q = leb(b, q)
                            ln, q = leb(b, q)
                            names[idx] = b[q:q + ln].decode("utf-8", "replace")
                            q += ln
                    k = k2 + ssize
        elif sid == 2:
            cnt, k = leb(b, j)
            for _ in range(cnt):
                for _ in range(2):  # module, field
                    ln, k = leb(b, k)
                    k += ln
                kind = b[k]
                k += 1
                if kind == 0:
                    _, k = leb(b, k)
                    n_imported_funcs += 1
                elif kind == 1:  # table: reftype, limits
                    k += 1
                    flags, k = leb(b, k)
                    _, k = leb(b, k)
                    if flags & 1:
                        _, k = leb(b, k)
                elif kind == 2:  # memory: limits
                    flags, k = leb(b, k)
                    _, k = leb(b, k)
                    if flags & 1:
                        _, k = leb(b, k)
                elif kind == 3:  # global: type, mut
                    k += 2
                elif kind == 4:  # tag
                    k += 1
                    _, k = leb(b, k)
        elif sid == 10:
            cnt, k = leb(b, j)
            for _ in range(cnt):
                s0 = k
                sz, k = leb(b, k)
                k += sz
                bodies.append((k - s0, s0))
        sections.append((label, end - i))
        i = end
    funcs = []
    for n, (sz, _) in enumerate(bodies):
        idx = n_imported_funcs + n
        funcs.append((names.get(idx, "func%d" % idx), sz))
    return len(b), sections, funcs


def demangle(mangled):
    out = []
    chunk = 20000
    for s in range(0, len(mangled), chunk):
        part = mangled[s:s + chunk]
        p = subprocess.run(["c++filt"], input="\n".join(part) + "\n", capture_output=True, text=True,
                           check=True)
        lines = p.stdout.split("\n")[:len(part)]
        out.extend(lines)
    return out


# (group, regex over the demangled name). First match wins: order from specific to general.
GROUPS = [
    # --- ops' CPU kernels, per file of backends/cpu/kernels (namespace popart::cpu)
    ("kernels: gemm / matmul", r"popart::cpu::(\(anonymous namespace\)::)?(gemm|Gemm|matmul|MatMul|isa_|pack|microkernel)|popart::cpu::gemm|gemm_kernels|Gemm"),
    ("kernels: conv / winograd", r"popart::cpu::.*([Cc]onv|[Ww]inograd|im2col|[Dd]epthwise)"),
    ("kernels: other popart::cpu", r"popart::cpu::"),
    ("Eigen", r"Eigen::"),
    # --- the rest of popart by layer / feature
    ("builder (generated opset methods)", r"popart::(AiOnnxOpset|AiGraphcore|AiOnnxMl|DomainOpSet|Builder::)|popart::Builder|Opset\d+::"),
    ("ops (popart::ops / op classes)", r"popart::[A-Za-z0-9]+Op(Grad|x)?\b|popart::[A-Za-z0-9]+Op::|popart::ops::|popart::Op::|popart::Op\b"),
    ("autodiff / grad", r"popart::(autodiff|Autodiff|GradOp|Grad)|popart::.*[Gg]rad[A-Z]"),
    ("patterns / passes / transforms", r"popart::(patterns?|passes|transforms?|[A-Za-z]*Pattern|[A-Za-z]*Transform)"),
    ("optimizers", r"popart::([A-Za-z]*Optimizer|SGD|Adam|Adaptive|optim)"),
    ("onnx import / shape inference", r"popart::(onnx|Onnx|shapeinfer|ShapeInference|onnxutil)"),
    ("reports / json / cbor", r"popart::([A-Za-z]*[Rr]eport|[Jj]son|[Cc]bor|describe)"),
    ("distributed / replicas", r"popart::(distributed|dist|[A-Za-z]*Replica|popdist|poprun)"),
    ("ipu model / devices", r"popart::([A-Za-z]*Device|[A-Za-z]*Ipu|ipu|IPU)"),
    ("session / executables", r"popart::([A-Za-z]*Session|[A-Za-z]*Executable|session)"),
    ("ir / graph / tensors", r"popart::(Ir\b|Ir::|Graph|Tensor|Scope|TensorInfo|DataType|Shape|Dims)"),
    ("popart (other)", r"popart::|popart_|Popart"),
    # --- third party
    ("nlohmann json", r"nlohmann::"),
    ("onnx proto (generated)", r"\bonnx::"),
    ("protobuf runtime", r"google::protobuf::"),
    ("embind / bindings", r"emscripten::|_embind_|embind|EMSCRIPTEN_BINDINGS|\(anonymous namespace\)::.*Js|js_|Js"),
    ("libc++abi / exceptions / rtti", r"__cxxabiv1|__cxa_|_Unwind|__gxx|std::exception|std::bad_|std::logic_error|std::runtime_error|std::__2::__throw|__dynamic_cast|typeinfo"),
    ("libc++ std::function", r"std::__2::__function::"),
    ("libc++ containers (vector/map/hash)", r"std::__2::(vector|__hash_table|unordered_|__tree|map|set|deque|__split_buffer|list|__list|pair|tuple|optional|variant|__optional|__variant)"),
    ("libc++ string / streams / locale", r"std::__2::(basic_string|basic_[io]?stream|basic_ostringstream|basic_stringbuf|basic_streambuf|ios_base|basic_ios|locale|ctype|num_put|num_get|__num|codecvt|numpunct|moneypunct|money_|time_|messages|collate|__time|__money|to_string|stoi|stol|stoul|stod|stof|__do_|__stdoutbuf|__stdinbuf|char_traits|__libcpp_)"),
    ("libc++ other", r"std::"),
    ("libc (musl) / compiler-rt / malloc", r"^(dlmalloc|dlfree|dlrealloc|emscripten_builtin|malloc|free|realloc|calloc|memcpy|memmove|memset|str|mem|printf|vfprintf|fmt_|pop_arg|__|sn?printf|vsn?printf|fwrite|frexp|exp|log|pow|sin|cos|tan|sqrt|fmod|scalbn|strto|atof|atoi|qsort|bsearch|fflush|fputs|puts|isw?|tow?|wc|mbr?|btowc|uselocale|newlocale|freelocale|sbrk|abort|getenv|ceil|floor|round|trunc|nearbyint|rint|cbrt|expm1|log1p|atan|asin|acos|sinh|cosh|tanh|erf|lgamma|tgamma|hypot|ldexp|modf|copysign|fma)"),
    ("unnamed / other", r""),
]
def classifier(table, fallback):
    """The first entry of [(label, regex)] whose regex matches a string, or `fallback`."""
    compiled = [(label, re.compile(r)) for label, r in table]

    def classify(text):
        for label, r in compiled:
            if r.search(text):
                return label
        return fallback
    return classify


group_of = classifier(GROUPS, "unnamed / other")


def strip_sig(name, depth):
    """A coarse 'prefix': the qualified name without arguments / templates, cut at depth '::'."""
    out, lvl, k = [], 0, 0
    while k < len(name):
        c = name[k]
        if c == "<":
            lvl += 1
        elif c == ">":
            lvl -= 1
        elif c == "(" and lvl == 0 and not name.startswith("(anonymous", k):
            break
        elif lvl == 0:
            out.append(c)
        k += 1
    parts = "".join(out).split("::")
    return "::".join(parts[:depth])


# ----------------------------------------------------------------- attribution to object files
SYSROOT = "/usr/share/emscripten/cache/sysroot/lib/wasm32-emscripten/"
SYS_LIBS = ["libc++-except.a", "libc++abi-except.a", "libc-optz.a", "libc.a", "libdlmalloc.a",
            "libcompiler_rt.a", "libembind-rtti.a", "libunwind-except.a", "libstubs.a", "libnoexit.a",
            "libprintf_long_double-optz.a", "libstandalonewasm.a"]


def object_label(path, unity_members):
    p = path
    m = re.search(r"core/CMakeFiles/popart_(\w+?)(_speed)?\.dir/(src/.*)\.o$", p)
    if m:
        if "/Unity/" in p:
            return "core/%s/%s" % (m.group(1), unity_members.get(p, "unity"))
        return "core/" + m.group(3)
    m = re.search(r"core/CMakeFiles/popart_(\w+?)(_speed)?\.dir/Unity/(unity_\d+)_cxx\.cxx\.o$", p)
    if m:
        return "core/%s:%s" % (m.group(1), m.group(3))
    if "/protobuf/" in p:
        return "protobuf-lite"
    if "onnx.pb.cc" in p:
        return "onnx.pb.cc (generated)"
    m = re.search(r"wasm/CMakeFiles/popart_wasm\.dir/(.*)\.o$", p)
    if m:
        return "wasm/" + m.group(1)
    if p.startswith(SYSROOT):
        return "sys:" + p[len(SYSROOT):].split("(")[0].replace("-except", "").replace("-optz", "").replace("-rtti", "")
    return p


def scan_objects(dirs):
    """[(exact map, lambda-normalized map)] per build dir, then the system libraries; each map:
    demangled function symbol -> labels of the objects defining it. Clang numbers a TU's
    anonymous lambdas ($_N) per translation unit, so a unity and a non-unity build differ there."""
    import glob
    import os
    out = []
    for d in dirs + [None]:
        if d is None:
            files = [SYSROOT + l for l in SYS_LIBS if os.path.exists(SYSROOT + l)]
        else:
            files = [f for f in glob.glob(os.path.join(d, "**/*.o"), recursive=True)
                     if "googletest" not in f and "CompilerId" not in f]
        exact, norm = {}, {}
        for f in files:
            p = subprocess.run(["llvm-nm", "--defined-only", "-C", f], capture_output=True, text=True)
            lab = object_label(f, {})
            for line in p.stdout.splitlines():
                parts = line.split(" ", 2)
                if len(parts) < 3 or parts[1] not in ("T", "t", "W", "w", "i", "I"):
                    continue
                for m, k in ((exact, parts[2]), (norm, LAMBDA_RE.sub("$_", parts[2]))):
                    l = m.setdefault(k, [])
                    if lab not in l:
                        l.append(lab)
        out.append((exact, norm))
    return out


LAMBDA_RE = re.compile(r"\$_\d+")


def attribute(name, defs):
    base = re.sub(r"^byn\$mgfn-shared\$", "", name)
    base = re.sub(r"\.\d+$", "", base)
    labs = None
    nb = LAMBDA_RE.sub("$_", base)
    for exact, norm in defs:
        labs = exact.get(base) or norm.get(nb)
        if labs:
            break
    if not labs:
        if name.startswith("legalfunc$") or name.startswith("legalstub$") or name.startswith("dynCall"):
            return "(emscripten glue)"
        if name == "__wasm_call_ctors":
            return "(__wasm_call_ctors: static initializers)"
        return "(unknown)"
    if len(labs) == 1:
        return labs[0]
    if all(l.startswith("sys:") for l in labs):
        return labs[0]
    return "(inline/template in %s objects)" % ("2-3" if len(labs) <= 3 else "4+" if len(labs) < 20 else "20+")

# Feature areas over the defining-object label (first match wins); used for the old-vs-new roll-up,
# which survives file renames. HOT = core/CMakeLists.txt's POPART_WASM_SPEED_SOURCES (-O3).
HOT = ("broadcast|gemm|gemm_kernels|gemm_kernels_wasm|strided|winograd|activation_fn|activations|conv|"
       "conv_depthwise|conv_direct|elementwise|grad|grad_nn|losses|matmul|norm|optim|pool|pool_max|reduce|"
       "resize|rnn|shape|tensor|vec_math")
AREAS = [
    ("cpu kernels: hot files (-O3)", r"^core/src/backends/cpu/(kernels/)?(%s)\.cpp$" % HOT),
    ("cpu kernels: cold files (-Os)", r"^core/src/backends/cpu/kernels/"),
    ("cpu backend: program / dispatch / plans", r"^core/src/backends/cpu/|^core/backends:"),
    ("ipu model + reports (text / JSON)", r"ipu_model|report_json|report_files|ir_json"),
    ("describe (model statistics)", r"session/describe"),
    ("executable files (save / load)", r"executable_file"),
    ("options / factories / enums / reflection", r"session_options|factories|common/enums|variablesettings|common/patterns|common/dataflow|ipu_targets|session/patterns|session/dataflow"),
    ("replication / distributed", r"replica|distributed|collectives|popdist"),
    ("session (run, step IO, plans, devices)", r"core/src/session/|core/session:"),
    ("ops: IR op classes, shape inference, grads", r"^core/src/ops/|core/ops:"),
    ("autodiff + training graph + optimizers", r"autodiff|optimizers|core/optimizers:"),
    ("patterns + passes", r"patterns|passes|core/passes:"),
    ("IR (ir, graph, structured import)", r"core/src/ir/|core/ir:|tensor_data"),
    ("Builder (C++: ops, impl, graphcore table)", r"core/src/builder/|onnx/builder|core/builder:"),
    ("ONNX model I/O (model_io, external data, transformer)", r"core/src/onnx/|core/onnx:"),
    ("common (logging, attributes, datatypes ...)", r"core/src/common/|core/common:"),
    ("JS bindings: wasm/bindings.cpp", r"wasm/bindings"),
    ("JS bindings: wasm/builder_js.cpp", r"wasm/builder_js"),
    ("protobuf-lite + onnx.pb.cc", r"protobuf|onnx\.pb"),
    ("libc++ / libc++abi", r"sys:libc\+\+"),
    ("libc / malloc / compiler-rt / embind / glue", r"sys:|emscripten glue"),
    ("static initializers (__wasm_call_ctors)", r"__wasm_call_ctors"),
    ("inline / template code in several objects", r"inline/template"),
    ("unknown", r""),
]
area_of = classifier(AREAS, "unknown")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("wasm")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--json")
    ap.add_argument("--csv")
    ap.add_argument("--diff")
    ap.add_argument("--grep")
    ap.add_argument("--prefix-depth", type=int, default=3)
    ap.add_argument("--objects", action="append", default=[],
                    help="build dir(s) whose .o files name each function's origin (first wins)")
    a = ap.parse_args()

    total, sections, funcs = parse(a.wasm)
    dm = demangle([n for n, _ in funcs])
    code = sum(s for _, s in funcs)
    print("%s: %d bytes, %d functions, code %d" % (a.wasm, total, len(funcs), code))
    for lab, s in sections:
        print("  section %-22s %10d  %5.1f%%" % (lab, s, 100.0 * s / total))

    rows = [(d, m, s, group_of(d)) for (m, s), d in zip(funcs, dm)]
    rows.sort(key=lambda r: -r[2])
    if a.grep:
        rg = re.compile(a.grep)
        sel = [r for r in rows if rg.search(r[0])]
        print("\n--grep %s: %d functions, %d bytes" % (a.grep, len(sel), sum(r[2] for r in sel)))
        for r in sel[:a.top]:
            print("  %8d  %s" % (r[2], r[0][:200]))
        return

    print("\nTop %d functions:" % a.top)
    for d, m, s, g in rows[:a.top]:
        print("  %8d %5.2f%%  [%s] %s" % (s, 100.0 * s / code, g, d[:180]))

    groups = collections.Counter()
    gcount = collections.Counter()
    for d, m, s, g in rows:
        groups[g] += s
        gcount[g] += 1
    print("\nGroups (bytes of function bodies, share of the code section):")
    for g, s in groups.most_common():
        print("  %-40s %9d  %5.1f%%  %6d fns" % (g, s, 100.0 * s / code, gcount[g]))

    pref = collections.Counter()
    for d, m, s, g in rows:
        pref[strip_sig(d, a.prefix_depth)] += s
    print("\nTop 60 name prefixes (depth %d, templates / arguments removed):" % a.prefix_depth)
    for p, s in pref.most_common(60):
        print("  %9d  %5.1f%%  %s" % (s, 100.0 * s / code, p[:150]))

    files = collections.Counter()
    fcount = collections.Counter()
    if a.objects:
        defs = scan_objects(a.objects)
        for d, m, s, g in rows:
            lab = attribute(m, defs)
            files[lab] += s
            fcount[lab] += 1
        print("\nBy defining object (source file; weak inline / template code defined in several objects apart):")
        for f, s in files.most_common():
            print("  %9d  %5.1f%%  %5d fns  %s" % (s, 100.0 * s / code, fcount[f], f))
        rows = [(d, m, s, g + " @ " + attribute(m, defs)) for d, m, s, g in rows]
        ar = collections.Counter()
        for f, s in files.items():
            ar[area_of(f)] += s
        print("\nBy feature area (defining objects rolled up):")
        for f, s in ar.most_common():
            print("  %9d  %5.1f%%  %s" % (s, 100.0 * s / code, f))

    if a.csv:
        import csv
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["bytes", "group", "demangled", "mangled"])
            for d, m, s, g in rows:
                w.writerow([s, g, d, m])
    data = {"total": total, "code": code, "sections": sections, "groups": dict(groups),
            "prefixes": dict(pref), "files": dict(files), "functions": {d: s for d, m, s, g in rows}}
    if a.json:
        json.dump(data, open(a.json, "w"))
    if a.diff:
        old = json.load(open(a.diff))
        print("\nDiff vs %s: total %d -> %d, code %d -> %d" % (a.diff, old["total"], total, old["code"], code))
        print("  %-40s %9s %9s %9s" % ("group", "old", "new", "delta"))
        keys = set(old["groups"]) | set(groups)
        for g in sorted(keys, key=lambda g: -(groups.get(g, 0) - old["groups"].get(g, 0))):
            o, n = old["groups"].get(g, 0), groups.get(g, 0)
            print("  %-40s %9d %9d %+9d" % (g, o, n, n - o))
        if "files" in old and files:
            oa, na = collections.Counter(), collections.Counter()
            for f, s in old["files"].items():
                oa[area_of(f)] += s
            for f, s in files.items():
                na[area_of(f)] += s
            print("\n  %-55s %9s %9s %9s" % ("feature area", "old", "new", "delta"))
            for g in sorted(set(oa) | set(na), key=lambda g: -(na[g] - oa[g])):
                print("  %-55s %9d %9d %+9d" % (g, oa[g], na[g], na[g] - oa[g]))
            print("\n  %-70s %9s %9s %9s" % ("defining object", "old", "new", "delta"))
            keys = set(old["files"]) | set(files)
            for g in sorted(keys, key=lambda g: -(files.get(g, 0) - old["files"].get(g, 0))):
                o, n = old["files"].get(g, 0), files.get(g, 0)
                print("  %-70s %9d %9d %+9d" % (g[:70], o, n, n - o))
        print("\n  prefixes that grew most:")
        keys = set(old["prefixes"]) | set(pref)
        for p in sorted(keys, key=lambda p: -(pref.get(p, 0) - old["prefixes"].get(p, 0)))[:40]:
            o, n = old["prefixes"].get(p, 0), pref.get(p, 0)
            print("  %+9d  %9d -> %9d  %s" % (n - o, o, n, p[:140]))
        print("\n  new or grown functions (top 40):")
        of = old["functions"]
        fn = data["functions"]
        for d in sorted(fn, key=lambda d: -(fn[d] - of.get(d, 0)))[:40]:
            print("  %+9d  %8d -> %8d  %s" % (fn[d] - of.get(d, 0), of.get(d, 0), fn[d], d[:150]))


if __name__ == "__main__":
    main()
