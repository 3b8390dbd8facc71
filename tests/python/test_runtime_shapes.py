"""Run-time planning on the CPU device (docs/architecture.md, "Static and run-time planning"):
a model input with a symbolic dimension and a shape-giving input fed at run time, one session
run at several sizes against NumPy; the anchors dict takes each run's arrays; the IPU model keeps
PopART's static-shape error."""
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper


def symbolic_model():
    """y = Relu(x) * w, x [N, 4]."""
    w = numpy_helper.from_array(np.array([1, -2, 0.5, 3], np.float32), "w")
    g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Mul", ["r", "w"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])], [w])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def reshape_model():
    g = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6]),
         helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def test_one_session_runs_three_sizes(popart, cpu):
    s = popart.InferenceSession(symbolic_model(), popart.DataFlow(1, ["y"]), cpu)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    assert anchors["y"].shape == (0, 4)  # a placeholder until a run gives the shape
    w = np.array([1, -2, 0.5, 3], np.float32)
    for n in (1, 3, 5, 3):
        x = np.linspace(-2, 2, n * 4, dtype=np.float32).reshape(n, 4)
        s.run(popart.PyStepIO({"x": x}, anchors))
        assert anchors["y"].shape == (n, 4)
        np.testing.assert_allclose(anchors["y"], np.maximum(x, 0) * w, rtol=1e-6)
        assert tuple(s.getAnchorShape("y")) == (n, 4)
    st = s.getRunTimePlanStats()
    assert st["runTimeShapes"] and st["plansBuilt"] == 3 and st["plansReused"] == 1 and st["plansCached"] == 3


def test_shape_input_fed_at_run_time(popart, cpu):
    s = popart.InferenceSession(reshape_model(), popart.DataFlow(1, ["y"]), cpu)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    for shape in ([3, 4], [4, 3], [3, 4]):
        s.run(popart.PyStepIO({"x": x, "shape": np.array(shape, np.int64)}, anchors))
        np.testing.assert_array_equal(anchors["y"], x.reshape(shape))
    st = s.getRunTimePlanStats()
    assert st["plansBuilt"] == 2 and st["plansReused"] == 1 and st["runTimeConstants"] == ["shape"]
    # A bad shape is the op's error; the session keeps working.
    with pytest.raises(popart.popart_exception, match="cannot reshape"):
        s.run(popart.PyStepIO({"x": x, "shape": np.array([5, 5], np.int64)}, anchors))
    s.run(popart.PyStepIO({"x": x, "shape": np.array([6, 2], np.int64)}, anchors))
    assert anchors["y"].shape == (6, 2)


def test_static_sessions_are_unchanged(popart, cpu):
    isi = popart.InputShapeInfo()
    isi.add("x", popart.TensorInfo("FLOAT", [2, 4]))
    s = popart.InferenceSession(symbolic_model(), popart.DataFlow(1, ["y"]), cpu, inputShapeInfo=isi)
    assert not s.getRunTimePlanStats()["runTimeShapes"]
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    with pytest.raises(popart.popart_exception, match="Unexpected number of input elements"):
        s.run(popart.PyStepIO({"x": np.zeros((3, 4), np.float32)}, anchors))


def test_ipu_model_keeps_static_shapes(popart):
    dev = popart.DeviceManager().createIpuModelDevice({"numIPUs": 1})
    with pytest.raises(popart.popart_exception,
                       match=r"Input tensor 'x' must be specified in InputShapeInfo, as it has shape \[N, 4\]"):
        popart.InferenceSession(symbolic_model(), popart.DataFlow(1, ["y"]), dev)


def if_model():
    """Silero VAD's pattern: the else branch (8 kHz) does not import for x [1, 512]."""
    def branch(name, shape, relu):
        sh = numpy_helper.from_array(np.array(shape, np.int64), name + "_shape")
        nodes = [helper.make_node("Reshape", ["x", sh.name], [name + ("_r" if relu else "_y")])]
        if relu:
            nodes.append(helper.make_node("Relu", [name + "_r"], [name + "_y"]))
        return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(name + "_y", TensorProto.FLOAT, None)],
                                 [sh])
    rate = numpy_helper.from_array(np.array(16000, np.int64), "rate")
    g = helper.make_graph(
        [helper.make_node("Equal", ["sr", "rate"], ["cond"]),
         helper.make_node("If", ["cond"], ["y"], then_branch=branch("then_branch", [4, 128], True),
                          else_branch=branch("else_branch", [3, 100], False))], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 512]),
         helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [rate])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def test_if_branch_that_does_not_import_is_deferred(popart, cpu):
    s = popart.InferenceSession(if_model(), popart.DataFlow(1, ["y"]), cpu)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    x = np.linspace(-1, 1, 512, dtype=np.float32).reshape(1, 512)
    s.run(popart.PyStepIO({"x": x, "sr": np.array(16000, np.int64)}, anchors))
    np.testing.assert_array_equal(anchors["y"], np.maximum(x, 0).reshape(4, 128))
    with pytest.raises(popart.popart_exception) as e:
        s.run(popart.PyStepIO({"x": x, "sr": np.array(8000, np.int64)}, anchors))
    assert "else_branch (taken when the condition 'cond' is false) does not import" in e.value.fullMessage
    dev = popart.DeviceManager().createIpuModelDevice({"numIPUs": 1})
    with pytest.raises(popart.popart_exception, match="known only at run time"):
        popart.InferenceSession(if_model(), popart.DataFlow(1, ["y"]), dev)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_nonzero_of_a_run_time_input_matches_numpy(popart, cpu, dtype):
    g = helper.make_graph(
        [helper.make_node("NonZero", ["x"], ["y"])], "g",
        [helper.make_tensor_value_info("x", {np.float32: TensorProto.FLOAT, np.int32: TensorProto.INT32, np.bool_: TensorProto.BOOL}[dtype], [2, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, None)])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    s = popart.InferenceSession(model, popart.DataFlow(1, ["y"]), cpu)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    rng = np.random.default_rng(7)
    for density in (0.2, 0.7, 0.0):
        x = (rng.random((2, 3, 4)) < density).astype(dtype) * (3 if dtype != np.bool_ else 1)
        s.run(popart.PyStepIO({"x": x.astype(dtype)}, anchors))
        np.testing.assert_array_equal(anchors["y"], np.array(np.nonzero(x), np.int64).reshape(3, -1))
    assert s.getRunTimePlanStats()["plansBuilt"] == 3
