"""The IPU model's reports from Python: the same cases as tests/unit/ipu_model_report_test.cpp
and tests/js/ipu_reports.test.mjs (out of memory, JSON / CBOR reports, run names, resetProfile,
getReport()'s one document against the core's table reportSchema(), cycle counters, PopART's
errors)."""
import json
import os

import numpy as np
import pytest

import popart


def mlp(rows=4, k=64, hidden=32, n=8):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [rows, k]), "x")
    rng = np.random.default_rng(1)
    w1 = b.addInitializedInputTensor(rng.uniform(-0.1, 0.1, (k, hidden)).astype(np.float32), "w1")
    w2 = b.addInitializedInputTensor(rng.uniform(-0.1, 0.1, (hidden, n)).astype(np.float32), "w2")
    y = b.aiOnnx.matmul([b.aiOnnx.relu([b.aiOnnx.matmul([x, w1], "mm1")]), w2], "mm2")
    b.addOutputTensor(y)
    return b.getModelProto(), x, y


def session(proto, y, device, bps=1, opts=None):
    s = popart.InferenceSession(fnModel=proto, dataFlow=popart.DataFlow(bps, [y]), deviceInfo=device,
                                userOptions=opts or popart.SessionOptions())
    s.prepareDevice()
    return s


def run(s, x, rows=4, k=64, bps=1, name=""):
    shape = [bps, rows, k] if bps > 1 else [rows, k]
    inputs = {x: np.ones(shape, dtype=np.float32)}
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO(inputs, anchors), name)
    return anchors


def ipu_model(tiles, ipus=1):
    return popart.DeviceManager().createIpuModelDevice({"tilesPerIPU": tiles, "numIPUs": ipus})


def check_schema(o, path, table, seen):
    """Every key of the document `o` at `path` is in the core's table with its type, and every
    required key of the table under `path` is in `o` (the walk of tests/unit/report_schema_test.cpp
    and tests/js/ipu_reports.test.mjs)."""
    types = {"object": lambda v: isinstance(v, dict),
             "object[]": lambda v: isinstance(v, list) and all(isinstance(e, dict) for e in v),
             "string": lambda v: isinstance(v, str), "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
             "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
             "bool": lambda v: isinstance(v, bool),
             "int[]": lambda v: isinstance(v, list) and all(isinstance(e, int) for e in v),
             "string[]": lambda v: isinstance(v, list) and all(isinstance(e, str) for e in v)}
    prefix = path + "." if path else ""
    for k, v in o.items():
        f = table.get(prefix + k)
        assert f is not None, "the document has %s, reportSchema() does not" % (prefix + k)
        seen.add(f["path"])
        assert types[f["type"]](v), "%s is not %s" % (f["path"], f["type"])
        if f["type"] == "object":
            check_schema(v, f["path"], table, seen)
        if f["type"] == "object[]":
            for e in v:
                check_schema(e, f["path"] + "[]", table, seen)
    for p, f in table.items():
        rest = p[len(prefix):]
        if not f["optional"] and p.startswith(prefix) and rest and "." not in rest:
            assert rest in o, "no " + p


def test_out_of_memory_on_four_tiles_and_fits_the_chip():
    proto, x, y = mlp(4, 1024, 1024, 16)
    small = session(proto, y, ipu_model(4))  # the IPU model prepares anyway
    g = json.loads(small.getGraphReport())
    assert len(g["memory"]["outOfMemoryTiles"]) == 4
    assert "Tiles out of memory:" in small.getSummaryReport()
    full = session(proto, y, ipu_model(1472))
    assert json.loads(full.getGraphReport())["memory"]["outOfMemoryTiles"] == []

    offline = popart.DeviceManager().createOfflineIPUDevice({"tilesPerIPU": 4})
    s = popart.InferenceSession(fnModel=proto, dataFlow=popart.DataFlow(1, [y]), deviceInfo=offline)
    with pytest.raises(popart.OutOfMemoryException) as e:
        s.prepareDevice()
    assert "Out of memory: Cannot fit all variable data onto one or more tiles" in str(e.value)
    assert "'w1' (variable" in str(e.value)
    assert "Memory Usage:" in e.value.getSummaryReport()
    assert e.value.getProfilePath() == ""
    g = json.loads(e.value.getGraphReport())  # every tile's memory, the ones over capacity marked
    assert len(g["memory"]["outOfMemoryTiles"]) == 4 and len(g["memory"]["byTile"]["total"]) == 4


def test_graph_report_schema_and_cbor():
    proto, x, y = mlp()
    s = session(proto, y, ipu_model(16))
    g = json.loads(s.getGraphReport())
    assert len(g["memory"]["byTile"]["total"]) == 16
    assert g["target"]["architecture"] == "ipu2"
    cbor = s.getGraphReport(useCbor=True)
    assert isinstance(cbor, bytes) and len(cbor) > 0
    # CBOR (RFC 8949): a map (major type 5) at the top.
    assert cbor[0] >> 5 == 5


def test_execution_report_runs_reset_and_get_report():
    proto, x, y = mlp()
    s = session(proto, y, ipu_model(16), bps=2)
    run(s, x, bps=2, name="first")
    run(s, x, bps=2, name="second")
    e = json.loads(s.getExecutionReport(resetProfile=False))
    assert [r["name"] for r in e["runs"]] == ["first", "second"]
    assert e["simulation"]["cycles"] == sum(r["cycles"] for r in e["runs"])
    r = s.getReport()
    assert r.compilation.target.totalMemory == 16 * 624 * 1024
    assert r.compilation.target.architecture == "ipu2"
    assert r.compilation.target.clockFrequency == 1.33e9
    assert r.compilation.ops[0].name == "mm1"
    assert r.execution.runs[1].name == "second"
    assert r.execution.runs[1].microBatches == 2
    assert r.execution.simulation.cycles == sum(run.cycles for run in r.execution.runs)
    assert len(r.compilation.memory.byTile.total) == 16
    assert r.compilation.memory.byCategory.variables == (64 * 32 + 32 * 8) * 4
    # The one document: its halves are the graph and execution reports; its keys the core's table.
    doc = json.loads(s._getReportJson())
    assert list(doc) == ["compilation", "execution"]
    assert doc["compilation"] == json.loads(s.getGraphReport())
    assert doc["execution"] == json.loads(s.getExecutionReport(resetProfile=False))
    table = {f["path"]: f for f in popart.reportSchema()}
    seen = set()
    check_schema(doc, "", table, seen)
    assert "compilation.tensors[].bytesPerTile" in seen and "execution.simulation.steps[].cycles" in seen
    assert len(json.loads(s.getExecutionReport())["runs"]) == 2
    assert json.loads(s.getExecutionReport())["runs"] == []


def test_cycles_linear_in_batches_per_step_and_counter():
    proto, x, y = mlp()
    opts = popart.SessionOptions()
    opts.instrumentWithHardwareCycleCounter = True
    one = session(proto, y, ipu_model(1472), 1, opts)
    three = session(proto, y, ipu_model(1472), 3, opts)
    with pytest.raises(popart.popart_exception, match="Must call run before getCycleCount"):
        one.getCycleCount()
    run(one, x)
    run(three, x, bps=3)
    assert three.getCycleCount() == 3 * one.getCycleCount() > 0
    with pytest.raises(popart.popart_exception, match="Invalid id for cycle counter, 'inner_ipu_0'"):
        one.getCycleCount("inner_ipu_0")


def test_cpu_device_errors_and_profiling(tmp_path):
    proto, x, y = mlp()
    s = popart.InferenceSession(fnModel=proto, dataFlow=popart.DataFlow(1, [y]),
                                deviceInfo=popart.DeviceManager().createCpuDevice())
    with pytest.raises(popart.popart_exception, match="Session must have been prepared before a report can be fetched"):
        s.getSummaryReport()
    s.prepareDevice()
    with pytest.raises(popart.poplar_exception, match="Profiling is disabled for current device type.$"):
        s.getSummaryReport()
    assert json.loads(s.getExecutionReport()) == {"profilerMode": "NONE"}
    run(s, x)
    with pytest.raises(popart.popart_exception, match="SessionOption 'instrumentWithHardwareCycleCounter' must be"):
        s.getCycleCount()

    opts = popart.SessionOptions()
    opts.engineOptions = {"autoReport.all": "true", "autoReport.directory": str(tmp_path)}
    p = popart.InferenceSession(fnModel=proto, dataFlow=popart.DataFlow(1, [y]), deviceInfo=ipu_model(8),
                                userOptions=opts, name="py_session")
    p.prepareDevice()
    run(p, x, name="py_run")
    for f in ("summary.txt", "graph.json", "execution.json"):
        assert os.path.exists(tmp_path / "py_session" / f), f
    with open(tmp_path / "py_session" / "execution.json") as f:
        assert json.load(f)["runs"][0]["name"] == "py_run"

    # The CPU device with profiling on: getReport() has the runs and the host time per op.
    opts = popart.SessionOptions()
    opts.engineOptions = {"debug.instrument": "true"}
    q = popart.InferenceSession(fnModel=proto, dataFlow=popart.DataFlow(1, [y]),
                                deviceInfo=popart.DeviceManager().createCpuDevice(), userOptions=opts)
    q.prepareDevice()
    run(q, x, name="instrumented")
    r = q.getReport()
    assert r.execution.runs[0].name == "instrumented"
    assert r.execution.profilerMode == "CPU"
    assert len(r.execution.hostOps) > 0 and all(o.calls == 1 and o.seconds >= 0 for o in r.execution.hostOps)
    check_schema(json.loads(q._getReportJson()), "", {f["path"]: f for f in popart.reportSchema()}, set())


def test_report_schema_is_documented():
    """docs/ipu-model.md's "Report schema" names every key of the core's table."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "docs", "ipu-model.md")) as f:
        text = f.read()
    section = text[text.index("### Report schema"):text.index("## Command line")]
    schema = popart.reportSchema()
    assert schema[0]["path"] == "compilation" and len(schema) > 80
    for f in schema:
        key = f["path"].split(".")[-1]
        assert '"%s"' % key in section, "docs/ipu-model.md's report schema lacks %s" % f["path"]


def test_js_report_types_and_python_stubs_follow_the_table(popart):
    """wasm/js/report-types.d.ts's generated Report interfaces (scripts/gen_js_types.mjs) and the Python
    stub's Report classes (python/gen_stubs.py) have the same names and members, those of the
    core's table: checked natively, without the wasm module (tests/js/reflection.test.mjs checks
    the d.ts against the module too)."""
    import ast
    import re
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "wasm", "js", "report-types.d.ts")) as f:
        dts = f.read()
    block = re.search(r"// BEGIN generated: report types[^\n]*\n(.*?)// END generated: report types", dts, re.S).group(1)
    js = {m.group(1): re.findall(r"^  (\w+)\??: ", m.group(2), re.M)
          for m in re.finditer(r"export interface (\w+) \{\n(.*?)\n\}", block, re.S)}
    table = popart.reportSchema()
    assert sum(len(v) for v in js.values()) == len(table)
    assert js["Report"] == ["compilation", "execution"]
    assert [k for k, v in js.items() if "numIPUs" in v] == ["ReportTarget"]
    stub = os.path.join(os.path.dirname(popart.__file__), "__init__.pyi")
    if not os.path.exists(stub):
        pytest.skip("no stubs next to this popart (built without the popart_py_stubs target)")
    tree = ast.parse(open(stub).read())
    py = {c.name: [a.target.id for a in c.body if isinstance(a, ast.AnnAssign)]
          for c in tree.body if isinstance(c, ast.ClassDef) and c.name.startswith("Report")}
    assert py == js
