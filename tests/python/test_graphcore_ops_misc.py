"""aiGraphcore's elementwise, rearrangement, utility and collective ops through the Python Builder
(methods made from the core's table, called with PopART's keyword names), against NumPy and
PyTorch; training through them; and the errors they raise."""
import numpy as np
import pytest
import torch

from conftest import rand


def run(popart, build, feeds, opts=None):
    """Builds `build(builder, aiGraphcore, input ids)` over inputs shaped like `feeds`, runs it once
    on the CPU (an InferenceSession) and returns the outputs (one array, or a list)."""
    b = popart.Builder()
    ids = [b.addInputTensor(popart.TensorInfo(a), "in%d" % i) for i, a in enumerate(feeds)]
    outs = build(b, b.aiGraphcore, ids)
    single = isinstance(outs, str)
    outs = [outs] if single else list(outs)
    for o in outs:
        b.addOutputTensor(o)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, outs),
                                popart.DeviceManager().createCpuDevice(), userOptions=opts)
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO(dict(zip(ids, feeds)), a))
    res = [a[o] for o in outs]
    return res[0] if single else res


def test_bitwise_ops_default_args_and_match_numpy(popart):
    a = np.array([[5, -6, 0x0F0F], [-1, 123456, 7]], np.int32)
    b = np.array([3, 12, 0x00FF], np.int32)
    outs = run(popart, lambda bl, gc, i: [gc.bitwisenot(args=[i[0]]), gc.bitwiseand([i[0], i[1]]),
                                         gc.bitwiseor([i[0], i[1]]), gc.bitwisexor([i[0], i[1]]),
                                         gc.bitwisexnor([i[0], i[1]])], [a, b])
    for got, want in zip(outs, [~a, a & b, a | b, a ^ b, ~(a ^ b)]):
        np.testing.assert_array_equal(got, want)
    u = np.array([0, 1, 0xF0, 0xFF], np.uint32)
    np.testing.assert_array_equal(run(popart, lambda bl, gc, i: gc.bitwisenot([i[0]]), [u]), ~u)
    gc = popart.Builder().aiGraphcore
    # PopART's Python methods default args to an empty list; the input count is still checked.
    assert gc.bitwiseand.__signature__.parameters["args"].default == []
    assert gc.abort.__signature__.parameters["args"].default == []
    with pytest.raises(popart.popart_exception, match="BitwiseAnd"):
        gc.bitwiseand()
    with pytest.raises(popart.popart_exception, match="must be an integer tensor"):
        run(popart, lambda bl, gc, i: gc.bitwisenot([i[0]]), [rand(2)])


def test_rounding_incrementmod_geluerf_swish(popart):
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 3.49, -3.51, 6.0], np.float32)
    nb, rd, im = run(popart, lambda bl, gc, i: [gc.nearbyint([i[0]]), gc.round([i[0]]),
                                               gc.incrementmod([i[0]], 3.0, 4.0)], [x])
    np.testing.assert_array_equal(nb, torch.round(torch.from_numpy(x)).numpy())  # half to even
    np.testing.assert_array_equal(rd, np.sign(x) * np.floor(np.abs(x) + 0.5))   # half away from zero
    np.testing.assert_allclose(im, np.fmod(x + np.float32(3), np.float32(4)), rtol=1e-6)
    for dtype in (np.int32, np.uint32):
        d = np.array([5, -5, 10, 1, 2]).astype(dtype)
        got = run(popart, lambda bl, gc, i: gc.incrementmod([i[0]], increment=3.0, modulus=4.0), [d])
        np.testing.assert_array_equal(got, np.fmod(d + np.asarray(3, dtype), np.asarray(4, dtype)))
    v = np.linspace(-10, 10, 100, dtype=np.float32)
    ge, sw = run(popart, lambda bl, gc, i: [gc.geluerf([i[0]]), gc.swish([i[0]], debugContext="sw")], [v])
    np.testing.assert_allclose(ge, torch.nn.functional.gelu(torch.from_numpy(v)).numpy(), atol=1e-6)
    np.testing.assert_allclose(sw, torch.nn.functional.silu(torch.from_numpy(v)).numpy(), rtol=1e-6, atol=1e-7)
    with pytest.raises(popart.popart_exception, match="modulus must not be 0"):
        run(popart, lambda bl, gc, i: gc.incrementmod([i[0]], 1.0, 0.0), [x])


def test_fmod_remainder_match_numpy(popart):
    a = rand(3, 4, seed=3) * 5
    b = (np.abs(rand(3, 4, seed=4)) + 0.5) * np.where(np.arange(12).reshape(3, 4) % 2, 1, -1).astype(np.float32)
    f, r = run(popart, lambda bl, gc, i: [gc.fmod([i[0], i[1]]), gc.remainder([i[0], i[1]])], [a, b])
    np.testing.assert_allclose(f, np.fmod(a, b), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r, np.remainder(a, b), rtol=1e-5, atol=1e-6)
    ai, bi = np.array([7, -7, 7, -7], np.int32), np.array([3, 3, -3, -3], np.int32)
    f, r = run(popart, lambda bl, gc, i: [gc.fmod([i[0], i[1]]), gc.remainder([i[0], i[1]])], [ai, bi])
    np.testing.assert_array_equal(f, np.fmod(ai, bi))
    np.testing.assert_array_equal(r, np.remainder(ai, bi))


def test_reverse_depthtospace_slice_subsample(popart):
    x = np.arange(2 * 8 * 2 * 3, dtype=np.float32).reshape(2, 8, 2, 3)
    rv, dcr, crd, sl, ss = run(popart, lambda bl, gc, i: [
        gc.reverse([i[0]], dimensions=[0, 3]),
        gc.depthtospace([i[0]], blocksize=2, mode="DCR"),
        gc.depthtospace([i[0]], 2, "CRD"),
        gc.slice([i[0]], axes=[1, 3], starts=[1, 1], ends=[-1, 3]),
        gc.subsample([i[0]], strides=[1, 3, 1, 2])], [x])
    np.testing.assert_array_equal(rv, x[::-1, :, :, ::-1])
    t = torch.from_numpy(x)
    want_dcr = t.reshape(2, 2, 2, 2, 2, 3).permute(0, 3, 4, 1, 5, 2).reshape(2, 2, 4, 6)
    want_crd = t.reshape(2, 2, 2, 2, 2, 3).permute(0, 1, 4, 2, 5, 3).reshape(2, 2, 4, 6)
    np.testing.assert_array_equal(dcr, want_dcr.numpy())
    np.testing.assert_array_equal(crd, want_crd.numpy())
    np.testing.assert_array_equal(crd, torch.nn.functional.pixel_shuffle(t, 2).numpy())
    np.testing.assert_array_equal(sl, x[:, 1:-1, :, 1:3])
    np.testing.assert_array_equal(ss, x[:, ::3, :, ::2])
    b = popart.Builder()
    i = b.addInputTensor(popart.TensorInfo("FLOAT", [5]))
    assert b.getTensorShape(b.aiGraphcore.slice([i], axes=[0], starts=[-5], ends=[-1])) == [4]
    with pytest.raises(popart.popart_exception, match="Strides invalid. 0 stride at index 1"):
        run(popart, lambda bl, gc, i: gc.subsample([i[0]], [4, 0]), [rand(4, 4)])


def test_normalize_image(popart):
    img = (np.random.default_rng(0).uniform(0, 1, [2, 2, 2, 3]) * 255).astype(np.uint8)
    scale = 1.0 / 255
    for dtype, out_dtype in ((np.uint8, np.float16), (np.float16, np.float16), (np.float32, np.float32)):
        im = img.astype(dtype)
        offsets, scales = np.array([1, 2, 3], out_dtype), np.array([4, 5, 6], out_dtype)
        got = run(popart, lambda bl, gc, i: gc.normalize_image([i[0], i[1], i[2]], scale=scale),
                  [im, offsets, scales])
        want = ((im.astype(np.float64) * scale) - offsets) * scales
        want = np.concatenate([want, np.zeros([2, 2, 2, 1])], axis=-1)
        assert got.dtype == out_dtype and got.shape == (2, 2, 2, 4)
        np.testing.assert_allclose(got, want, rtol=1e-2 if out_dtype == np.float16 else 1e-6, atol=1e-5)
    with pytest.raises(popart.popart_exception, match="requires the inner dimension to be 3"):
        run(popart, lambda bl, gc, i: gc.normalize_image([i[0], i[1], i[2]]),
            [rand(2, 4), rand(3), rand(3)])


def test_init_printtensor_tensorremap_collectives(popart, capfd):
    x = rand(2, 3, seed=7)
    z, zi, p, t, a, s = run(popart, lambda bl, gc, i: [
        gc.init([2, 3], popart.DataType.FLOAT, popart.InitType.Zero),
        gc.init(shape=[4], data_type="INT32", init_type="NoInit", batch_axis=0),
        gc.printtensor([i[0]], title="x_values"),
        gc.tensorremap([i[0]]),
        gc.replicatedallreduce([i[0]], commGroup=None),
        gc.replicatedreducescatter([i[0]])], [x])
    np.testing.assert_array_equal(z, np.zeros([2, 3], np.float32))
    assert zi.dtype == np.int32 and zi.shape == (4,) and not zi.any()
    for got in (p, t, a):
        np.testing.assert_array_equal(got, x)
    np.testing.assert_array_equal(s, x.reshape(-1))
    err = capfd.readouterr().err
    assert "x_values: {{" in err
    b = popart.Builder()
    assert b.aiGraphcore.init.__signature__.parameters.keys() >= {"shape", "data_type", "init_type", "batch_axis"}
    assert "args" not in b.aiGraphcore.init.__signature__.parameters
    # PopART's overload without batch_axis: the fourth positional argument is the debug context.
    named = b.aiGraphcore.init([5, 12, 7], popart.DataType.FLOAT, popart.InitType.NoInit, "test_init")
    assert named.startswith("test_init") and b.getTensorShape(named) == [5, 12, 7]
    with pytest.raises(Exception, match="batch_axis"):
        b.aiGraphcore.init([2], popart.DataType.FLOAT, popart.InitType.NoInit, "x", "y")
    # commGroup: a CommGroup object, or PopART's older [type, size] pair; the node holds the pair.
    v = b.addInputTensor("FLOAT", [4])
    g1 = b.aiGraphcore.replicatedallreduce([v], commGroup=popart.CommGroup(popart.CommGroupType.Consecutive, 2))
    g2 = b.aiGraphcore.replicatedallreduce([v], commGroup=[popart.CommGroupType.Consecutive, 2])
    assert b.getInt64VectorNodeAttribute("commGroup", {g1}) == b.getInt64VectorNodeAttribute("commGroup", {g2})
    # PopART's `with builder.commGroup(type, size):` scope writes __collectiveCommGroup.
    with b.commGroup(popart.CommGroupType.Orthogonal, 4):
        g4 = b.aiGraphcore.replicatedallreduce([v])
    g5 = b.aiGraphcore.replicatedallreduce([v])
    assert b.getInt64VectorNodeAttribute("__collectiveCommGroup", {g4}) == [int(popart.CommGroupType.Orthogonal), 4]
    assert "__collectiveCommGroup" not in b.getAllNodeAttributeNames({g5})
    # PopART's parameter order: args, collectiveOperator, commGroup.
    g3 = b.aiGraphcore.replicatedreducescatter([v], popart.CollectiveOperator.Max,
                                               popart.CommGroup(popart.CommGroupType.Orthogonal, 2))
    assert b.getInt64VectorNodeAttribute("commGroup", {g3}) == [int(popart.CommGroupType.Orthogonal), 2]
    with pytest.raises(popart.popart_exception, match="CollectiveOperator Mean takes floating-point tensors"):
        run(popart, lambda bl, gc, i: gc.replicatedallreduce([bl.aiOnnx.cast([i[0]], "INT32")],
                                                              popart.CollectiveOperator.Mean), [x])


def test_abort_raises_poplar_runtime_error(popart):
    def build(cond):
        def f(bl, gc, i):
            o = bl.aiOnnx.abs([i[0]])
            assert gc.abort([o] if cond else []) is None
            return o
        return f
    with pytest.raises(popart.poplar_runtime_error, match="^Abort Program"):
        run(popart, build(False), [np.zeros([1], np.float32)])
    assert issubclass(popart.poplar_runtime_error, popart.poplar_exception)
    np.testing.assert_array_equal(run(popart, build(True), [np.zeros([1], np.float32)]), [0])
    with pytest.raises(popart.poplar_runtime_error, match="the condition"):
        run(popart, build(True), [np.ones([1], np.float32)])


def _train_once(popart, build, weights, seed=None):
    """One training step (SGD, learning rate 0) of `build(builder, aiGraphcore, weight ids) -> (y,
    loss)`; returns y and the gradients of the weights."""
    b = popart.Builder()
    ws = [b.addInitializedInputTensor(w) for w in weights]
    y, loss = build(b, b.aiGraphcore, ws)
    grads = [popart.reservedGradientPrefix() + w for w in ws]
    sgd = popart.SGD({"defaultLearningRate": (0.0, False)})  # a constant 0 is refused, as in PopART
    s = popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, [y] + grads), loss=loss,
                               optimizer=sgd, deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    if seed is not None:
        s.setRandomSeed(seed)
    s.weightsFromHost()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, a))
    return a[y], [a[g] for g in grads]


def test_gradients_match_pytorch(popart):
    w = rand(1, 8, 2, 3, seed=11)
    c = rand(1, 2, 4, 6, seed=12)

    def build(bl, gc, ws):
        d = gc.depthtospace([gc.reverse([gc.geluerf([ws[0]])], [3])], 2, "DCR")
        y = bl.aiOnnx.mul([gc.swish([d]), bl.aiOnnx.constant(c)])
        return y, gc.identityloss([y], reduction=popart.ReductionType.Sum)

    y, (g,) = _train_once(popart, build, [w])
    tw = torch.tensor(w, requires_grad=True)
    # DCR: the channels split as [block row, block column, channel] (pixel_shuffle is CRD).
    d = torch.flip(torch.nn.functional.gelu(tw), [3]).reshape(1, 2, 2, 2, 2, 3).permute(0, 3, 4, 1, 5, 2)
    ty = torch.nn.functional.silu(d.reshape(1, 2, 4, 6)) * torch.from_numpy(c)
    ty.sum().backward()
    np.testing.assert_allclose(y, ty.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g, tw.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_shapeddropout_masks_rows_in_training_and_gradient(popart):
    w = np.full([100, 4], 2.0, np.float32)

    def build(bl, gc, ws):
        y = gc.shapeddropout([ws[0]], shape=[100, 1], ratio=0.5)
        return y, gc.identityloss([y], reduction=popart.ReductionType.Sum)

    y, (g,) = _train_once(popart, build, [w], seed=11583)
    kept = y.any(axis=1)
    assert 20 < kept.sum() < 80
    np.testing.assert_array_equal(y[kept], 4.0)        # 2 / (1 - 0.5)
    np.testing.assert_array_equal(g, y / 2.0)         # the same mask and scale
    y2, _ = _train_once(popart, build, [w], seed=11583)
    np.testing.assert_array_equal(y, y2)              # seeded like Dropout
    # Inference: the identity.
    np.testing.assert_array_equal(run(popart, lambda bl, gc, i: gc.shapeddropout([i[0]], [1]), [w]), w)
    with pytest.raises(popart.popart_exception, match=r"ratio value 1.5 is not valid"):
        run(popart, lambda bl, gc, i: gc.shapeddropout([i[0]], [1], ratio=1.5), [w])
    with pytest.raises(popart.popart_exception, match="incompatible input tensor and dropout shape"):
        run(popart, lambda bl, gc, i: gc.shapeddropout([i[0]], [4, 4]), [w])


def test_copyvarupdate_counts_runs(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [1, 2, 4, 4]))
    wts = b.addInitializedInputTensor(np.ones([3, 2, 3, 3], np.float32))
    o = b.aiOnnx.relu([b.aiOnnx.conv([x, wts], dilations=[1, 1], pads=[1, 1, 1, 1], strides=[1, 1])])
    loss = b.aiGraphcore.l1loss([o], 0.1)
    counter = b.addInitializedInputTensor(np.zeros([1], np.float32))
    added = b.aiOnnx.add([counter, b.aiOnnx.constant(np.asarray([1], dtype=np.float32))])
    alias = b.aiGraphcore.copyvarupdate([counter, added])
    opts = popart.SessionOptions()
    opts.constantWeights = False
    s = popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, [o, added, alias]), loss=loss,
                               optimizer=popart.ConstSGD(0.01), userOptions=opts,
                               deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    for i in range(4):
        s.run(popart.PyStepIO({x: np.ones([1, 2, 4, 4], np.float32)}, a))
        assert a[added][0] == i + 1 and a[alias][0] == i + 1


def test_batchnormalization_returns_its_outputs(popart):
    x = rand(4, 2, 3, seed=21)
    c = lambda v: np.array(v, np.float32)  # noqa: E731
    outs = run(popart, lambda bl, gc, i: gc.batchnormalization(i, num_outputs=5, epsilon=1e-5, momentum=0.9),
               [x, c([1.5, 0.5]), c([0.1, -0.2]), c([0.3, -0.1]), c([1.2, 0.8])])
    assert len(outs) == 5
    m = x.mean(axis=(0, 2))
    np.testing.assert_allclose(outs[1], 0.9 * c([0.3, -0.1]) + 0.1 * m, rtol=1e-5)
    np.testing.assert_allclose(outs[2], 0.9 * c([1.2, 0.8]) + 0.1 * x.var(axis=(0, 2), ddof=1), rtol=1e-5)
    tb = torch.nn.functional.batch_norm(torch.from_numpy(x), None, None, torch.tensor([1.5, 0.5]),
                                        torch.tensor([0.1, -0.2]), training=True, eps=1e-5)
    np.testing.assert_allclose(outs[0], tb.numpy(), rtol=1e-5, atol=1e-6)


def test_boolean_attributes_take_python_truth_values(popart):
    # PopART's pybind11 bool arguments accept 0 / 1: nllloss(inputIsLogProbability=1) is the log form.
    probs = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], np.float32)
    labels = np.array([2, 0], np.int32)
    want = -np.mean(np.log(probs[np.arange(2), labels]))
    for flag, x in ((1, np.log(probs)), (0, probs), (True, np.log(probs))):
        got = run(popart, lambda bl, gc, i: gc.nllloss([i[0], i[1]], popart.ReductionType.Mean,
                                                        inputIsLogProbability=flag), [x, labels])
        np.testing.assert_allclose(got, want, rtol=1e-6)
