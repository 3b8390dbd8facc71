"""popart.describeModel from Python: the zoo's models against the references
tests/zoo/make_describe_refs.py makes with the onnx package and NumPy in double (the same cases as
the C++ and JS tests), an input shape override, and bad input."""
import json
import os

import pytest

ZOO = os.environ.get("POPART_ZOO_DIR", "")
REFS = os.environ.get("POPART_DESCRIBE_REFS", ZOO)


def _zoo_names():
    path = os.path.join(ZOO, "manifest.json")
    if not ZOO or not os.path.exists(path):
        return []
    m = json.load(open(path))
    return sorted(list(m["models"]) + list(m.get("seed_models", {})))


def _close(ours, ref, what):
    if ref is None:
        assert ours is None, what
    else:
        assert abs(ours - ref) <= 1e-6 * abs(ref) + 1e-12, "%s: ours %r, reference %r" % (what, ours, ref)


@pytest.mark.parametrize("name", _zoo_names())
def test_zoo_matches_onnx_and_numpy(popart, name):
    ref_path = os.path.join(REFS, name + ".describe.json")
    if not os.path.exists(ref_path):
        pytest.skip("no reference %s (tests/zoo/make_describe_refs.py)" % ref_path)
    ref = json.load(open(ref_path))
    d = popart.describeModel(os.path.join(ZOO, name + ".onnx"))
    assert d["shapeInference"] == {"ok": True, "message": ""}
    for k in ("irVersion", "producerName", "opsets", "inputs", "outputs", "parameterCount", "parameterBytes",
              "opHistogram"):
        assert d[k] == ref[k], k
    assert [(n["name"], n["opType"], n["inputs"], n["outputs"]) for n in d["nodes"]] == \
        [(n["name"], n["opType"], n["inputs"], n["outputs"]) for n in ref["nodes"]]
    assert sorted(t["name"] for t in d["tensors"]) == sorted(ref["tensors"])
    for t in d["tensors"]:
        r = ref["tensors"][t["name"]]
        assert t["kind"] == r["kind"], t["name"]
        if r["dtype"] is not None:
            assert t["dtype"] == r["dtype"], t["name"]
        if r["shape"] is not None:
            assert len(t["shape"]) == len(r["shape"]), t["name"]
            for k, dim in enumerate(r["shape"]):
                if isinstance(dim, int):
                    assert t["shape"][k] == dim, (t["name"], k)
        s, rs = t["stats"], r["stats"]
        if rs is None:
            assert s is None, t["name"]
            continue
        for k in ("count", "zeros", "nans", "infs"):
            assert s[k] == rs[k], (t["name"], k)
        for k in ("min", "max", "mean", "std"):
            _close(s[k], rs[k], "%s.%s" % (t["name"], k))
        if rs["histogram"] is not None:
            assert s["histogram"]["counts"] == rs["histogram"]["counts"], t["name"]


def test_input_shape_override_and_bytes(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 3]), "x")
    w = b.addInitializedInputTensor(__import__("numpy").arange(6, dtype="float32").reshape(3, 2), "w")
    b.addOutputTensor(b.aiOnnx.matmul([x, w]))
    proto = b.getModelProto()
    d = popart.describeModel(proto)
    out = [t for t in d["tensors"] if t["kind"] == "output"][0]
    assert out["shape"] == [4, 2] and out["shapeSource"] == "inferred"
    wt = [t for t in d["tensors"] if t["name"] == "w"][0]
    assert wt["stats"]["mean"] == 2.5 and wt["stats"]["zeros"] == 1
    isi = popart.InputShapeInfo()
    isi.add("x", popart.TensorInfo("FLOAT", [8, 3]))
    d8 = popart.describeModel(proto, isi, histogramBins=4)
    assert [t for t in d8["tensors"] if t["kind"] == "output"][0]["shape"] == [8, 2]
    assert len([t for t in d8["tensors"] if t["name"] == "w"][0]["stats"]["histogram"]["counts"]) == 4


def test_bad_input_is_a_popart_exception(popart):
    b = popart.Builder()
    b.addOutputTensor(b.aiOnnx.relu([b.addInputTensor(popart.TensorInfo("FLOAT", [2]), "x")]))
    proto = b.getModelProto()
    with pytest.raises(popart.popart_exception, match="ONNX"):
        popart.describeModel(b"this is not an ONNX model")
    with pytest.raises(popart.popart_exception, match="no opset_import"):
        popart.describeModel(popart.Builder().getModelProto())
    with pytest.raises(popart.popart_exception, match="histogramBins must be between 1 and"):
        popart.describeModel(proto, histogramBins=0)
    with pytest.raises(popart.popart_exception, match="fnModel must be"):
        popart.describeModel(42)
    # The module keeps working.
    assert [n["opType"] for n in popart.describeModel(proto)["nodes"]] == ["Relu"]


def test_metadata_implicit_inputs_support_and_tensor_value(popart):
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper
    body = helper.make_graph([helper.make_node("Add", ["v", "z"], ["vout"], name="add")], "then",
                             [], [helper.make_tensor_value_info("vout", onnx.TensorProto.FLOAT, [2])])
    body.node.insert(0, helper.make_node("Identity", ["x"], ["v"], name="copy"))
    els = helper.make_graph([helper.make_node("Neg", ["x"], ["e"], name="neg")], "else", [],
                            [helper.make_tensor_value_info("e", onnx.TensorProto.FLOAT, [2])])
    w = np.array([[1.5, -2.0, 0.25]], dtype=np.float16)
    nodes = [helper.make_node("If", ["cond"], ["y"], name="if", then_branch=body, else_branch=els, doc_string="pick"),
             helper.make_node("Constant", [], ["c"], name="cw", value=numpy_helper.from_array(w, "c")),
             helper.make_node("Foo", ["y"], ["f"], name="foo", domain="com.example")]
    g = helper.make_graph(nodes, "main", [helper.make_tensor_value_info("cond", onnx.TensorProto.BOOL, []),
                                          helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2]),
                                          helper.make_tensor_value_info("z", onnx.TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("f", onnx.TensorProto.FLOAT, [2]),
                           helper.make_tensor_value_info("c", onnx.TensorProto.FLOAT16, [1, 3])],
                          initializer=[numpy_helper.from_array(np.zeros(5, np.float32), "Accl___w")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)])
    helper.set_model_props(m, {"author": "me"})
    data = m.SerializeToString()
    d = popart.describeModel(data)
    assert d["metadataProps"] == [{"key": "author", "value": "me"}]
    node = {n["name"]: n for n in d["nodes"]}
    assert node["if"]["implicitInputs"] == ["x", "z"] and node["if"]["docString"] == "pick"
    assert [s["attribute"] for s in node["if"]["subgraphs"]] == ["else_branch", "then_branch"]  # attribute order
    assert node["if"]["supported"] and not node["foo"]["supported"]
    # c is a graph output here, so not a Constant weight: the parameters are nothing; Accl___w is state.
    assert (d["parameterCount"], d["optimizerStateCount"], d["optimizerStateBytes"]) == (0, 5, 20)
    v = popart.tensorValue(data, "c")
    assert v.dtype == np.float16 and v.shape == (1, 3)
    np.testing.assert_array_equal(v, w)
    np.testing.assert_array_equal(popart.tensorValue(data, "Accl___w"), np.zeros(5, np.float32))
    with pytest.raises(popart.popart_exception, match="stores no value for tensor 'x'"):
        popart.tensorValue(data, "x")
