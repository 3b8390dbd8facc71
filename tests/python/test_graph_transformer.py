"""popart.GraphTransformer and Builder.saveInitializersExternally, against NumPy (astype) and the
onnx package (onnx.load with its external data loader)."""
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper


def _model(nodes, inputs, outputs, inits=(), value_info=()):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits), value_info=list(value_info))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def _run(popart, proto, feeds, outs):
    s = popart.InferenceSession(proto, popart.DataFlow(1, outs), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, a))
    return [a[o] for o in outs]


def _init(m, name):
    return next(t for t in m.graph.initializer if t.name == name)


def _elem(vis, name):
    return next(v for v in vis if v.name == name).type.tensor_type.elem_type


# Round to nearest even, ties, overflow to inf, subnormals, underflow to 0.
W = np.array([1.0, 0.1, 2049.0, 2051.0, -2.5, 1e-8, 3e-8, 1 / 3, 65519.0, 65520.0, -7e4, 6.1e-5], np.float32)


def test_floats_to_halfs_matches_numpy_and_runs(popart):
    c = np.linspace(-2, 2, W.size).astype(np.float32)
    proto = _model(
        [helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(c, "c")),
         helper.make_node("Cast", ["i"], ["ci"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["x", "w"], ["xw"]),
         helper.make_node("Add", ["xw", "c"], ["xwc"]),
         helper.make_node("Add", ["xwc", "ci"], ["out"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [W.size]),
         helper.make_tensor_value_info("i", TensorProto.INT32, [W.size])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [W.size])],
        [numpy_helper.from_array(W, "w")],
        [helper.make_tensor_value_info("xw", TensorProto.FLOAT, [W.size])])
    gt = popart.GraphTransformer(proto)
    gt.convertFloatsToHalfs()
    m = onnx.load_from_string(gt.getModelProto())
    onnx.checker.check_model(m)
    assert _elem(m.graph.input, "x") == TensorProto.FLOAT16
    assert _elem(m.graph.input, "i") == TensorProto.INT32
    assert _elem(m.graph.output, "out") == TensorProto.FLOAT16
    assert _elem(m.graph.value_info, "xw") == TensorProto.FLOAT16
    w16 = numpy_helper.to_array(_init(m, "w"))
    assert w16.dtype == np.float16
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(w16.view(np.uint16), W.astype(np.float16).view(np.uint16))
    const = next(n for n in m.graph.node if n.op_type == "Constant")
    np.testing.assert_array_equal(numpy_helper.to_array(const.attribute[0].t), c.astype(np.float16))
    cast = next(n for n in m.graph.node if n.op_type == "Cast")
    assert cast.attribute[0].i == TensorProto.FLOAT16

    # Runs in float16: the reference is NumPy in double from the float16 operands.
    x = np.random.default_rng(1).uniform(-1, 1, W.size).astype(np.float16)
    i = np.arange(W.size, dtype=np.int32)
    finite = np.isfinite(w16)
    (y,) = _run(popart, gt.getModelProto(), {"x": x, "i": i}, ["out"])
    assert y.dtype == np.float16
    ref = x.astype(np.float64) * w16.astype(np.float64) + c.astype(np.float16).astype(np.float64) + i
    np.testing.assert_allclose(y[finite].astype(np.float64), ref[finite], rtol=2e-3, atol=2e-3)


def test_doubles_to_halfs_and_floats(popart):
    # 1 + 2^-11 + 2^-40: NumPy rounds it once, up to 1 + 2^-10 (through float it would tie to 1).
    d = np.array([1 + 2.0**-11 + 2.0**-40, 0.1, -1 / 3, 1e300, 1e-50], np.float64)
    proto = _model([helper.make_node("Identity", ["w"], ["out"])], [],
                   [helper.make_tensor_value_info("out", TensorProto.DOUBLE, [d.size])],
                   [numpy_helper.from_array(d, "w")])
    gt = popart.GraphTransformer(proto)
    gt.convertDoublesToHalfs()
    m = onnx.load_from_string(gt.getModelProto())
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(numpy_helper.to_array(_init(m, "w")).view(np.uint16),
                                      d.astype(np.float16).view(np.uint16))
    assert _elem(m.graph.output, "out") == TensorProto.FLOAT16

    gt = popart.GraphTransformer(proto)
    gt.convertDoublesToFloats()
    proto32 = gt.getModelProto()
    w32 = numpy_helper.to_array(_init(onnx.load_from_string(proto32), "w"))
    with np.errstate(over="ignore"):
        d32 = d.astype(np.float32)
    np.testing.assert_array_equal(w32, d32)
    np.testing.assert_array_equal(_run(popart, proto32, {}, ["out"])[0], d32)


def test_bfloat16_to_float32(popart):
    bits = np.array([0x3F80, 0xC040, 0x3E4D, 0x7F80], np.uint16)
    t = helper.make_tensor("w", TensorProto.BFLOAT16, [4], bits.tobytes(), raw=True)
    proto = _model([helper.make_node("Identity", ["w"], ["out"])], [],
                   [helper.make_tensor_value_info("out", TensorProto.BFLOAT16, [4])], [t])
    gt = popart.GraphTransformer(proto)
    gt.convertBFloats16ToFloat32()
    expect = (bits.astype(np.uint32) << 16).view(np.float32)  # bfloat16 = float's upper half
    m = onnx.load_from_string(gt.getModelProto())
    np.testing.assert_array_equal(numpy_helper.to_array(_init(m, "w")), expect)
    np.testing.assert_array_equal(_run(popart, gt.getModelProto(), {}, ["out"])[0], expect)


@pytest.mark.parametrize("dtype,method", [(np.uint8, "convertUINT8ToINT32"), (np.uint16, "convertUINT16ToINT32"),
                                          (np.int8, "convertINT8ToINT32"), (np.int16, "convertINT16ToINT32"),
                                          (np.int64, "convertINT64ToINT32")])
def test_integers_to_int32(popart, dtype, method):
    info = np.iinfo(dtype)
    w = np.array([max(info.min, -2**31), 0, 1, min(info.max, 2**31 - 10)], dtype)
    onnx_type = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]
    proto = _model([helper.make_node("Add", ["x", "w"], ["out"])],
                   [helper.make_tensor_value_info("x", onnx_type, [4])],
                   [helper.make_tensor_value_info("out", onnx_type, [4])], [numpy_helper.from_array(w, "w")])
    gt = popart.GraphTransformer(proto)
    getattr(gt, method)()
    m = onnx.load_from_string(gt.getModelProto())
    assert _elem(m.graph.input, "x") == TensorProto.INT32
    np.testing.assert_array_equal(numpy_helper.to_array(_init(m, "w")), w.astype(np.int32))
    # PopART writes the converted values to int32_data, one per element (scripts count them).
    assert not _init(m, "w").raw_data and list(_init(m, "w").int32_data) == w.astype(np.int32).tolist()
    x = np.array([5, -3, 2, 7], np.int32)
    np.testing.assert_array_equal(_run(popart, gt.getModelProto(), {"x": x}, ["out"])[0],
                                  (w.astype(np.int64) + x).astype(np.int32))


def test_int64_out_of_range(popart):
    w = np.array([3_000_000_000, -3_000_000_000, 12], np.int64)
    proto = _model([helper.make_node("Identity", ["w"], ["out"])], [],
                   [helper.make_tensor_value_info("out", TensorProto.INT64, [3])], [numpy_helper.from_array(w, "w")])
    gt = popart.GraphTransformer(proto)
    with pytest.raises(popart.popart_exception, match="cannot cast int64 to int32: number is too large"):
        gt.convertINT64ToINT32()
    assert gt.getModelProto() == proto
    gt.convertINT64ToINT32(clip=True)
    m = onnx.load_from_string(gt.getModelProto())
    np.testing.assert_array_equal(numpy_helper.to_array(_init(m, "w")),
                                  np.clip(w, -2**31, 2**31 - 1).astype(np.int32))


def _structure():
    a = np.array([1, 2, 3], np.float32)
    k = np.array([2], np.int64)
    return _model(
        [helper.make_node("Add", ["x", "a"], ["xa"]), helper.make_node("Cast", ["k"], ["kf"], to=TensorProto.FLOAT),
         helper.make_node("Add", ["xa", "kf"], ["out"])],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in
         [("x", TensorProto.FLOAT, [3]), ("a", TensorProto.FLOAT, [3]), ("k", TensorProto.INT64, [1]),
          ("unused", TensorProto.FLOAT, [2])]],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [3])],
        [numpy_helper.from_array(a, "a"), numpy_helper.from_array(k, "k"),
         numpy_helper.from_array(np.zeros(2, np.float32), "unused")]), a, k


def test_initializers_to_constants_and_unused_inputs(popart):
    proto, a, k = _structure()
    x = np.array([0.5, -1, 2], np.float32)
    ref = x + a + k.astype(np.float32)
    gt = popart.GraphTransformer(proto)
    with pytest.raises(popart.popart_exception, match="TensorId nope not in the model initalizers"):
        gt.convertInitializersToConstants(["nope"])
    gt.convertAllFixedPointInitializersToConstants()
    gt.convertInitializersToConstants(["a"])
    gt.removeUnusedInputs()
    m = onnx.load_from_string(gt.getModelProto())
    onnx.checker.check_model(m)
    assert [n.op_type for n in m.graph.node[:2]] == ["Constant", "Constant"]
    assert {n.output[0] for n in m.graph.node[:2]} == {"a", "k"}
    assert [i.name for i in m.graph.input] == ["x"]
    assert len(m.graph.initializer) == 0
    np.testing.assert_array_equal(_run(popart, gt.getModelProto(), {"x": x}, ["out"])[0], ref)


def test_prepare_nodes_for_training(popart):
    p = [numpy_helper.from_array(np.ones(2, np.float32), n) for n in ("s", "b", "m", "v")]
    proto = _model([helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn")],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 2])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 2])], p)
    gt = popart.GraphTransformer(proto)
    gt.prepareNodesForTraining()
    outs = onnx.load_from_string(gt.getModelProto()).graph.node[0].output
    assert len(outs) == 5 and outs[0] == "y"
    assert all(o.startswith("BatchNormalization_bn_oi%d_" % i) for i, o in enumerate(outs) if i)


# ------------------------------------------------------------------ external data

def test_builder_saves_initializers_externally(popart, tmp_path, monkeypatch):
    d1 = np.array([1, -1, 6], np.float32)
    d2 = np.array([7, 4], np.float16)
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [3]))
    i1 = b.addInitializedInputTensor(d1)
    i2 = b.addInitializedInputTensor(d2)
    y = b.aiOnnx.add([x, i1])
    h = b.aiOnnx.cast([i2], "FLOAT")
    b.addOutputTensor(y)
    b.addOutputTensor(h)
    xv = np.array([0.5, 2, -3], np.float32)
    before = _run(popart, b.getModelProto(), {x: xv}, [y, h])

    monkeypatch.chdir(tmp_path)  # a relative location: the onnx package reads only those
    data = "tensors.bin"
    b.saveInitializersExternally([i1, i2], data)
    assert os.path.getsize(data) == d1.nbytes + d2.nbytes
    np.testing.assert_array_equal(np.fromfile(data, np.float32, count=3), d1)
    np.testing.assert_array_equal(np.fromfile(data, np.float16, count=2, offset=12), d2)
    m = onnx.load_from_string(b.getModelProto())
    info = {t.name: {kv.key: kv.value for kv in t.external_data} for t in m.graph.initializer}
    assert info[i1] == {"location": data, "offset": "0", "length": "12"}
    assert info[i2] == {"location": data, "offset": "12", "length": "4"}
    assert all(t.data_location == TensorProto.EXTERNAL and not t.raw_data for t in m.graph.initializer)

    model = str(tmp_path / "model.onnx")
    b.saveModelProto(model)
    loaded = onnx.load(model, load_external_data=True)  # the onnx package reads our external data
    arrays = {t.name: numpy_helper.to_array(t) for t in loaded.graph.initializer}
    np.testing.assert_array_equal(arrays[i1], d1)
    np.testing.assert_array_equal(arrays[i2], d2)
    for src in (model, b.getModelProto()):
        after = _run(popart, src, {x: xv}, [y, h])
        for u, v in zip(before, after):
            np.testing.assert_array_equal(u, v)

    with pytest.raises(popart.popart_exception, match="already has an external data_location"):
        b.saveInitializersExternally([i1], str(tmp_path / "other.bin"))
    with pytest.raises(popart.popart_exception, match="is not an initializer"):
        b.saveInitializersExternally([y], str(tmp_path / "other.bin"))
    with pytest.raises(popart.popart_exception, match="parent directory does not exist"):
        b.saveInitializersExternally([i1], str(tmp_path / "missing" / "t.bin"))
    assert not (tmp_path / "other.bin").exists()


def test_graph_transformer_external_data_relative_to_model(popart, tmp_path, monkeypatch):
    proto, a, k = _structure()
    monkeypatch.chdir(tmp_path)
    gt = popart.GraphTransformer(proto)
    gt.saveInitializersExternally(["a", "k"], "w.bin")  # relative: next to the model saved here
    assert os.path.getsize("w.bin") == a.nbytes + k.nbytes
    (tmp_path / "m.onnx").write_bytes(gt.getModelProto())
    loaded = onnx.load(str(tmp_path / "m.onnx"), load_external_data=True)
    np.testing.assert_array_equal(numpy_helper.to_array(_init(loaded, "a")), a)
    np.testing.assert_array_equal(numpy_helper.to_array(_init(loaded, "k")), k)
    x = np.array([1, 2, 3], np.float32)
    monkeypatch.chdir("/")  # a model loaded from its path reads its data relative to itself
    np.testing.assert_array_equal(_run(popart, str(tmp_path / "m.onnx"), {"x": x}, ["out"])[0], x + a + 2)
    # A transformer made from that file converts the external data (inlined as float16).
    gt2 = popart.GraphTransformer(str(tmp_path / "m.onnx"))
    gt2.convertFloatsToHalfs()
    m = onnx.load_from_string(gt2.getModelProto())
    np.testing.assert_array_equal(numpy_helper.to_array(_init(m, "a")), a.astype(np.float16))


def test_inline_external_data_is_the_inverse_of_saving_to_bytes(popart):
    """Not PopART's: the files a model's external tensors name, and their data put back inline
    (what the JS module does in Node and a browser)."""
    proto, a, k = _structure()
    gt = popart.GraphTransformer(proto)
    data = gt.saveInitializersExternallyToBytes(["a"], "a.bin")
    assert data == a.tobytes()
    assert gt.externalDataLocations() == ["a.bin"]
    with pytest.raises(popart.popart_exception, match="tensor 'a' stores its data in the external file a.bin"):
        gt.inlineExternalData({})
    with pytest.raises(popart.popart_exception, match="is truncated"):
        gt.inlineExternalData({"a.bin": data[:4]})
    gt.inlineExternalData({"a.bin": data})
    assert gt.externalDataLocations() == []
    x = np.array([0.5, -1, 2], np.float32)
    (out,) = _run(popart, gt.getModelProto(), {"x": x}, ["out"])
    np.testing.assert_array_equal(out, x + a + 2)
