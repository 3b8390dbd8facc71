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
