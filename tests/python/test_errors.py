"""PopART's exception type and message for the same mistakes, as PopART scripts check them
(`e.value.args[0].startswith(...)` or `in`): PopART's sentence first, then this runtime's context
(the node, its inputs and shapes; in `fullMessage` when shape inference added it). Conv and
pooling parameters, LSTM / GRU / RNN attributes, pipelining depth, automatic loss scaling options,
an input whose declared dims overflow."""
import pytest


def cpu(popart):
    return popart.DeviceManager().createCpuDevice()


def two_ipus(popart):
    return popart.DeviceManager().createIpuModelDevice({"numIPUs": 2, "tilesPerIPU": 4})


def node_error(popart, op, shapes, attrs):
    """The popart_exception of a session on one ai.onnx opset-11 node named "n"."""
    b = popart.Builder(opsets={"ai.onnx": 11, "ai.graphcore": 1})
    ins = [b.addInputTensor("FLOAT", s, "in%d" % i) for i, s in enumerate(shapes)]
    out = op(b.aiOnnxOpset11, ins, attrs)
    b.addOutputTensor(out)
    with pytest.raises(popart.popart_exception) as e:
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [out]), cpu(popart))
    return full_message(e.value)


def full_message(e):
    """The whole text: args[0] is the error's own (PopART's) sentence, and the context the runtime
    added while inferring shapes (the node, its inputs) follows it in fullMessage."""
    full = getattr(e, "fullMessage", e.args[0])
    assert full.startswith(e.args[0]), (full, e.args[0])
    assert str(e) == e.args[0]
    return full


def conv(ai, ins, attrs):
    return ai.conv(ins, debugContext="n", **attrs)


@pytest.mark.parametrize("attrs, start, more", [
    ({"group": 0}, "group attribute in n must be greater than zero", "node 'n' (Conv, opset 11"),
    ({"group": 1}, "Invalid value for group (1) in n. number of input channels (4) / group (1) should be equal to "
     "the weight inputs second dimension (2)", "input 'in0' FLOAT [1 4 5 5]"),
    ({"group": 2, "strides": [1, 1, 1]}, "Unexpected number of stride parameters for convolution op 'n'",
     "strides [1 1 1] must have 2 entries"),
    ({"group": 2, "pads": [1, 1]}, "Unexpected number of pad parameters for convolution op 'n'", "pads [1 1]"),
    ({"group": 2, "dilations": [2]}, "Unexpected number of dilation parameters for convolution op 'n'",
     "input 'in1' FLOAT [6 2 3 3]"),
])
def test_conv_parameters(popart, attrs, start, more):
    """The session's checks (customOp: PopART's typed conv checks the window parameters first)."""
    def custom(ai, ins, a):
        return ai._builder.customOp("Conv", 11, "ai.onnx", ins, a, 1, "n")[0]
    msg = node_error(popart, custom, [[1, 4, 5, 5], [6, 2, 3, 3]], attrs)
    assert msg.startswith(start), msg
    assert more in msg


@pytest.mark.parametrize("attrs, message", [
    ({"strides": [1, 1, 1]}, "Length of strides vector 3 != number of spatial dimensions 2"),
    ({"pads": [1, 1]}, "Padding vector (length 2) does not have 2 values for each spatial dimension 2"),
    ({"dilations": [2]}, "Length of dilations vector 1 != number of spatial dimensions 2"),
])
def test_conv_window_parameters_at_build_time(popart, attrs, message):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [1, 4, 5, 5])
    w = b.addInputTensor("FLOAT", [6, 2, 3, 3])
    with pytest.raises(popart.popart_exception) as e:
        b.aiOnnxOpset11.conv([x, w], group=2, **attrs)
    assert e.value.args[0] == message


@pytest.mark.parametrize("pool", ["maxpool", "averagepool"])
def test_pooling_kernel_shape_rank(popart, pool):
    def op(ai, ins, attrs):
        r = getattr(ai, pool)(ins, kernel_shape=[2], debugContext="n", **({"num_outputs": 1} if pool == "maxpool"
                                                                            else {}))
        return r[0] if isinstance(r, list) else r
    msg = node_error(popart, op, [[1, 2, 6, 6]], {})
    assert msg.startswith("invalid kernel_shape, not same rank as the tensor operated on"), msg
    assert "kernel_shape [2] must have 2 entries" in msg and "node 'n'" in msg


def test_lstm_hidden_size(popart):
    msg = node_error(popart, lambda ai, ins, a: ai.lstm(ins, 3, hidden_size=6, debugContext="n")[0],
                     [[2, 3, 4], [1, 20, 4], [1, 20, 5]], {})
    assert msg.startswith("LSTMOp hidden_size attribute, 6, does not match calculated hidden size, 5."), msg
    assert "node 'n' (LSTM" in msg


@pytest.mark.parametrize("cell, gates", [("gru", 3), ("rnn", 1)])
def test_gru_rnn_hidden_size(popart, cell, gates):
    msg = node_error(popart, lambda ai, ins, a: getattr(ai, cell)(ins, 2, hidden_size=7, debugContext="n")[0],
                     [[2, 3, 4], [1, 5 * gates, 4], [1, 5 * gates, 5]], {})
    # PopART names the op by its debugName(): "Op(n (ai.onnx.GRU:11), inputs=[...], outputs=[...])".
    assert msg.startswith(f"hidden_size attribute passed to Op(n (ai.onnx.{cell.upper()}:"), msg
    assert ") (7) does not match hidden size calculated from recurrenceWeights tensor (5)." in msg, msg


def two_stage(popart, stages=True):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [4])
    with b.virtualGraph(0):
        if stages:
            with b.pipelineStage(0):
                s = b.aiOnnx.sin([x])
        else:
            s = b.aiOnnx.sin([x])
    with b.virtualGraph(1):
        if stages:
            with b.pipelineStage(1):
                y = b.aiOnnx.exp([s])
        else:
            y = b.aiOnnx.exp([s])
    b.addOutputTensor(y)
    return b.getModelProto(), y


def pipelined(popart, mode=None):
    o = popart.SessionOptions()
    o.enablePipelining = True
    o.virtualGraphMode = popart.VirtualGraphMode.Manual if mode is None else mode
    return o


def test_pipelining_needs_virtual_graphs(popart):
    proto, y = two_stage(popart)
    with pytest.raises(popart.popart_exception) as e:
        popart.InferenceSession(proto, popart.DataFlow(4, [y]), two_ipus(popart),
                                userOptions=pipelined(popart, popart.VirtualGraphMode.Off))
    assert e.value.args[0].startswith("Pipelining requires more than")


@pytest.mark.parametrize("vgraphs,stages,start", [
    ([0, 0, 1], [0, 1, 1], "Ops [Exp 'e1_1' Exp 'e2_2'] have the same pipeline stage 1, but different virtual graph ids"),
    ([0, 1, 1], [0, None, 1], "Only some ops have had their pipeline stage set. Ops missing the pipeline stage:\n"),
])
def test_pipeline_stage_errors(popart, vgraphs, stages, start):
    """PopART's pipeline-stage checks (before the depth check: batchesPerStep 1 would fail it)."""
    b = popart.Builder()
    t = b.addInputTensor("FLOAT", [4])
    for i, (vg, ps) in enumerate(zip(vgraphs, stages)):
        t = b.aiOnnx.exp([t], "e%d" % i)
        b.virtualGraph(t, vg)
        if ps is not None:
            b.pipelineStage(t, ps)
    with pytest.raises(popart.popart_exception) as e:
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [t]), two_ipus(popart),
                                userOptions=pipelined(popart))
    assert e.value.args[0].startswith(start)


@pytest.mark.parametrize("stages", [True, False])
def test_pipelining_batches_per_step_too_small(popart, stages):
    proto, y = two_stage(popart, stages)
    with pytest.raises(popart.popart_exception) as e:
        popart.InferenceSession(proto, popart.DataFlow(1, [y]), two_ipus(popart), userOptions=pipelined(popart))
    assert e.value.args[0].startswith(
        "For pipelining, depth (batchesPerStep) must equal at least the number of pipeline stages (2)")
    popart.InferenceSession(proto, popart.DataFlow(2, [y]), two_ipus(popart), userOptions=pipelined(popart))


def train_model(popart):
    import numpy as np
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [4])
    w = b.addInitializedInputTensor(np.ones(4, np.float32))
    with b.virtualGraph(0), b.pipelineStage(0):
        p = b.aiOnnx.mul([b.aiOnnx.sin([x]), w])
    with b.virtualGraph(1), b.pipelineStage(1):
        loss = b.aiGraphcore.identityloss([p], reduction=popart.ReductionType.Sum)
    return b.getModelProto(), loss


def test_pipelining_training_depth(popart):
    proto, loss = train_model(popart)
    with pytest.raises(popart.popart_exception) as e:
        popart.TrainingSession(proto, popart.DataFlow(2, [loss]), loss, popart.ConstSGD(0.1), two_ipus(popart),
                               userOptions=pipelined(popart))
    assert e.value.args[0].startswith(
        "For pipelining, depth (batchesPerStep) must equal at least the number of pipeline stages (3)")
    o = pipelined(popart)
    o.enableGradientAccumulation = True
    o.accumulationFactor = 2
    with pytest.raises(popart.popart_exception) as e:
        popart.TrainingSession(proto, popart.DataFlow(8, [loss]), loss, popart.ConstSGD(0.1), two_ipus(popart),
                               userOptions=o)
    assert e.value.args[0].startswith("For pipelining, depth (gradient accumulation factor)")


@pytest.mark.parametrize("mode,message", [
    ("no pipelining", "without implicit pipelining."),
    ("explicit", "with explicit pipelining."),
    ("no accumulation", "without gradient accumulation."),
])
def test_implicit_pipelining_fwd_only_program_settings(popart, mode, message):
    proto, loss = train_model(popart)
    o = pipelined(popart)
    o.enablePipelining = mode != "no pipelining"
    o.createImplicitPipeliningFwdOnlyProgram = True
    if mode == "explicit":
        o.enableExplicitIR(True)
    if mode != "no accumulation":
        o.enableGradientAccumulation = True
        o.accumulationFactor = 4
    with pytest.raises(popart.popart_exception) as e:
        popart.TrainingSession(proto, popart.DataFlow(8, [loss]), loss, popart.ConstSGD(0.1), two_ipus(popart),
                               userOptions=o)
    assert e.value.args[0] == "Implicit pipelining forward-only program is not supported " + message
    o.enableExplicitIR(False)
    o.enablePipelining = o.enableGradientAccumulation = True
    o.accumulationFactor = 4
    popart.TrainingSession(proto, popart.DataFlow(8, [loss]), loss, popart.ConstSGD(0.1), two_ipus(popart),
                           userOptions=o)  # accepted (no effect here)


def test_automatic_loss_scaling_options(popart):
    proto, loss = train_model(popart)
    o = popart.SessionOptions()
    o.automaticLossScalingSettings.enabled = True
    with pytest.raises(popart.popart_exception) as e:
        popart.InferenceSession(proto, popart.DataFlow(1, [loss]), cpu(popart), userOptions=o)
    assert e.value.args[0] == "[AutomaticLossScale transform] Only compatible when doing training"
    with pytest.raises(popart.popart_exception) as e:
        popart.TrainingSession(proto, popart.DataFlow(1, [loss]), loss, popart.ConstSGD(0.1, 0.0, 8.0),
                               cpu(popart), userOptions=o)
    assert e.value.args[0].startswith("[AutomaticLossScale transform] The optimizer must have non-const loss scaling")
    sgd = popart.SGD({"defaultLearningRate": (0.1, True), "lossScaling": (8.0, False)})
    o.automaticLossScalingSettings.binEdgeLocation = 1.5
    with pytest.raises(popart.popart_exception) as e:
        popart.TrainingSession(proto, popart.DataFlow(1, [loss]), loss, sgd, cpu(popart), userOptions=o)
    assert e.value.args[0] == ("[AutomaticLossScale transform] Out of range value for 'binEdgeLocation'. The current "
                               "value is 1.5, but it should be in the range [0, 1].")
    with pytest.raises(popart.popart_exception, match="Loss scaling cannot be 0"):
        popart.SGD({"lossScaling": (0.0, True)})


def test_overflowing_input_dims_name_the_input(popart):
    b = popart.Builder()
    with pytest.raises(popart.popart_exception) as e:
        b.addInputTensor("FLOAT", [2 ** 32, 2 ** 32], "big")
    msg = e.value.args[0]
    assert msg.startswith("Invalid shape [4294967296 4294967296]"), msg
    assert "the input 'big' declared FLOAT" in msg


def test_poplars_errors_are_poplar_exceptions(popart):
    """PopART passes these on from Poplar: scripts catch popart.poplar_exception and match the
    end of the message."""
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2])
    o = b.aiOnnx.relu([x])
    b.addOutputTensor(o)
    opts = popart.SessionOptions()
    opts.engineOptions = {"option": "value"}
    with pytest.raises(popart.poplar_exception) as e:
        s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [o]), cpu(popart), userOptions=opts)
        s.prepareDevice()
    assert e.value.args[0].endswith("Unrecognised option 'option'")
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [o]), cpu(popart))
    s.prepareDevice()
    for report in (s.getSummaryReport, s.getGraphReport):
        with pytest.raises(popart.poplar_exception) as e:
            report()
        assert e.value.args[0].endswith("Profiling is disabled for current device type.")


def test_an_unknown_dim_param_names_the_value(popart):
    import onnx
    from onnx import helper, TensorProto
    for dims, unknown, text in ((["fubar", 2, 3], "fubar", "[fubar, 2, 3]"), ([-1, 2, 3], "-1", "[-1, 2, 3]")):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
        # The IPU model's rule (PopART's): the CPU device plans such inputs at run time instead
        # (test_runtime_shapes.py).
        ipu = popart.DeviceManager().createIpuModelDevice({"numIPUs": 1})
        with pytest.raises(popart.popart_exception) as e:
            popart.InferenceSession(m.SerializeToString(), popart.DataFlow(1, ["y"]), ipu)
        assert e.value.args[0] == (
            "Input tensor 'x' must be specified in InputShapeInfo, as it has shape %s, which uses an unknown "
            "value '%s'." % (text, unknown))


def test_a_sparse_constant_is_refused_with_popart_message(popart):
    from onnx import helper, TensorProto
    values = helper.make_tensor("v", TensorProto.FLOAT, [2], [1.0, 2.0])
    indices = helper.make_tensor("i", TensorProto.INT64, [2], [0, 3])
    node = helper.make_node("Constant", [], ["c"], sparse_value=helper.make_sparse_tensor(values, indices, [4]))
    out = helper.make_tensor_value_info("o", TensorProto.FLOAT, [4])
    g = helper.make_graph([node, helper.make_node("Identity", ["c"], ["o"])], "g", [], [out])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
    with pytest.raises(popart.popart_exception) as e:
        popart.InferenceSession(m.SerializeToString(), popart.DataFlow(1, ["o"]), cpu(popart))
    assert e.value.args[0] == "The Constant op attribute 'sparse_value' is not supported."


def test_exclude_patterns_names_an_unknown_pattern(popart):
    b = popart.Builder()
    x = b.aiOnnx.identity([b.addInputTensor("FLOAT", [2])])
    with pytest.raises(popart.popart_exception) as e:
        b.excludePatterns(x, ["ThisPatternDoesNotExist"])
    assert e.value.args[0].startswith("Invalid pattern name 'ThisPatternDoesNotExist'")


def test_auto_and_manual_recomputation_together_are_refused(popart):
    b = popart.Builder()
    i1 = b.addInputTensor(popart.TensorInfo("FLOAT", [1]))
    r1 = b.aiOnnx.relu([i1])
    o = b.aiOnnx.relu([r1])
    b.recomputeOutputInBackwardPass(r1)
    opts = popart.SessionOptions()
    opts.autoRecomputation = popart.RecomputationType.Standard
    with pytest.raises(popart.popart_exception) as e:
        popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, [o]),
                               optimizer=popart.ConstSGD(0.001), loss=o, userOptions=opts,
                               deviceInfo=cpu(popart))
    assert e.value.args[0] == "A mixture of auto and manual recomputaion is not supported"


def test_manual_placement_must_place_every_op_or_none(popart):
    b = popart.Builder()
    i1, i2 = (b.addInputTensor(popart.TensorInfo("FLOAT", [1])) for _ in range(2))
    o1, o2 = b.aiOnnx.add([i1, i2]), b.aiOnnx.add([i1, i2])
    o = b.aiOnnx.add([o1, o2])
    b.addOutputTensor(o)
    b.virtualGraph(o1, 0)
    b.virtualGraph(o2, 1)
    opts = popart.SessionOptions()
    opts.virtualGraphMode = popart.VirtualGraphMode.Manual
    with pytest.raises(popart.popart_exception) as e:
        popart.InferenceSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, [o]), userOptions=opts,
                                deviceInfo=two_ipus(popart))
    msg = e.value.args[0]
    assert msg.startswith("Either all Ops in the main graph must have their virtual graph ids set, or none must.")
    assert "  -1 : 1\n  0 : 1\n  1 : 1\n" in msg


# ------------------------------------------------------------------ ONNX features PopART refuses
# At the ai.onnx opsets PopART imports (up to 11) its refusals apply; later opsets follow ONNX.

def inference_error(popart, b, out):
    b.addOutputTensor(out)
    with pytest.raises(popart.popart_exception) as e:
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [out]), cpu(popart))
    return e.value


# PopART refuses some ONNX features at its opsets that this runtime computes as ONNX specifies
# (docs/python-api.md): seeds, DOUBLE random values, Clip bounds that are inputs, MaxPool
# dilations, count_include_pad, other recurrent directions / clip / activations. They run here.


def test_random_like_of_an_integer_needs_a_dtype(popart):
    b = popart.Builder()
    e = inference_error(popart, b, b.aiOnnx.randomnormallike([b.addInputTensor("INT32", [5], "i")]))
    assert e.args[0].startswith("ai.onnx.RandomNormalLike:10 : Unsupported data type requested: INT32"), e.args[0]
    assert "input 'i' INT32 [5]" in full_message(e)


def test_random_seed_repeats_the_values(popart):
    import numpy as np
    outs = []
    for _ in range(2):
        b = popart.Builder()
        o = b.aiOnnx.randomnormal(shape=[6], seed=7.0)
        b.addOutputTensor(o)
        s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [o]), cpu(popart))
        s.prepareDevice()
        a = s.initAnchorArrays()
        s.run(popart.PyStepIO({}, a))
        outs.append(np.copy(a[o]))
    assert np.array_equal(outs[0], outs[1])


def batchnorm_error(popart, shapes, opset=11, **attrs):
    """The popart_exception of a training session on one BatchNormalization (one output)."""
    b = popart.Builder(opsets={"ai.onnx": opset, "ai.onnx.ml": 1, "ai.graphcore": 1})
    ins = [b.addInputTensor("FLOAT", s) for s in shapes]
    (y,) = b.aiOnnx.batchnormalization(ins, 1, 1e-5, 0.1, **attrs)
    loss = b.aiGraphcore.identityloss([y])
    with pytest.raises(popart.popart_exception) as e:
        popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, popart.ConstSGD(0.1),
                               cpu(popart))
    return e.value.args[0]


@pytest.mark.parametrize("bad, name", [(1, "scale"), (2, "B"), (3, "mean"), (4, "var")])
def test_batchnorm_parameter_shapes(popart, bad, name):
    shapes = [[2, 2, 2, 2], [2], [2], [2], [2]]
    shapes[bad] = [1]
    msg = batchnorm_error(popart, shapes)
    assert msg.startswith("expected shape of batch norm input tensor %s ([1]) to be [2]" % name), msg


def test_batchnorm_spatial_zero_shapes(popart):
    shapes = [[2, 2, 2, 2], [2, 2, 2], [2, 2, 2], [2, 2, 2], [2, 2, 4]]
    msg = batchnorm_error(popart, shapes, opset=7, spatial=0)
    assert msg.startswith("expected shape of batch norm input tensor var ([2 2 4]) to be [2 2 2]"), msg


def recurrent_error(popart, cell, attr, value):
    """The popart_exception message of an inference session on one ai.onnx `cell` node whose
    attribute `attr` is set after the Builder call (addNodeAttribute)."""
    gates = {"rnn": 1, "gru": 3, "lstm": 4}[cell]
    b = popart.Builder()
    ins = [b.addInputTensor("FLOAT", s) for s in ([1, 1, 1], [1, gates, 1], [1, gates, 1])]
    outs = getattr(b.aiOnnx, cell)(ins, 1)
    b.addNodeAttribute(attr, value, set(outs))
    return inference_error(popart, b, outs[0]).args[0]


def test_recurrent_activation_counts(popart):
    assert "only supports 1 activation, 2 were specified" in recurrent_error(popart, "rnn", "activations",
                                                                            ["Tanh", "Tanh"])
    msg = recurrent_error(popart, "lstm", "activations", ["Tanh"] * 4)
    assert msg.startswith("Too many activations (4) specified. Number of activations should be 1 or 3."), msg
