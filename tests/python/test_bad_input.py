"""Bad input through the Python API: each is a Python exception carrying the core's message (or a
TypeError for a Python call mistake), never a crash, and the interpreter and the session stay
usable afterwards."""
import numpy as np
import pytest

from conftest import add_model, rand


@pytest.fixture
def session(popart, cpu):
    proto, x, y, o = add_model(popart)
    s = popart.InferenceSession(proto, popart.DataFlow(1, {o: popart.AnchorReturnType("All")}), cpu)
    s.prepareDevice()
    return s, x, y, o


def still_works(popart, s, x, y, o):
    a = s.initAnchorArrays()
    xs, ys = rand(2, 3, seed=7), rand(2, 3, seed=8)
    s.run(popart.PyStepIO({x: xs, y: ys}, a))
    np.testing.assert_allclose(a[o], xs + ys, rtol=1e-6)


@pytest.mark.parametrize("bad,match", [
    (lambda: rand(2, 3).astype(np.float64), "Input 'x' is given as DOUBLE data, but the model expects FLOAT"),
    (lambda: rand(2, 3).astype(np.int32), "Input 'x' is given as INT32 data"),
    (lambda: rand(3, 2).T, "PyStepIO input 'x' cannot be used as it is not c-contiguous"),
    (lambda: rand(2, 6)[:, ::2], "not c-contiguous"),
    (lambda: np.array(["a"] * 6).reshape(2, 3), "NumPy dtype <U1, which the runtime has no type for"),
    (lambda: np.zeros((2, 3), np.complex64), "no type for"),
    (lambda: rand(2, 3).astype(">f4"), "big-endian"),
    (lambda: object(), "has NumPy dtype object, which the runtime has no type for"),
    (lambda: rand(7), "Unexpected number of input elements for Tensor x. Expected 6, but received 7"),
])
def test_bad_input_arrays(popart, session, bad, match):
    s, x, y, o = session
    a = s.initAnchorArrays()
    with pytest.raises(popart.popart_exception, match=match):
        s.run(popart.PyStepIO({x: bad(), y: rand(2, 3)}, a))
    still_works(popart, s, x, y, o)


def test_bad_anchor_arrays(popart, session):
    s, x, y, o = session
    with pytest.raises(popart.popart_exception, match="is read-only"):
        ro = np.zeros((2, 3), np.float32)
        ro.flags.writeable = False
        popart.PyStepIO({x: rand(2, 3), y: rand(2, 3)}, {o: ro})
    with pytest.raises(popart.popart_exception, match="holds DOUBLE data, but the anchor is FLOAT"):
        s.run(popart.PyStepIO({x: rand(2, 3), y: rand(2, 3)}, {o: np.zeros((2, 3))}))
    with pytest.raises(popart.popart_exception, match="must be a NumPy array \\(it is written to\\)"):
        popart.PyStepIO({x: rand(2, 3)}, {o: [0.0] * 6})
    with pytest.raises(popart.popart_exception, match="keys must be tensor ids"):
        popart.PyStepIO({1: rand(2, 3)}, {})
    still_works(popart, s, x, y, o)


def test_python_lists_are_converted_once(popart, session):
    s, x, y, o = session
    a = s.initAnchorArrays()
    # A list becomes float64: the core names the dtype mismatch.
    with pytest.raises(popart.popart_exception, match="DOUBLE"):
        s.run(popart.PyStepIO({x: [[1.0] * 3] * 2, y: rand(2, 3)}, a))


def test_unknown_keyword_arguments(popart, cpu):
    proto, x, y, o = add_model(popart)
    df = popart.DataFlow(1, [o])
    with pytest.raises(TypeError, match="unexpected keyword argument 'dataflow'"):
        popart.InferenceSession(proto, dataflow=df, deviceInfo=cpu)
    with pytest.raises(TypeError, match="dataFlow or its older name dataFeed"):
        popart.InferenceSession(proto, df, cpu, dataFeed=df)
    with pytest.raises(TypeError, match="missing the dataFlow"):
        popart.InferenceSession(proto, deviceInfo=cpu)
    with pytest.raises(TypeError):
        popart.SGD({}, learning_rate=0.1)
    b = popart.Builder()
    t = b.addInputTensor("FLOAT", [2])
    # pybind11's wording, as PopART's generated methods raise it (scripts match on it).
    incompatible = "relu(): incompatible function arguments. The following argument types are supported:"
    with pytest.raises(TypeError, match=r"aiOnnxOpset10.relu\(args, debugContext=''\)\n\ngot an unexpected keyword") as e:
        b.aiOnnx.relu([t], alpha=0.1)
    assert e.value.args[0].startswith(incompatible)
    with pytest.raises(TypeError) as e:
        b.aiOnnx.relu(0, 0, 0, 0)
    assert e.value.args[0].startswith(incompatible)
    # An attribute of the wrong type: at opset 6 Add's second argument is `axis`, not the name.
    b6 = popart.Builder(opsets={"ai.onnx": 6, "ai.graphcore": 1})
    i6 = b6.addInputTensor("FLOAT", [2])
    assert b6.aiOnnx.add([i6, i6], 1, 0, "add_v6")
    with pytest.raises(TypeError, match="Add attribute 'axis' must be an integer, got 'add_v9'") as e:
        b6.aiOnnx.add([i6, i6], "add_v9")
    assert e.value.args[0].startswith("add(): incompatible function arguments.")
    assert str(b6.aiOnnx) == "AiOnnx6"  # PopART's per-opset class names
    with pytest.raises(TypeError, match="missing a required argument: 'lambda_'"):
        b.aiGraphcore.l1loss([t])
    with pytest.raises(TypeError, match="args must be a list of tensor ids"):
        b.aiOnnx.relu(t)
    with pytest.raises(AttributeError, match="no op 'notanop'"):
        b.aiOnnx.notanop([t])
    assert b.aiGraphcore.l1loss([t], **{"lambda": 0.5})  # PopART's keyword spelling


def test_wrong_call_order(popart, cpu):
    proto, x, y, o = add_model(popart)
    s = popart.InferenceSession(proto, popart.DataFlow(1, [o]), cpu)
    a = s.initAnchorArrays()  # works before prepareDevice, as in PopART
    with pytest.raises(popart.popart_exception, match="prepareDevice"):
        s.run(popart.PyStepIO({x: rand(2, 3), y: rand(2, 3)}, a))
    with pytest.raises(popart.popart_exception):
        s.modelToHost("never.onnx")
    with pytest.raises(popart.popart_exception, match="prepared"):
        s.getSummaryReport()
    # training: weightsFromHost before run
    b = popart.Builder()
    xi = b.addInputTensor("FLOAT", [2], "xi")
    w = b.addInitializedInputTensor(np.ones(2, np.float32))
    loss = b.aiGraphcore.l1loss([b.aiOnnx.mul([xi, w])], 0.1)
    t = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, popart.ConstSGD(0.1), cpu)
    t.prepareDevice()
    with pytest.raises(popart.popart_exception, match="Must call weightsFromHost before run"):
        t.run(popart.PyStepIO({xi: rand(2)}, t.initAnchorArrays()))
    with pytest.raises(popart.popart_exception, match="not a TrainingSession"):
        s.updateOptimizerFromHost(popart.ConstSGD(0.1))


def test_bad_models_and_arguments(popart, cpu):
    df = popart.DataFlow(1, ["o"])
    with pytest.raises(popart.popart_exception, match="Failed to load a ModelProto from the string"):
        popart.InferenceSession(b"not a model", df, cpu)
    with pytest.raises(popart.popart_exception, match="Failed to load a ModelProto"):
        popart.InferenceSession("/no/such/file.onnx", df, cpu)
    with pytest.raises(popart.popart_exception, match="fnModel must be ONNX ModelProto bytes or a file path"):
        popart.InferenceSession(42, df, cpu)
    proto, x, y, o = add_model(popart)
    with pytest.raises(popart.popart_exception, match="Anchor tensor `nope' not in Ir Tensors"):
        popart.InferenceSession(proto, popart.DataFlow(1, ["nope"]), cpu)
    with pytest.raises(popart.popart_exception, match="must be a scalar tensor"):
        popart.TrainingSession(proto, popart.DataFlow(1, [o]), o, popart.ConstSGD(0.1), cpu)
    with pytest.raises(TypeError, match="loss must be the id"):
        popart.TrainingSession(proto, popart.DataFlow(1, [o]), 3, popart.ConstSGD(0.1), cpu)
    with pytest.raises(popart.popart_exception, match="Invalid shape \\[-1 2\\]: dimensions must be >= 0"):
        popart.TensorInfo("FLOAT", [-1, 2])
    with pytest.raises(popart.popart_exception, match="data type"):
        popart.TensorInfo("NOTATYPE", [1])
    with pytest.raises(popart.popart_exception):
        popart.Builder(b"garbage")
    b = popart.Builder()
    with pytest.raises(popart.popart_exception, match="unknown_id"):
        b.aiOnnx.relu(["unknown_id"])
    with pytest.raises(popart.popart_exception, match="Abs has invalid number of inputs 0"):
        b.aiOnnx.abs([])
    with pytest.raises(TypeError, match="Transpose attribute .perm. must be a list of integers"):  # as pybind11
        b.aiOnnx.transpose([b.addInputTensor("FLOAT", [2, 2])], perm="x")
    with pytest.raises(popart.popart_exception):
        popart.DeviceManager().createIpuModelDevice({"tilesPerIPU": "many"})
    with pytest.raises(popart.popart_exception, match="ReductionType"):
        b.aiGraphcore.identityloss([b.addInputTensor("FLOAT", [2])], reduction="Median")
    # The interpreter keeps working: a full session afterwards.
    s = popart.InferenceSession(proto, popart.DataFlow(1, [o]), cpu)
    s.prepareDevice()
    still_works(popart, s, x, y, o)
