"""Automatic loss scaling (SessionOptions.automaticLossScalingSettings) against a NumPy reference of
PopART's documented rule: after each update step the loss scale is halved when the tracked FLOAT16
gradients' upper-bin count (|g| >= binEdgeLocation * 65504) exceeds thresholdUpperCountProportion
of all counts, else doubled; gradient accumulation sums the counts of a step's micro-batches;
updatePeriod P updates on steps 0, P, 2P, ...; the weights are those of training without loss
scaling. Anchors use PopART's names (finalLossScale, summedCastedHistograms, Gradient___W)."""
import numpy as np
import pytest

F16_MAX = 65504.0
LR = 0.03125


def model(popart, dtype="FLOAT16", rows=4):
    """loss = sum((x . W)^2): x [rows, 3] input, W [3, 2] weight."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo(dtype, [rows, 3]), "x")
    w0 = np.random.default_rng(1).uniform(-1, 1, (3, 2)).astype(np.float16 if dtype == "FLOAT16" else np.float32)
    w = b.addInitializedInputTensor(w0, "W")
    y = b.aiOnnx.matmul([x, w])
    loss = b.aiGraphcore.identityloss([b.aiOnnx.mul([y, y])], reduction=popart.ReductionType.Sum)
    return b.getModelProto(), x, w, loss, w0


def als_options(popart, bin_edge, threshold, period=1, af=1):
    o = popart.SessionOptions()
    s = o.automaticLossScalingSettings
    s.enabled = True
    s.binEdgeLocation = bin_edge
    s.thresholdUpperCountProportion = threshold
    s.updatePeriod = period
    s.gradientTensorTrackingMethod = popart.GradientTensorTrackingMethod.GradientsOfUserSpecifiedTensors
    s.toTrackTensors = ["W"]
    if af > 1:
        o.enableGradientAccumulation = True
        o.accumulationFactor = af
    return o


def sgd(popart, ls, ls_const=False):
    return popart.SGD({"defaultLearningRate": (LR, True), "lossScaling": (ls, ls_const)})


def inputs(steps, af, rows=4):
    return np.random.default_rng(7).uniform(-1, 1, (steps, af, rows, 3)).astype(np.float16)


def reference_schedule(grads, ls, bin_edge, threshold, period):
    """The loss scale of each step, from the tracked gradients of each step's micro-batches
    ([steps, af, ...], as the session scaled them) under PopART's rule."""
    edge = np.float32(F16_MAX) * np.float32(bin_edge)
    f = np.float32(threshold) / (np.float32(1) - np.float32(threshold))
    factor, scales, counts = 1.0, [], []
    for s, step in enumerate(grads):
        scales.append(ls * factor)
        a = np.abs(step.astype(np.float32))
        upper = float(np.sum(a >= edge))
        lower = float(a.size) - upper
        counts.append((lower, upper))
        if s % period == 0:
            factor *= 0.5 if np.float32(upper) > np.float32(lower) * f else 2.0
            factor = min(factor, 32768.0 / ls)  # FLOAT16 loss scale: finalLossScale <= 2^15
    return np.array(scales), counts


@pytest.mark.parametrize("period,af", [(1, 1), (2, 1), (1, 3), (2, 2)])
def test_schedule_stats_and_weights_follow_the_reference(popart, cpu, period, af):
    steps, ls, bin_edge, threshold = 8, 512.0, 0.02, 0.25
    proto, x, w, loss, w0 = model(popart)
    anchors = {"finalLossScale": popart.AnchorReturnType("All"),
               "summedCastedHistograms": popart.AnchorReturnType("All"),
               "Gradient___W": popart.AnchorReturnType("All")}
    s = popart.TrainingSession(proto, popart.DataFlow(1, anchors), loss, sgd(popart, ls), cpu,
                               userOptions=als_options(popart, bin_edge, threshold, period, af))
    s.prepareDevice()
    s.weightsFromHost()
    xs = inputs(steps, af)
    scales, stats, grads = [], [], []
    for k in range(steps):
        a = s.initAnchorArrays()
        s.run(popart.PyStepIO({x: xs[k] if af > 1 else xs[k, 0]}, a))
        scales.append(np.ravel(a["finalLossScale"]))
        stats.append(np.reshape(a["summedCastedHistograms"], (af, 2)))
        grads.append(np.reshape(a["Gradient___W"], (af, 3, 2)))
    scales = np.array(scales)
    # One loss scale per step, the same for all its micro-batches.
    assert np.all(scales == scales[:, :1])
    # The statistics are the histograms of the tracked gradient, per micro-batch, on the steps that
    # update the scale (zeros on the others, as PopART skips the histograms there).
    edge = np.float32(F16_MAX) * np.float32(bin_edge)
    for k, (st, g) in enumerate(zip(stats, grads)):
        upper = np.sum(np.abs(g.astype(np.float32)) >= edge, axis=(1, 2))
        counted = np.stack([6 - upper, upper], axis=1)
        np.testing.assert_array_equal(st, counted if k % period == 0 else np.zeros_like(counted))
    expected, counts = reference_schedule(np.array(grads), ls, bin_edge, threshold, period)
    np.testing.assert_array_equal(scales[:, 0], expected)
    # The run crosses the bin edge both ways: the scale went up and down.
    moves = np.diff(expected)
    assert np.any(moves > 0) and np.any(moves < 0), expected

    # The weights: SGD on the unscaled gradients (NumPy, double; the session computes in FLOAT16).
    ref = w0.astype(np.float64)
    for k in range(steps):
        g = np.zeros_like(ref)
        for m in range(af):
            xm = xs[k, m].astype(np.float64)
            g += xm.T @ (2.0 * (xm @ ref))
        ref = ref - LR * g
    wv = np.zeros((3, 2), np.float16)
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO({w: wv}))
    np.testing.assert_allclose(wv.astype(np.float64), ref, rtol=2e-2, atol=2e-2)

    # Bit for bit those of the same schedule applied by hand (updateOptimizerFromHost, no ALS).
    o = popart.SessionOptions()
    if af > 1:
        o.enableGradientAccumulation = True
        o.accumulationFactor = af
    h = popart.TrainingSession(proto, popart.DataFlow(1, {}), loss, sgd(popart, ls), cpu, userOptions=o)
    h.prepareDevice()
    h.weightsFromHost()
    for k in range(steps):
        h.updateOptimizerFromHost(sgd(popart, float(expected[k])))
        h.run(popart.PyStepIO({x: xs[k] if af > 1 else xs[k, 0]}, h.initAnchorArrays()))
    hv = np.zeros((3, 2), np.float16)
    h.weightsToHost()
    h.readWeights(popart.PyWeightsIO({w: hv}))
    np.testing.assert_array_equal(wv, hv)

    # The factor is session state, readable as a weight (PopART keeps it in the model proto).
    factor = np.zeros(1, np.float16)
    s.readWeights(popart.PyWeightsIO({"lossScaleUpdateFactor": factor}))
    last = expected[-1] / ls
    if (steps - 1) % period == 0:
        lower, upper = counts[-1]
        last *= 0.5 if upper > lower * threshold / (1 - threshold) else 2.0
    assert float(factor[0]) == min(last, 32768.0 / ls)


def test_doubles_then_clips_at_2_to_the_15(popart, cpu):
    proto, x, w, loss, _ = model(popart)
    o = als_options(popart, 1.0, 1e-7)
    s = popart.TrainingSession(proto, popart.DataFlow(20, ["finalLossScale"]), loss, sgd(popart, 2.0), cpu,
                               userOptions=o)
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: np.full((20, 4, 3), 1e-3, np.float16)}, a))
    np.testing.assert_array_equal(a["finalLossScale"], [2.0 * 2 ** k for k in range(15)] + [32768.0] * 5)


def test_errors(popart, cpu):
    proto, x, w, loss, _ = model(popart)

    def session(opts, optimizer=None, p=proto):
        popart.TrainingSession(p, popart.DataFlow(1, [loss]), loss, optimizer or sgd(popart, 8.0), cpu,
                               userOptions=opts)

    o = als_options(popart, 0.5, 1.5)
    with pytest.raises(popart.popart_exception) as e:
        session(o)
    assert e.value.args[0] == ("Out of range value for 'thresholdUpperCountProportion'. The current value is 1.5, "
                               "but it should be in the range [0, 1].")
    o = als_options(popart, 0.5, 0.2)
    with pytest.raises(popart.popart_exception) as e:
        session(o, popart.SGD({"lossScaling": (8.0, True)}))
    assert e.value.args[0] == "[AutomaticLossScale transform] The optimizer must have non-const loss scaling"
    assert "(its lossScaling 8 is const)" in e.value.fullMessage
    o.automaticLossScalingSettings.gradientTensorTrackingMethod = \
        popart.GradientTensorTrackingMethod.AllNonViewChangingGradientTensors
    with pytest.raises(popart.popart_exception) as e:
        session(o)
    assert e.value.args[0].startswith("[AutomaticLossScale transform] toTrackTensors has been set, but "
                                      "gradientTensorTrackingMethod has not been set")
    o.automaticLossScalingSettings.toTrackTensors = []
    p32, _, _, loss32, _ = model(popart, "FLOAT")
    with pytest.raises(popart.popart_exception) as e:
        popart.TrainingSession(p32, popart.DataFlow(1, [loss32]), loss32, sgd(popart, 8.0), cpu, userOptions=o)
    assert e.value.args[0] == "[AutomaticLossScale transform] No tracked gradient tensors of type fp16 were found."
    # No weight at all: the same error (PopART's transform still looks for gradients to track).
    b = popart.Builder()
    loss = b.aiGraphcore.identityloss([b.aiOnnx.relu([b.addInputTensor("FLOAT", [2, 2])])])
    plain = popart.SessionOptions()
    plain.automaticLossScalingSettings.enabled = True
    with pytest.raises(popart.popart_exception) as e:
        popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, sgd(popart, 2.0), cpu,
                               userOptions=plain)
    assert e.value.args[0] == "[AutomaticLossScale transform] No tracked gradient tensors of type fp16 were found."
    o = als_options(popart, 0.5, 0.2)
    o.automaticLossScalingSettings.toTrackTensors = ["W", "missing"]
    with pytest.raises(popart.popart_exception) as e:
        session(o)
    assert e.value.args[0].startswith("[PreAutomaticLossScale] Some of the tensors in the "
                                      "'automaticLossScalingSettings.toTrackTensors' list do not exist in the model.")
    assert "'missing'" in e.value.args[0]


def test_checkpoint_continues_the_schedule(popart, cpu, tmp_path):
    """modelToHost keeps the factor and the period counter (PopART's model proto does): a session
    made from the saved model continues where the first stopped."""
    proto, x, w, loss, _ = model(popart)
    xs = inputs(6, 1)
    opts = als_options(popart, 0.02, 0.25, period=2)

    def session(p):
        s = popart.TrainingSession(p, popart.DataFlow(1, ["finalLossScale"]), loss, sgd(popart, 512.0), cpu,
                                   userOptions=opts)
        s.prepareDevice()
        s.weightsFromHost()
        return s

    def steps(s, ks):
        out = []
        for k in ks:
            a = s.initAnchorArrays()
            s.run(popart.PyStepIO({x: xs[k, 0]}, a))
            out.append(float(a["finalLossScale"]))
        return out

    whole = session(proto)
    expected = steps(whole, range(6))
    first = session(proto)
    got = steps(first, range(3))
    path = str(tmp_path / "als.onnx")
    first.modelToHost(path)
    import onnx
    saved = {t.name for t in onnx.load(path).graph.initializer}
    assert {"lossScaleUpdateFactor", "LossScaleUpdate_counter", "W"} <= saved
    second = session(path)
    got += steps(second, range(3, 6))
    assert got == expected and len(set(expected)) > 1, (got, expected)
    wa, wb = np.zeros((3, 2), np.float16), np.zeros((3, 2), np.float16)
    whole.weightsToHost()
    whole.readWeights(popart.PyWeightsIO({w: wa}))
    second.weightsToHost()
    second.readWeights(popart.PyWeightsIO({w: wb}))
    np.testing.assert_array_equal(wa, wb)


def test_ipu_model_costs_the_new_ops(popart):
    import json
    proto, x, w, loss, _ = model(popart, rows=64)
    device = popart.DeviceManager().createIpuModelDevice({"tilesPerIPU": 16})
    s = popart.TrainingSession(proto, popart.DataFlow(1, ["finalLossScale"]), loss, sgd(popart, 4.0), device,
                               userOptions=als_options(popart, 0.5, 0.2))
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: np.full((64, 3), 0.5, np.float16)}, a))
    ops = {o["type"]: o for o in json.loads(s.getGraphReport())["ops"]}
    # The histogram of Gradient___W [3, 2] with one level: 6 x (2 + 1) instructions.
    assert ops["Histogram"]["flops"] == 18 and ops["Histogram"]["cycles"] > 0
    assert ops["LossScaleUpdate"]["flops"] == 16 and ops["LossScaleUpdate"]["cycles"] > 0


@pytest.mark.parametrize("w_dtype,loss_dtype", [("FLOAT16", "FLOAT16"), ("FLOAT", "FLOAT16"), ("FLOAT16", "FLOAT"),
                                                ("FLOAT", "FLOAT")])
def test_clip_at_2_to_the_15_with_float16_weights_or_loss_scale(popart, cpu, w_dtype, loss_dtype):
    """finalLossScale stays <= 2^15 when the weights or the loss (so the loss scale) are FLOAT16;
    with both FLOAT (a FLOAT16 part in the middle, so there are gradients to track) it keeps
    doubling past 2^15 (then the FLOAT16 gradients overflow, count in the upper bin and halve it)."""
    np_w = np.float16 if w_dtype == "FLOAT16" else np.float32
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo(w_dtype, [4, 3]), "x")
    w = b.addInitializedInputTensor(np.full((3, 2), 0.5, np_w), "W")
    h = b.aiOnnx.matmul([x, w])
    if w_dtype != "FLOAT16":
        h = b.aiOnnx.cast([h], "FLOAT16")
    q = b.aiOnnx.mul([h, h])
    if loss_dtype != "FLOAT16":
        q = b.aiOnnx.cast([q], loss_dtype)
    loss = b.aiGraphcore.identityloss([q], reduction=popart.ReductionType.Sum)
    o = popart.SessionOptions()
    o.automaticLossScalingSettings.enabled = True
    o.automaticLossScalingSettings.binEdgeLocation = 1.0
    bps, ls = 16, 2.0
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(bps, ["finalLossScale", "finalInverseLossScale_0"]),
                               loss, popart.SGD({"defaultLearningRate": (LR, False), "lossScaling": (ls, False)}), cpu,
                               userOptions=o)
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: np.full((bps, 4, 3), 2.0 ** -6, np_w)}, a))
    factor = 2.0 ** np.arange(bps)
    if "FLOAT16" in (w_dtype, loss_dtype):
        factor = np.minimum(factor, 2.0 ** 15 / ls)
    np.testing.assert_array_equal(a["finalLossScale"], ls * factor)
    assert a["finalLossScale"].dtype == (np.float16 if loss_dtype == "FLOAT16" else np.float32)
    # SGD0's scaledLearningRate0 = lr / lossScaling, divided by the factor.
    np.testing.assert_array_equal(a["finalInverseLossScale_0"], np.float32(LR / ls) / factor.astype(np.float32))
