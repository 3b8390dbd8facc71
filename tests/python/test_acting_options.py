"""SessionOptions that act (issue 20 §2), from PopART's documented behaviour: dotChecks / logDir /
POPART_DOT_CHECKS / firstDotOp / finalDotOp / dotOpNames / separateCallOpPdfs, syntheticDataMode,
enableNonStableSoftmax, enableStableNorm and partialsTypeMatMuls. References are NumPy in double
(or float16 where the option is about half-precision arithmetic)."""
import numpy as np
import pytest

from conftest import rand


def _infer(popart, proto, outs, feeds, opts, device=None):
    df = popart.DataFlow(1, {o: popart.AnchorReturnType("All") for o in outs})
    s = popart.InferenceSession(proto, df, device or popart.DeviceManager().createCpuDevice(), userOptions=opts)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, anchors))
    return anchors


def _mlp(popart):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2, 3], "x")
    w = b.addInitializedInputTensor(rand(3, 4), "w")
    with b.nameScope("layer"):
        y = b.aiOnnx.matmul([x, w], "mm")
        z = b.aiOnnx.relu([y], "act")
    loss = b.aiGraphcore.l1loss([z], 0.1)
    return b, x, z, loss


# ------------------------------------------------------------------ dot checks

def test_dot_checks_write_graphviz_at_each_checkpoint(popart, tmp_path):
    b, x, z, loss = _mlp(popart)
    opts = popart.SessionOptions()
    opts.logDir = str(tmp_path)
    opts.dotChecks = {"Fwd0", "Bwd0", "final"}  # case-insensitive, as PopART
    popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, popart.ConstSGD(0.1),
                           popart.DeviceManager().createCpuDevice(), userOptions=opts)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["Bwd0_r.dot", "Final_r.dot", "Fwd0_r.dot"]  # named as the checkpoints
    fwd = (tmp_path / "Fwd0_r.dot").read_text()
    assert fwd.startswith("digraph net {") and fwd.rstrip().endswith("}")
    assert "MatMul" in fwd and "Relu" in fwd and "Gradient" not in fwd
    assert '"x" [shape= "egg"' in fwd and "color = red" in fwd and "color = blue" in fwd  # stream, weight
    bwd = (tmp_path / "Bwd0_r.dot").read_text()
    assert "Gradient___w" in bwd  # the backward pass and the weight update are there after autodiff


def test_dot_checks_env_var_op_range_and_names(popart, tmp_path, monkeypatch):
    b, x, z, loss = _mlp(popart)
    monkeypatch.setenv("POPART_DOT_CHECKS", "FWD0:FINAL")
    opts = popart.SessionOptions()
    opts.logDir = str(tmp_path)
    opts.dotOpNames = True
    opts.firstDotOp, opts.finalDotOp = 0, 1
    opts.separateCallOpPdfs = False
    _infer(popart, b.getModelProto(), [z], {x: rand(2, 3)}, opts)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Final_all.dot", "Fwd0_all.dot"]
    text = (tmp_path / "Fwd0_all.dot").read_text()
    assert "MatMul" in text and ":layer/mm" in text  # the op's name with dotOpNames
    assert "Relu" not in text  # only the first op of the schedule (firstDotOp 0, finalDotOp 1)


def test_dot_checks_invalid_range(popart, tmp_path):
    b, x, z, loss = _mlp(popart)
    opts = popart.SessionOptions()
    opts.logDir = str(tmp_path)
    opts.dotChecks = {"Final"}
    opts.firstDotOp, opts.finalDotOp = 5, 2
    with pytest.raises(popart.popart_exception, match=r"Invalid dot range \(5, 2\) with schedule of size"):
        _infer(popart, b.getModelProto(), [z], {x: rand(2, 3)}, opts)


# ------------------------------------------------------------------ synthetic data

def _train_linear(popart, mode, data):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [4], "x")
    w = b.addInitializedInputTensor(np.ones(4, np.float32), "w")
    y = b.aiOnnx.mul([x, w])
    loss = b.aiGraphcore.l1loss([y], 1.0, reduction=popart.ReductionType.Sum)
    opts = popart.SessionOptions()
    opts.syntheticDataMode = mode
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, {y: popart.AnchorReturnType("All")}), loss,
                               popart.ConstSGD(0.5), popart.DeviceManager().createCpuDevice(), userOptions=opts)
    s.prepareDevice()
    s.weightsFromHost()
    anchors = {y: np.full(4, 7.0, np.float32)}
    s.run(popart.PyStepIO({x: data}, anchors))
    weights = {w: np.zeros(4, np.float32)}
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO(weights))
    return anchors[y], weights[w]


def test_synthetic_data_modes(popart):
    data = np.array([1, -2, 3, -4], np.float32)
    out, w = _train_linear(popart, popart.SyntheticDataMode.Off, data)
    np.testing.assert_allclose(out, data)
    np.testing.assert_allclose(w, 1 - 0.5 * np.abs(data))  # d|x w|/dw = sign(x w) x = |x| at w = 1
    # Zeros: the input is zeros (gradient 0, weights unchanged) and nothing reaches the host: the
    # anchor keeps what the user put there, and the StepIO's wrong-sized input is never read.
    out, w = _train_linear(popart, popart.SyntheticDataMode.Zeros, np.zeros(1, np.float32))
    np.testing.assert_array_equal(out, np.full(4, 7.0, np.float32))
    np.testing.assert_array_equal(w, np.ones(4, np.float32))
    # RandomNormal: ~N(0, 1) values generated once, the same in every session.
    _, w1 = _train_linear(popart, popart.SyntheticDataMode.RandomNormal, np.zeros(1, np.float32))
    _, w2 = _train_linear(popart, popart.SyntheticDataMode.RandomNormal, np.zeros(1, np.float32))
    np.testing.assert_array_equal(w1, w2)
    assert not np.allclose(w1, 1.0)


# ------------------------------------------------------------------ softmax and norms

def test_non_stable_softmax(popart):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2, 3], "x")
    y = b.aiOnnx.softmax([x], axis=1)
    b.addOutputTensor(y)
    small = np.array([[0.5, -1.0, 2.0], [1.0, 1.0, 1.0]], np.float32)
    ref = np.exp(small.astype(np.float64)) / np.exp(small.astype(np.float64)).sum(1, keepdims=True)
    large = np.array([[100.0, 101.0, 99.0], [1.0, 2.0, 3.0]], np.float32)
    for non_stable in (False, True):
        opts = popart.SessionOptions()
        opts.enableNonStableSoftmax = non_stable
        out = _infer(popart, b.getModelProto(), [y], {x: small}, opts)[y]
        np.testing.assert_allclose(out, ref, rtol=1e-6)
        out = _infer(popart, b.getModelProto(), [y], {x: large}, opts)[y]
        # exp(100) overflows float without the max subtracted: PopART's non-stable softmax gives NaN.
        assert np.isnan(out[0]).all() == non_stable
        assert np.isfinite(out[1]).all()


def test_stable_norm_changes_variance_of_offset_data(popart):
    # Data with a large mean next to its spread: E[x^2] - E[x]^2 (PopART's default) loses digits
    # that the two-pass variance (enableStableNorm) keeps.
    rng = np.random.default_rng(1)
    data = (1000.0 + rng.standard_normal((4, 2, 64))).astype(np.float32)
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [4, 2, 64], "x")
    scale = b.addInitializedInputTensor(np.ones(2, np.float32), "scale")
    bias = b.addInitializedInputTensor(np.zeros(2, np.float32), "bias")
    y = b.aiOnnx.instancenormalization([x, scale, bias], 1e-5)
    b.addOutputTensor(y)
    d = data.astype(np.float64)
    ref = (d - d.mean(-1, keepdims=True)) / np.sqrt(d.var(-1, keepdims=True) + 1e-5)
    errs = {}
    for stable in (False, True):
        opts = popart.SessionOptions()
        opts.enableStableNorm = stable
        out = _infer(popart, b.getModelProto(), [y], {x: data}, opts)[y]
        errs[stable] = np.abs(out - ref).max()
    assert errs[True] < 1e-3
    assert errs[False] > 10 * errs[True]


# ------------------------------------------------------------------ matmul partials

def _half_partials_ref(a, b):
    """fp16 accumulation: every product added to a float16 accumulator, rounded each time."""
    out = np.zeros((a.shape[0], b.shape[1]), np.float16)
    for m in range(a.shape[0]):
        for n in range(b.shape[1]):
            acc = np.float16(0)
            for k in range(a.shape[1]):
                acc = np.float16(np.float32(acc) + np.float32(a[m, k]) * np.float32(b[k, n]))
            out[m, n] = acc
    return out


def _fp16_matmul(popart, w, partials=None):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT16", [3, w.shape[0]], "x")
    y = b.aiOnnx.matmul([x, b.addInitializedInputTensor(w, "w")])
    if partials:
        b.setPartialsType(y, partials)
    b.addOutputTensor(y)
    return b.getModelProto(), x, y


@pytest.mark.parametrize("where", ["session", "op"])
def test_partials_type_half_matmul(popart, where):
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((3, 300)) * 4).astype(np.float16)
    w = rng.standard_normal((300, 2)).astype(np.float16)
    proto, x, y = _fp16_matmul(popart, w, "HALF" if where == "op" else None)
    opts = popart.SessionOptions()
    if where == "session":
        opts.partialsTypeMatMuls = "half"
    out = _infer(popart, proto, [y], {x: a}, opts)[y]
    np.testing.assert_array_equal(out, _half_partials_ref(a, w))
    # Float partials (the default) round once, at the end: closer to the double-precision product.
    proto, x, y = _fp16_matmul(popart, w)
    default = _infer(popart, proto, [y], {x: a}, popart.SessionOptions())[y]
    exact = a.astype(np.float64) @ w.astype(np.float64)
    np.testing.assert_array_equal(default, exact.astype(np.float16))
    assert np.abs(out - exact).max() > np.abs(default - exact).max()
    # The op's own partials type wins over the session's.
    proto, x, y = _fp16_matmul(popart, w, "float")
    opts = popart.SessionOptions()
    opts.partialsTypeMatMuls = "half"
    np.testing.assert_array_equal(_infer(popart, proto, [y], {x: a}, opts)[y], default)


def test_partials_type_bad_value(popart):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT16", [2, 2], "x")
    y = b.aiOnnx.matmul([x, x])
    b.addOutputTensor(y)
    opts = popart.SessionOptions()
    opts.partialsTypeMatMuls = "quarter"
    with pytest.raises(popart.popart_exception, match="Unable to get partials type from string 'quarter'"):
        _infer(popart, b.getModelProto(), [y], {x: np.ones((2, 2), np.float16)}, opts)


# ------------------------------------------------------------------ executables and engine caching

def _conv_model(popart, seed=3):
    """A 3x3 convolution with constant weights."""
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [1, 8, 12, 12], "x")
    w = b.addInitializedInputTensor(rand(16, 8, 3, 3, seed=seed), "w")
    y = b.aiOnnx.conv([x, w], pads=[1, 1, 1, 1])
    b.addOutputTensor(y)
    return b.getModelProto(), x, y


def _session(popart, proto, y, opts):
    return popart.InferenceSession(proto, popart.DataFlow(1, [y]), popart.DeviceManager().createCpuDevice(),
                                   userOptions=opts)


def _run(popart, s, x, data):
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: data}, anchors))
    return next(iter(anchors.values()))


def test_compile_and_export_then_load_executable(popart, tmp_path):
    proto, x, y = _conv_model(popart)
    path = tmp_path / "exported" / "model.popart"
    data = rand(1, 8, 12, 12)
    a = _session(popart, proto, y, popart.SessionOptions())
    a.compileAndExport(str(path))
    assert path.exists()
    ref = _run(popart, a, x, data)
    b = _session(popart, proto, y, popart.SessionOptions())
    b.loadExecutable(str(path))
    b.prepareDevice()
    np.testing.assert_array_equal(_run(popart, b, x, data), ref)
    # Another model's session refuses the file, naming both hashes; after prepareDevice it is too late.
    proto2, x2, y2 = _conv_model(popart, seed=5)
    c = _session(popart, proto2, y2, popart.SessionOptions())
    with pytest.raises(popart.popart_exception, match="was prepared for another model, options or device"):
        c.loadExecutable(str(path))
    with pytest.raises(popart.popart_exception, match="must be called before prepareDevice"):
        b.loadExecutable(str(path))
    (tmp_path / "junk").write_bytes(b"hello")
    with pytest.raises(popart.popart_exception, match="is not an executable"):
        _session(popart, proto, y, popart.SessionOptions()).loadExecutable(str(tmp_path / "junk"))


def test_load_executable_restores_exported_weights(popart, tmp_path):
    """The file carries the weights at export time (PopART's executables carry tensor data)."""
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2], "x")
    w = b.addInitializedInputTensor(np.ones(2, np.float32), "w")
    y = b.aiOnnx.mul([x, w])
    loss = b.aiGraphcore.l1loss([y], 1.0)
    proto = b.getModelProto()

    def session():
        return popart.TrainingSession(proto, popart.DataFlow(1, [y]), loss, popart.ConstSGD(0.25),
                                      popart.DeviceManager().createCpuDevice())

    s = session()
    s.prepareDevice()
    s.weightsFromHost()
    s.run(popart.PyStepIO({x: np.array([1, -1], np.float32)}, s.initAnchorArrays()))
    s.compileAndExport(str(tmp_path / "trained.popart"))
    t = session()
    t.loadExecutable(str(tmp_path / "trained.popart"))
    t.prepareDevice()
    weights = {w: np.zeros(2, np.float32)}
    t.readWeights(popart.PyWeightsIO(weights))
    np.testing.assert_allclose(weights[w], [0.875, 0.875])  # 1 - 0.25 * |x| / 2 (l1loss takes the mean)


@pytest.mark.parametrize("device", ["cpu", "ipumodel"])
def test_engine_caching_has_no_effect_off_ipu_hardware(popart, tmp_path, device):
    """PopART caches engines for Ipu and OfflineIpu devices only (Ir::usingEngineCache); on the CPU
    and IPU-model devices the options are accepted, sessions run, and nothing is written."""
    proto, x, y = _conv_model(popart)
    data = rand(1, 8, 12, 12)
    opts = popart.SessionOptions()
    opts.enableEngineCaching = True
    opts.cachePath = str(tmp_path / "saved_graph")
    results = []
    for _ in range(2):
        dm = popart.DeviceManager()
        d = dm.createCpuDevice() if device == "cpu" else dm.createIpuModelDevice({"tilesPerIPU": 4})
        s = popart.InferenceSession(proto, popart.DataFlow(1, [y]), d, userOptions=opts)
        s.prepareDevice()
        results.append(_run(popart, s, x, data))
    np.testing.assert_array_equal(results[0], results[1])
    assert not (tmp_path / "saved_graph").exists() and not list(tmp_path.iterdir())


# ------------------------------------------------------------------ compilationProgressLogger

def test_compilation_progress_logger_is_called_up_to_the_total(popart):
    b, x, z, loss = _mlp(popart)
    calls = []
    opts = popart.SessionOptions()
    assert opts.compilationProgressLogger is None
    opts.compilationProgressLogger = lambda progress, total: calls.append((progress, total))
    opts.compilationProgressTotal = 40
    assert opts.compilationProgressLogger is not None
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [z]), popart.DeviceManager().createCpuDevice(),
                                userOptions=opts)
    assert calls == [(0, 40)]  # as the session is made
    s.prepareDevice()
    assert calls[-1] == (40, 40) and len(calls) == 3
    assert [p for p, _ in calls] == sorted(p for p, _ in calls)  # never backwards
    # None clears it; a value that is not a function is PopART's kind error.
    opts.compilationProgressLogger = None
    assert opts.compilationProgressLogger is None
    with pytest.raises(popart.popart_exception, match="compilationProgressLogger"):
        opts.compilationProgressLogger = 3


def test_compilation_progress_logger_that_raises_names_itself(popart):
    b, x, z, loss = _mlp(popart)
    opts = popart.SessionOptions()

    def broken(progress, total):
        raise ValueError("no progress bar today")

    opts.compilationProgressLogger = broken
    with pytest.raises(popart.popart_exception, match=r"compilationProgressLogger\(0, 100\) raised .*no progress bar"):
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [z]), popart.DeviceManager().createCpuDevice(),
                                userOptions=opts)


# ------------------------------------------------------------------ enableConstantFoldingOfMultipleConsumers

def test_constant_folding_of_multiple_consumers(popart):
    """A constant expression (Constant + Constant) read by two ops is folded by default; with the
    option off it stays an Add computed at run time. The outputs are the same."""
    import json
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [3], "x")
    c = b.aiOnnx.add([b.aiOnnx.constant(np.array([1, 2, 3], np.float32)),
                      b.aiOnnx.constant(np.array([0.5, 0.5, 0.5], np.float32))], "cexpr")
    single = b.aiOnnx.neg([b.aiOnnx.constant(np.array([4, 5, 6], np.float32))], "single")  # one consumer
    y = b.aiOnnx.sum([b.aiOnnx.mul([x, c]), b.aiOnnx.sub([x, c]), single])
    b.addOutputTensor(y)
    xv = rand(3)
    results = {}
    for on in (True, False):
        opts = popart.SessionOptions()
        opts.enableConstantFoldingOfMultipleConsumers = on
        s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]),
                                    popart.DeviceManager().createCpuDevice(), userOptions=opts)
        names = [op["name"] for op in json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))["maingraph"]]
        assert any(n.startswith("cexpr") for n in names) == (not on)
        assert not any(n.startswith("single") for n in names)  # one consumer: folded either way
        s.prepareDevice()
        a = s.initAnchorArrays()
        s.run(popart.PyStepIO({x: xv}, a))
        results[on] = a[y].copy()
    cv = np.array([1.5, 2.5, 3.5])
    np.testing.assert_allclose(results[True], xv * cv + (xv - cv) - np.array([4, 5, 6]), rtol=1e-6)
    np.testing.assert_array_equal(results[True], results[False])
