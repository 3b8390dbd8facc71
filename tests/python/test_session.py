"""Behaviour-spec tests of the Python API (shared/reference/popart-behaviour.md): anchor return
types and shapes, StepIO errors, PyStepIOCallback, weights I/O, optimizer closed forms,
SessionOptions, devices, logging, exceptions, the GIL."""
import threading
import time

import numpy as np
import pytest

from conftest import add_model, rand


def scale_model(popart, shape=(2,)):
    """x -> x * 2 (anchored under the returned id)."""
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", list(shape), "x")
    o = b.aiGraphcore.scale([x], 2.0)
    b.addOutputTensor(o)
    return b.getModelProto(), x, o


def test_memory_stats_fields(popart, cpu):
    """getMemoryStats: every field of the core's SessionMemoryStats (the same case as JS's)."""
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2, 3], "x")
    w = b.addInitializedInputTensor(np.full((3, 4), 0.5, np.float32), "w")
    y = b.aiOnnx.matmul([x, w])
    b.addOutputTensor(y)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]), cpu)
    s.prepareDevice()
    m = s.getMemoryStats()
    assert list(m) == ["activationArenaBytes", "activationTotalBytes", "weightBytes", "constantBytes"]
    assert m["weightBytes"] + m["constantBytes"] == 48
    assert m["activationTotalBytes"] > 0 and m["activationArenaBytes"] > 0


@pytest.mark.parametrize("art,period,shape,pick", [
    ("All", None, [4, 2], lambda x: x * 2),
    ("EveryN", 2, [2, 2], lambda x: x[1::2] * 2),
    ("Final", None, [2], lambda x: x[-1] * 2),
    ("Sum", None, [2], lambda x: (x * 2).sum(0)),
])
def test_anchor_return_types_and_shapes(popart, cpu, art, period, shape, pick):
    proto, x, o = scale_model(popart)
    rt = popart.AnchorReturnType(art) if period is None else popart.AnchorReturnType(art, period)
    s = popart.InferenceSession(proto, popart.DataFlow(4, {o: rt}), cpu)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    assert list(anchors[o].shape) == shape and anchors[o].dtype == np.float32
    assert s.getAnchorShape(o) == shape
    data = rand(4, 2)
    s.run(popart.PyStepIO({x: data}, anchors))
    np.testing.assert_allclose(anchors[o], pick(data), rtol=1e-6)


def test_anchor_shapes_with_accumulation(popart, cpu):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [3], "x")
    w = b.addInitializedInputTensor(np.zeros(3, np.float32), "w")
    y = b.aiOnnx.add([x, w])
    loss = b.aiGraphcore.identityloss([y])
    opts = popart.SessionOptions()
    opts.enableGradientAccumulation = True
    opts.accumulationFactor = 2
    df = popart.DataFlow(3, {y: popart.AnchorReturnType("All"), loss: popart.AnchorReturnType("Final")})
    s = popart.TrainingSession(b.getModelProto(), df, loss, popart.ConstSGD(0.1), cpu, userOptions=opts)
    assert s.accumulationFactor == 2 and s.replicationFactor == 1
    a = s.initAnchorArrays()
    assert a[y].shape == (3, 2, 3) and a[loss].shape == ()


def test_dataflow_forms_and_errors(popart):
    df = popart.DataFlow(2, ["a", "b"], popart.AnchorReturnType("Final"))
    assert df.anchors() == ["a", "b"] and df.art("a").str() == "Final" and df.batchesPerStep() == 2
    assert df.art("a").id() == popart.AnchorReturnTypeId.Final
    assert popart.DataFlow(500, 4, ["l"], popart.AnchorReturnType.ALL).nAnchors() == 1
    with pytest.raises(popart.popart_exception, match="Tensor c is not an anchor"):
        df.art("c")
    with pytest.raises(popart.popart_exception, match="Must specify return period"):
        popart.AnchorReturnType("EveryN")
    with pytest.raises(popart.popart_exception, match="Invalid anchor return type ID supplied: Nope"):
        popart.AnchorReturnType("Nope")
    with pytest.raises(popart.popart_exception, match="Return period must be a factor"):
        popart.DataFlow(5, {"a": popart.AnchorReturnType("EveryN", 2)})
    with pytest.raises(popart.popart_exception, match="greater than zero"):
        popart.DataFlow(0, {"a": popart.AnchorReturnType("All")})


def test_stepio_element_count_and_missing_inputs(popart, cpu):
    proto, x, y, o = add_model(popart)
    s = popart.InferenceSession(proto, popart.DataFlow(2, {o: popart.AnchorReturnType("All")}), cpu)
    s.prepareDevice()
    a = s.initAnchorArrays()
    with pytest.raises(popart.popart_exception) as e:
        s.run(popart.PyStepIO({x: rand(2, 3), y: rand(2, 2, 3)}, a))
    assert "Unexpected number of input elements for Tensor x. Expected 12, but received 6" in str(e.value)
    with pytest.raises(popart.popart_exception, match="The stepIO has no input for tensor 'y'"):
        s.run(popart.PyStepIO({x: rand(2, 2, 3)}, a))
    with pytest.raises(popart.popart_exception, match="'z' has been provided as one of the inputs"):
        s.run(popart.PyStepIO({x: rand(2, 2, 3), y: rand(2, 2, 3), "z": rand(1)}, a))
    with pytest.raises(popart.popart_exception, match="no output array for anchor"):
        s.run(popart.PyStepIO({x: rand(2, 2, 3), y: rand(2, 2, 3)}, {}))
    # The session still works.
    xs, ys = rand(2, 2, 3, seed=1), rand(2, 2, 3, seed=2)
    s.run(popart.PyStepIO({x: xs, y: ys}, a))
    np.testing.assert_allclose(a[o], xs + ys, rtol=1e-6)


def test_training_stepio_may_carry_a_weights_data(popart, cpu):
    """PopART's Builder lists initialized inputs among the graph inputs: a script may pass a weight's
    data in the StepIO of a training session. It is not read; the weight trains as without it."""
    def train(extra):
        b = popart.Builder()
        x = b.addInputTensor("FLOAT", [2, 3], "x")
        w = b.addInitializedInputTensor(np.full([3, 2], 0.5, np.float32), "w")
        loss = b.aiGraphcore.l1loss([b.aiOnnx.matmul([x, w])], 1.0)
        s = popart.TrainingSession(b.getModelProto(), deviceInfo=cpu, dataFlow=popart.DataFlow(1, [loss]),
                                   loss=loss, optimizer=popart.ConstSGD(0.1))
        s.prepareDevice()
        s.weightsFromHost()
        anchors = s.initAnchorArrays()
        inputs = {x: np.ones([2, 3], np.float32)}
        if extra:
            inputs[w] = np.full([3, 2], 9.0, np.float32)
        s.run(popart.PyStepIO(inputs, anchors))
        out = {w: np.zeros([3, 2], np.float32)}
        s.weightsToHost()
        s.readWeights(popart.PyWeightsIO(out))
        return anchors[loss], out[w]

    (l0, w0), (l1, w1) = train(False), train(True)
    assert l0 == l1 and np.array_equal(w0, w1) and not np.array_equal(w0, np.full([3, 2], 0.5, np.float32))


def test_pystepio_reads_inputs_in_place(popart, cpu):
    proto, x, y, o = add_model(popart)
    s = popart.InferenceSession(proto, popart.DataFlow(1, {o: popart.AnchorReturnType("All")}), cpu)
    s.prepareDevice()
    a = s.initAnchorArrays()
    xs, ys = np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32)
    io = popart.PyStepIO({x: xs, y: ys}, a)
    s.run(io)
    xs[:] = 5  # the StepIO sees the array itself, not a copy
    s.run(io)
    np.testing.assert_array_equal(a[o], np.full((2, 3), 6, np.float32))


def test_pystepio_callback(popart, cpu):
    proto, x, y, o = add_model(popart)
    s = popart.InferenceSession(proto, popart.DataFlow(3, {o: popart.AnchorReturnType("All")}), cpu)
    s.prepareDevice()
    xs, ys = rand(3, 2, 3, seed=3), rand(3, 2, 3, seed=4)
    out = np.zeros((3, 2, 3), np.float32)
    calls = {"in": 0, "inc": 0, "out": 0, "outc": 0}
    pos = {x: 0, y: 0, o: 0}
    src = {x: xs, y: ys}

    def input_callback(tid, prefetch):
        calls["in"] += 1
        return src[tid][pos[tid]]

    def input_complete_callback(tid):
        calls["inc"] += 1
        pos[tid] += 1

    def output_callback(tid):
        calls["out"] += 1
        return out[pos[tid]]

    def output_complete_callback(tid):
        calls["outc"] += 1
        pos[tid] += 1

    s.run(popart.PyStepIOCallback(input_callback, input_complete_callback, output_callback,
                                  output_complete_callback))
    np.testing.assert_allclose(out, xs + ys, rtol=1e-6)
    assert calls == {"in": 6, "inc": 6, "out": 3, "outc": 3}

    def bad_callback(tid, prefetch):
        raise ValueError("no data for " + tid)

    with pytest.raises(popart.popart_exception, match="input_callback\\('x'\\) raised ValueError: no data for x"):
        s.run(popart.PyStepIOCallback(bad_callback, input_complete_callback, output_callback,
                                      output_complete_callback))


def sgd_model(popart):
    """w (one weight, 0) + x, identityloss Sum: d loss / d w = 1 for x = 0."""
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [1], "x")
    w = b.addInitializedInputTensor(np.zeros(1, np.float32), "w")
    loss = b.aiGraphcore.identityloss([b.aiOnnx.add([x, w])], reduction=popart.ReductionType.Sum)
    return b.getModelProto(), x, w, loss


def train_steps(popart, cpu, optimizer, steps):
    proto, x, w, loss = sgd_model(popart)
    s = popart.TrainingSession(proto, popart.DataFlow(steps, [loss]), loss, optimizer, cpu)
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: np.zeros((steps, 1), np.float32)}, a))
    s.weightsToHost()
    wv = np.zeros(1, np.float32)
    s.readWeights(popart.PyWeightsIO({w: wv}))
    return s, wv[0]


@pytest.mark.parametrize("opt", ["sgd_momentum", "adam"])
def test_training_resumes_from_a_model_to_host_checkpoint(popart, cpu, in_tmp, opt):
    """A model saved by modelToHost carries the optimizer state (Accl___w, ...): a new
    TrainingSession on it starts from that state, as PopART does, so 1 + 1 steps equal 2 steps."""
    def optimizer():
        if opt == "adam":
            return popart.Adam({"defaultLearningRate": (0.1, True)})
        return popart.SGD({"defaultLearningRate": (0.1, True), "defaultMomentum": (0.9, True),
                           "defaultWeightDecay": (0.01, True)})

    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [3], "x")
    w = b.addInitializedInputTensor(np.array([1.0, -2.0, 0.5], np.float32), "w")
    loss = b.aiGraphcore.identityloss([b.aiOnnx.mul([b.aiOnnx.mul([x, w]), w])],
                                      reduction=popart.ReductionType.Sum)
    xs = np.array([[0.5, 1.0, -1.5], [2.0, -0.5, 1.0]], np.float32)

    def train(proto, steps):
        s = popart.TrainingSession(proto, popart.DataFlow(1, [loss]), loss, optimizer(), cpu)
        s.prepareDevice()
        s.weightsFromHost()
        a = s.initAnchorArrays()
        for k in steps:
            s.run(popart.PyStepIO({x: xs[k]}, a))
        out = np.zeros(3, np.float32)
        s.weightsToHost()
        s.readWeights(popart.PyWeightsIO({w: out}))
        return s, out

    proto = b.getModelProto()
    _, both = train(proto, [0, 1])
    first, _ = train(proto, [0])
    first.modelToHost("checkpoint.onnx")
    _, resumed = train("checkpoint.onnx", [1])
    np.testing.assert_allclose(resumed, both, rtol=1e-6)
    # Without the state (a fresh optimizer on the saved weights) the second step differs.
    import onnx
    m = onnx.load("checkpoint.onnx")
    keep = [t for t in m.graph.initializer if not t.name.startswith(("Accl", "Step"))]
    del m.graph.initializer[:]
    m.graph.initializer.extend(keep)
    _, fresh = train(m.SerializeToString(), [1])
    assert not np.allclose(fresh, both, rtol=1e-6)


def test_export_inference_model_after_training(popart, cpu, in_tmp):
    """exportInferenceModel: the user's outputs with the trained weights; the loss, the labels it
    reads and the optimizer state are gone (modelToHost keeps them to resume training)."""
    import onnx
    from onnx import numpy_helper
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2, 3], "x")
    w = b.addInitializedInputTensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4), "w")
    probs = b.aiOnnx.softmax([b.aiOnnx.matmul([x, w])], axis=1)
    b.addOutputTensor(probs)
    label = b.addInputTensor("INT32", [2], "label")
    loss = b.aiGraphcore.nllloss([probs, label])
    b.addOutputTensor(loss)
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss,
                               popart.SGD({"defaultLearningRate": (0.5, False), "defaultMomentum": (0.9, False)}), cpu)
    s.prepareDevice()
    s.weightsFromHost()
    xs = np.array([[1, 0, -1], [0.5, 2, 0]], np.float32)
    s.run(popart.PyStepIO({x: xs, label: np.array([1, 3], np.int32)}, s.initAnchorArrays()))
    trained = np.zeros((3, 4), np.float32)
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO({w: trained}))
    s.exportInferenceModel("inference.onnx")
    m = onnx.load("inference.onnx")
    assert [o.name for o in m.graph.output] == [probs]
    assert [i.name for i in m.graph.input] == [x, w]
    assert [n.op_type for n in m.graph.node] == ["MatMul", "Softmax"]
    assert [t.name for t in m.graph.initializer] == [w]
    assert m.SerializeToString() == s.exportInferenceModelBytes()
    np.testing.assert_array_equal(numpy_helper.to_array(m.graph.initializer[0]), trained)
    inf = popart.InferenceSession("inference.onnx", popart.DataFlow(1, [probs]), cpu)
    inf.prepareDevice()
    a = inf.initAnchorArrays()
    inf.run(popart.PyStepIO({x: xs}, a))
    z = xs @ trained
    np.testing.assert_allclose(a[probs], np.exp(z) / np.exp(z).sum(1, keepdims=True), rtol=1e-5)
    assert any(t.name.startswith("Accl___") for t in onnx.load_from_string(s.modelToHostBytes()).graph.initializer)


def test_builder_float16_initializers_in_popart_packed_form(popart, cpu):
    """PopART's Builder writes FLOAT16 initializers as two halves per int32 of int32_data (scripts
    view them with .view(np.float16)); sessions read that form (and ONNX's one-per-element)."""
    import onnx
    w0 = np.array([1.5, -2.25, 0.125, 65504.0, 3.0], np.float16)  # odd count: the last int32 half-filled
    b = popart.Builder()
    x = b.addInputTensor("FLOAT16", [5], "x")
    w = b.addInitializedInputTensor(w0, "w")
    y = b.aiOnnx.add([x, w])
    t = next(t for t in onnx.load_from_string(b.getModelProto()).graph.initializer if t.name == w)
    assert not t.raw_data and len(t.int32_data) == 3
    np.testing.assert_array_equal(np.asarray(t.int32_data, np.int32).view(np.float16)[:5], w0)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]), cpu)
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: np.zeros(5, np.float16)}, a))
    np.testing.assert_array_equal(a[y], w0)


def test_stepio_may_carry_model_inputs_the_session_does_not_stream(popart, cpu, capfd):
    """As PopART: an initializer listed as a graph input (the Builder lists them) may be in the
    StepIO (its array is not read), and so may an input nothing computed needs (with PopART's
    warning); any other name is still an error."""
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2], "x")
    unused = b.addInputTensor("FLOAT", [2], "unused")
    w = b.addInitializedInputTensor(np.array([1.0, 2.0], np.float32), "w")
    y = b.aiOnnx.add([x, w])
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]), cpu)
    s.prepareDevice()
    a = s.initAnchorArrays()
    popart.getLogger().setLevel("WARN")
    try:
        s.run(popart.PyStepIO({x: np.ones(2, np.float32), w: np.full(2, 9.0, np.float32),
                               unused: np.zeros(2, np.float32)}, a))
    finally:
        popart.getLogger().setLevel("OFF")
    np.testing.assert_array_equal(a[y], [2.0, 3.0])  # w's own value, not the StepIO's
    err = capfd.readouterr().err
    assert "The input Tensor unused to the ONNX Model does not appear in the optimized PopART Ir" in err
    assert "Tensor w " not in err
    s.run(popart.PyStepIO({x: np.ones(2, np.float32)}, a))  # the unused input need not be given
    with pytest.raises(popart.popart_exception, match="The tensor 'nope' has been provided as one of the inputs"):
        s.run(popart.PyStepIO({x: np.ones(2, np.float32), "nope": np.ones(2, np.float32)}, a))


def test_model_to_host_keeps_raw_data_initializers(popart, cpu):
    """A model whose initializers are in raw_data (as exporters write them) is saved in raw_data."""
    import onnx
    from onnx import helper, numpy_helper
    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"]),
                           helper.make_node("ReduceSum", ["y"], ["loss"], keepdims=0)], "g",
                          [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("loss", onnx.TensorProto.FLOAT, [])],
                          [numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "w")])
    proto = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    s = popart.TrainingSession(proto, popart.DataFlow(1, ["loss"]), "loss",
                               popart.ConstSGD(0.5), cpu)
    s.prepareDevice()
    s.weightsFromHost()
    s.run(popart.PyStepIO({"x": np.zeros(2, np.float32)}, s.initAnchorArrays()))
    w = next(t for t in onnx.load_from_string(s.modelToHostBytes()).graph.initializer if t.name == "w")
    assert w.raw_data and not w.float_data
    np.testing.assert_allclose(numpy_helper.to_array(w), [0.5, 1.5])


def test_sgd_momentum_closed_form(popart, cpu):
    # The spec's worked example: mm 0.9, dm 0.1, lr 0.1, g = 1, 3 steps: w = w0 - 0.5049.
    opt = popart.SGD({"defaultLearningRate": (0.1, True), "defaultMomentum": (0.9, True),
                      "defaultDampening": (0.1, True)})
    _, w = train_steps(popart, cpu, opt, 3)
    assert w == pytest.approx(-0.5049, abs=1e-6)


def test_sgd_nesterov_closed_form(popart, cpu):
    lr, mm = 0.1, 0.9
    opt = popart.SGD({"defaultLearningRate": (lr, True), "defaultMomentum": (mm, True), "nesterov": (1, True)})
    _, w = train_steps(popart, cpu, opt, 3)
    v, ref = 0.0, 0.0
    for _ in range(3):
        v = mm * v + 1.0
        ref -= lr * (1.0 + mm * v)
    assert w == pytest.approx(ref, abs=1e-6)


def test_update_optimizer_from_host(popart, cpu):
    s, w = train_steps(popart, cpu, popart.SGD({"defaultLearningRate": (0.1, False)}), 2)
    assert w == pytest.approx(-0.2, abs=1e-6)
    s.updateOptimizerFromHost(popart.SGD({"defaultLearningRate": (0.25, False)}))
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": np.zeros((2, 1), np.float32)}, a))
    s.weightsToHost()
    wv = np.zeros(1, np.float32)
    s.readWeights(popart.PyWeightsIO({"w": wv}))
    assert wv[0] == pytest.approx(-0.7, abs=1e-6)
    with pytest.raises(popart.popart_exception, match="Can not replace a constant value with a non constant value"):
        s.updateOptimizerFromHost(popart.SGD({"defaultLearningRate": (0.25, False),
                                              "defaultWeightDecay": (0.1, False)}))
    with pytest.raises(popart.popart_exception, match="Can not replace optimizer of type SGD"):
        s.updateOptimizerFromHost(popart.Adam({}))
    # The pre-1.2 pair.
    s.updateOptimizer(popart.SGD({"defaultLearningRate": (0.5, False)}))
    s.optimizerFromHost()


def test_optimizer_maps(popart):
    sgd = popart.SGD({"defaultLearningRate": (0.02, False), "defaultMomentum": (0.9, True)})
    assert sgd.learningRates().getDefault().val() == pytest.approx(0.02)
    assert not sgd.learningRates().getDefault().isConst()
    sgd.insertSpecific("w", {"learningRate": (0.5, True)})
    assert sgd.learningRates().get("w").val() == 0.5
    with pytest.raises(popart.popart_exception, match="must be a py::tuple"):
        popart.SGD({"defaultLearningRate": 0.1})
    with pytest.raises(popart.popart_exception, match="Invalid SGD key, nope"):
        popart.SGD({"nope": (0.1, True)})
    adam = popart.Adam({"defaultBeta2": (0.99, True)}, mode=popart.AdamMode.Lamb)
    assert adam.beta2s().getDefault().val() == pytest.approx(0.99)  # not PopART's beta1s bug
    assert popart.Adaptive({}, mode="AdaGrad").learningRates().getDefault().val() == pytest.approx(0.01)
    c = popart.ClipNormSettings.clipAllWeights(1.0)
    popart.SGD({}, clip_norm_settings=[c, popart.ClipNormSettings(["w"], 2.0)])
    assert popart.ConstSGD(0.01).learningRates().getDefault().isConst()


def test_model_to_host_reset_host_weights_round_trip(popart, cpu, in_tmp):
    s, w1 = train_steps(popart, cpu, popart.SGD({"defaultLearningRate": (0.1, True),
                                                  "defaultMomentum": (0.5, True)}), 2)
    s.modelToHost("trained.onnx")
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": np.zeros((2, 1), np.float32)}, a))
    s.resetHostWeights("trained.onnx")
    s.weightsFromHost()
    s.weightsToHost()
    wv = np.zeros(1, np.float32)
    s.readWeights(popart.PyWeightsIO({"w": wv}))
    assert wv[0] == pytest.approx(w1)
    # The file also holds the momentum (Accl___w), read back by a new session's resetHostWeights.
    import onnx
    saved = {t.name: t for t in onnx.load("trained.onnx").graph.initializer}
    assert {"w", popart.reservedAcclPrefix() + "w"} <= saved.keys()
    # As PopART: the Builder's initializers and the added optimizer state are in float_data (scripts
    # read `t.float_data`), and the saved weight is the trained one.
    assert not saved["w"].raw_data and saved["w"].float_data[0] == pytest.approx(w1)
    accl = saved[popart.reservedAcclPrefix() + "w"]
    assert not accl.raw_data and len(accl.float_data) == 1
    b = popart.Builder()
    b.addOutputTensor(b.aiOnnx.relu([b.addInitializedInputTensor(np.zeros(1, np.float32), "nope")]))
    with pytest.raises(popart.popart_exception, match="resetWeights, no tensor 'nope' in tensors"):
        s.resetHostWeights(b.getModelProto())
    s.resetHostWeights(b.getModelProto(), ignoreWeightsInModelWithoutCorrespondingHostWeight=True)
    s.resetHostWeights(s.modelToHostBytes(), True)


def test_write_weights(popart, cpu):
    proto, x, w, loss = sgd_model(popart)
    s = popart.TrainingSession(proto, popart.DataFlow(1, [loss]), loss, popart.ConstSGD(0.1), cpu)
    s.prepareDevice()
    s.writeWeights(popart.PyWeightsIO({w: np.array([3.0], np.float32)}))
    s.weightsFromHost()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: np.zeros(1, np.float32)}, a))
    assert a[loss] == pytest.approx(3.0)
    with pytest.raises(popart.popart_exception, match="read-only"):
        ro = np.zeros(1, np.float32)
        ro.flags.writeable = False
        s.readWeights(popart.PyWeightsIO({w: ro}))


def test_session_options(popart):
    o = popart.SessionOptions()
    assert o.constantWeights is True and o.accumulationFactor == 1
    assert o.virtualGraphMode == popart.VirtualGraphMode.Off
    o.virtualGraphMode = popart.VirtualGraphMode.Manual
    assert o.virtualGraphMode == popart.VirtualGraphMode.Manual
    o.autoRecomputation = popart.RecomputationType.NoRecompute
    o.engineOptions = {"debug.instrument": "true"}
    o.engineOptions["autoReport.all"] = "true"  # persists (PopART's dict wrapper)
    assert o.engineOptions == {"debug.instrument": "true", "autoReport.all": "true"}
    o.executionPhaseSettings.phases = 2
    assert o.executionPhaseSettings.phases == 2
    o.hardwareInstrumentations = {popart.Instrumentation.Inner}
    assert o.hardwareInstrumentations == {popart.Instrumentation.Inner}
    with pytest.raises(AttributeError, match="no option 'notAnOption'"):
        o.notAnOption = 1
    with pytest.raises(AttributeError):
        o.notAnOption
    with pytest.raises(popart.popart_exception, match="accumulationFactor"):
        o.accumulationFactor = "two"
    names = {n for n, *_ in popart.SessionOptions.list()}
    assert {"enableGradientAccumulation", "engineOptions", "executionPhaseSettings.phases"} <= names
    o2 = popart.SessionOptions(enableGradientAccumulation=True, accumulationFactor=4)
    assert o2.getAccumulationFactor() == 4


def test_patterns(popart):
    p = popart.Patterns(popart.PatternsLevel.Minimal)
    assert not p.InPlace
    p = popart.Patterns(["PreUniRepl", "InPlace"])
    assert p.PreUniRepl and p.isPatternEnabled("InPlace")
    p = popart.Patterns()
    p.PreUniRepl = False
    assert not p.isPatternEnabled("PreUniRepl")
    with pytest.raises(popart.popart_exception, match="Unknown pattern"):
        popart.Patterns(["NotAPattern"])
    with pytest.raises(popart.popart_exception, match="mandatory"):
        popart.Patterns().enablePattern("MatMulOp", False)
    assert "PreUniRepl" in popart.Patterns.getAllPatternNames()


def test_devices(popart):
    dm = popart.DeviceManager()
    cpu = dm.createCpuDevice()
    assert cpu.type == popart.DeviceType.Cpu and cpu.isAttached
    ipu = dm.createIpuModelDevice({"numIPUs": 1, "tilesPerIPU": 8, "compileIPUCode": True})
    assert ipu.type == popart.DeviceType.IpuModel and ipu.tilesPerIPU == 8 and ipu.numIpus == 1
    with ipu as d:
        assert d.isAttached
    assert not ipu.isAttached
    with pytest.raises(popart.popart_exception, match="Invalid option `bogus'"):
        dm.createIpuModelDevice({"bogus": 1})
    with pytest.raises(popart.popart_exception, match="power of two"):
        dm.acquireAvailableDevice(3)
    with pytest.raises(popart.popart_exception, match="Failed to acquire device with 1 IPU"):
        dm.acquireAvailableDevice(1)
    with pytest.raises(popart.popart_exception):
        dm.acquireDeviceById(5)
    assert dm.tryAcquireAvailableDevice(1) is None and dm.tryAcquireDeviceById(0) is None
    assert dm.enumerateDevices() == []
    off = dm.createOfflineIPUDevice({"numIPUs": 1, "tilesPerIPU": 4})
    assert off.type == popart.DeviceType.OfflineIpu and not off.canRun
    # The simulator: PopART's default shape (1 IPU x 4 tiles), run by the IPU model.
    sim = dm.createSimDevice({"numIPUs": 2, "tilesPerIPU": 8})
    assert sim.type == popart.DeviceType.Sim and sim.canRun and (sim.numIpus, sim.tilesPerIPU) == (2, 8)
    assert dm.createSimDevice({}).tilesPerIPU == 4
    assert ipu.target["version"] == "ipu2" and ipu.target == popart.ipuTarget("ipu2")
    assert [t["version"] for t in popart.ipuTargetList()][:2] == ["ipu1", "ipu2"]
    # Every field of IpuTargetInfo, as the core's ipuTargetJson writes it (JS's ipuTargets() too:
    # tests/js/ipu_model.test.mjs).
    assert sorted(popart.ipuTargetList()[1]) == [
        "bytesPerTile", "clockHz", "exchangeBytesPerTileCycle", "flopsPerTileCycleFloat", "flopsPerTileCycleFp8",
        "flopsPerTileCycleHalf", "gatewayBytesPerSec", "hostBytesPerSec", "ipuLinkBytesPerSec", "ipuLinksPerIpu",
        "ipusPerChassis", "product", "syncCycles", "tilesPerIpu", "version", "workerContexts"]
    with pytest.raises(popart.popart_exception, match="ipu7"):
        popart.ipuTarget("ipu7")
    with pytest.raises(popart.popart_exception):
        cpu.target


def test_ipu_model_runs_like_cpu(popart):
    proto, x, y, o = add_model(popart)
    dev = popart.DeviceManager().createIpuModelDevice({"tilesPerIPU": 16})
    s = popart.InferenceSession(proto, popart.DataFlow(1, {o: popart.AnchorReturnType("All")}), dev)
    s.prepareDevice()
    a = s.initAnchorArrays()
    xs, ys = rand(2, 3, seed=5), rand(2, 3, seed=6)
    s.run(popart.PyStepIO({x: xs, y: ys}, a))
    np.testing.assert_allclose(a[o], xs + ys, rtol=1e-6)
    assert isinstance(s.getSummaryReport(), str)


def test_logging_levels(popart, capfd):
    proto, x, y, o = add_model(popart)
    logger = popart.getLogger()
    try:
        logger.setLevel("WARN")
        assert popart._popart._getLogLevel("session") == "WARN"
        popart.InferenceSession(proto, popart.DataFlow(1, [o]))  # no device: a CPU device and a warning
        assert "InferenceSession(fnModel, dataFlow)" in capfd.readouterr().err
        logger.setLevel("OFF")
        popart.InferenceSession(proto, popart.DataFlow(1, [o]))
        assert capfd.readouterr().err == ""
        popart.getLogger("session").setLevel("DEBUG")
        assert popart._popart._getLogLevel("session") == "DEBUG"
        assert popart._popart._getLogLevel("ir") == "OFF"
        with pytest.raises(popart.popart_exception):
            logger.setLevel("LOUD")
    finally:
        logger.setLevel("OFF")


def test_builder_traces_each_op_added(popart, capfd):
    """PopART's TRACE line per op the Builder adds, which scripts look for; nothing when OFF."""
    def add_abs(level):
        popart.getLogger().setLevel(level)
        b = popart.Builder()
        b.aiOnnx.abs([b.addInputTensor(popart.TensorInfo("FLOAT", [1, 2, 3]))])
        return capfd.readouterr().err

    try:
        assert "Adding ai.onnx.Abs" in add_abs("TRACE")
        assert add_abs("OFF") == ""
        assert "Adding ai.onnx.Abs" not in add_abs("DEBUG")
        assert "Adding ai.onnx.Abs" in add_abs("TRACE")
    finally:
        popart.getLogger().setLevel("OFF")


def test_reserved_prefixes_and_exceptions(popart):
    assert popart.reservedGradientPrefix() == "Gradient___"
    assert popart.reservedAccumPrefix() == "Accum___" and popart.reservedStepPrefix() == "Step___"
    assert issubclass(popart.OutOfMemoryException, popart.popart_exception)
    assert issubclass(popart.popart_exception, RuntimeError)
    assert popart.error is popart.popart_exception
    # The classes are the core's list (the JS module makes the same ones), bases first.
    classes = popart._popart._errorClasses()
    assert [n for n, _, _ in classes] == [
        "popart_exception", "popart_internal_exception", "popart_runtime_error", "OutOfMemoryException",
        "poplar_exception", "poplar_runtime_error", "poplibs_exception"]
    for name, base, doc in classes:
        cls = getattr(popart, name)
        assert cls.__bases__ == (getattr(popart, base) if base else RuntimeError,) and cls.__doc__ == doc
    assert not issubclass(popart.poplibs_exception, popart.popart_exception)


def test_out_of_memory_exception(popart, cpu):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [1024, 1024], "x")
    o = b.aiOnnx.relu([x])
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(64, {o: popart.AnchorReturnType("All")}), cpu)
    old = popart.getMemoryLimit()
    popart.setMemoryLimit(64 << 20)
    try:
        with pytest.raises(popart.OutOfMemoryException) as e:
            s.initAnchorArrays()
        assert "Add:0" in str(e.value) or o in str(e.value)
        assert e.value.getSummaryReport() == e.value.args[0]
    finally:
        popart.setMemoryLimit(old)


def test_gil_is_released_while_the_core_runs(popart, cpu):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [256, 256], "x")
    h = x
    for _ in range(8):
        h = b.aiOnnx.matmul([h, x])
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(40, {h: popart.AnchorReturnType("Final")}), cpu)
    s.prepareDevice()
    a = s.initAnchorArrays()
    io = popart.PyStepIO({x: rand(40, 256, 256) * 0.01}, a)
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    t0 = time.time()
    before = len(ticks)
    s.run(io)
    elapsed = time.time() - t0
    during = len(ticks) - before
    done.set()
    t.join()
    if elapsed > 0.05:  # the other thread ran while the session did
        assert during >= 5, (elapsed, during)


def test_overlapping_calls_are_an_error(popart, cpu):
    proto, x, y, o = add_model(popart)
    s = popart.InferenceSession(proto, popart.DataFlow(1, {o: popart.AnchorReturnType("All")}), cpu)
    s.prepareDevice()
    out = np.zeros((2, 3), np.float32)
    plain = popart.PyStepIO({x: rand(2, 3), y: rand(2, 3)}, s.initAnchorArrays())

    def reenter(tid, prefetch):
        s.run(plain)  # back into the session while it runs

    cb = popart.PyStepIOCallback(reenter, lambda t: None, lambda t: out, lambda t: None)
    with pytest.raises(popart.popart_exception, match="already busy"):
        s.run(cb)
    s.run(plain)  # released after the error

    # Many threads on one session: each call runs whole or is refused, never a crash.
    errors, done = [], []

    def worker():
        for _ in range(50):
            try:
                s.run(plain)
                done.append(1)
            except popart.popart_exception as e:
                assert "already busy" in str(e)
                errors.append(1)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(done) + len(errors) == 200 and done


def test_patterns_and_options_reach_the_session(popart, cpu):
    proto, x, y, o = add_model(popart)
    df = popart.DataFlow(1, [o])
    with pytest.raises(popart.popart_exception, match="must be enabled"):
        popart.InferenceSession(proto, df, cpu, patterns=popart.Patterns(["PreUniRepl"]))
    p = popart.Patterns(["PreUniRepl"]).enableRuntimeAsserts(False)
    popart.InferenceSession(proto, df, cpu, patterns=p).prepareDevice()
    popart.InferenceSession(proto, df, cpu, patterns=popart.Patterns(popart.PatternsLevel.NoPatterns),
                            userOptions=popart.SessionOptions(constantWeights=False), name="mine")
    opts = popart.SessionOptions()
    opts.enableGradientAccumulation = False
    opts.accumulationFactor = 4
    b = popart.Builder()
    xi = b.addInputTensor("FLOAT", [2], "xi")
    w = b.addInitializedInputTensor(np.ones(2, np.float32))
    loss = b.aiGraphcore.l1loss([b.aiOnnx.mul([xi, w])], 0.1)
    with pytest.raises(popart.popart_exception, match="enableGradientAccumulation is false, but accumulationFactor > 1"):
        popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, popart.ConstSGD(0.1), cpu,
                               userOptions=opts)
