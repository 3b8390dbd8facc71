"""PopART's behaviour where this runtime used to differ, written from PopART's documented behaviour
and its public source (graphcore/popart): the exception's args[0] is PopART's sentence for the
mistake (scripts compare it with ==, startswith, endswith) while the context this runtime adds (the
node, its inputs, the gradient being built) is in `fullMessage` and the exception's notes; MatMul
gradients with 1-D operands; the gradient of a Constant-produced tensor; INT64 data for an INT32
input; Mod with fmod=0 on floats; ScaledAdd's tensor scales; DynamicSlice's slice input; the
builder leaving out attributes at their schema default; RNN / GRU gradients with computed
sequence lengths (checked against central finite differences)."""
import numpy as np
import pytest


def session_error(popart, build, opsets=None, train=False, ipu_model=False):
    """The popart_exception of a session on the model `build(builder)` returns the output of (on
    the IPU model with `ipu_model`: its static-shape rule is PopART's, where the CPU device plans
    shapes at run time)."""
    b = popart.Builder(opsets=opsets) if opsets else popart.Builder()
    out = build(b)
    b.addOutputTensor(out)
    dm = popart.DeviceManager()
    dev = dm.createIpuModelDevice({"numIPUs": 1}) if ipu_model else dm.createCpuDevice()
    with pytest.raises(popart.popart_exception) as e:
        if train:
            loss = b.aiGraphcore.identityloss([out])
            popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [out]), loss,
                                   popart.ConstSGD(0.1), dev)
        else:
            popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [out]), dev)
    return e.value


def run(popart, build, feeds, anchors_of=None, train=False, inputs_are=None):
    """Runs the model once; returns the anchors. build(b) returns the output id."""
    b = popart.Builder()
    ids = {name: b.addInputTensor(popart.TensorInfo(inputs_are.get(name, arr) if inputs_are else arr), name)
           for name, arr in feeds.items()}
    out = build(b, ids)
    b.addOutputTensor(out)
    anchors = [out] + (anchors_of(ids, out) if anchors_of else [])
    dev = popart.DeviceManager().createCpuDevice()
    if train:
        loss = b.aiGraphcore.identityloss([out], reduction=popart.ReductionType.Sum)
        s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, anchors), loss,
                                   popart.ConstSGD(0.1), dev)
    else:
        s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, anchors), dev)
    s.prepareDevice()
    out_arrays = s.initAnchorArrays()
    s.run(popart.PyStepIO({ids[k]: v for k, v in feeds.items()}, out_arrays))
    return out_arrays, ids, out


# ---------------------------------------------------------------- messages


@pytest.mark.parametrize("op", ["reducesum", "reducemean", "reducemax", "reducel2", "reducelogsumexp"])
@pytest.mark.parametrize("axis", [-3, 2])
def test_reduce_axis_out_of_range_is_popart_sentence_exactly(popart, op, axis):
    def build(b):
        x = b.addInputTensor("FLOAT", [4, 5], "x")
        return getattr(b.aiOnnx, op)([x], axes=[axis], debugContext="r")
    e = session_error(popart, build)
    assert e.args[0] == "Axis %d is out of acceptable range [-2, 1]" % axis
    # str() is args[0]; the node is in the full message (and the note tracebacks print).
    assert str(e) == e.args[0]
    assert "node 'r'" in e.fullMessage and e.fullMessage.startswith(e.args[0])
    assert e.fullMessage in getattr(e, "__notes__", [e.fullMessage])


def test_reducemedian_axis_out_of_range(popart):
    def build(b):
        x = b.addInputTensor("FLOAT", [3], "x")
        return b.aiGraphcore.reducemedian([x], axes=[1])[0]
    assert session_error(popart, build).args[0] == "Axis 1 is out of acceptable range [-1, 0]"


def test_transpose_perm_rank(popart):
    def build(b):
        x = b.addInputTensor("FLOAT", [1, 3, 2, 7], "x")
        return b.aiOnnx.transpose([x], perm=[1, 0, 2])
    assert session_error(popart, build).args[0] == (
        "Rank of permutation tensor [1 0 2], rank 3 must be equal to rank of input tensor, shape [1 3 2 7], rank 4.")


def test_reshape_two_unknown_dims(popart):
    def build(b):
        x = b.addInputTensor("FLOAT", [2, 3, 4], "x")
        s = b.aiOnnx.constant(np.array([-1, 4, -1], dtype=np.int64))
        return b.aiOnnx.reshape([x, s])
    msg = session_error(popart, build).args[0]
    assert msg.startswith("shape input to ReshapeOp can only use -1 to specify one unknown dimension"), msg


def test_tile_repeats_errors(popart):
    def streamed(b):
        x = b.addInputTensor("FLOAT", [2, 3], "x")
        r = b.addInputTensor("INT64", [2], "reps")
        return b.aiOnnx.tile([x, r])

    def wrong_length(b):
        x = b.addInputTensor("FLOAT", [2, 3], "x")
        return b.aiOnnx.tile([x, b.aiOnnx.constant(np.array([1, 2, 3], dtype=np.int64), "reps")])
    assert session_error(popart, streamed, ipu_model=True).args[0] == (
        "The 'Repeats' Tensor `reps' must be of type Constant")
    assert session_error(popart, wrong_length).args[0].endswith(
        "' should have one element for each dimension of the data tensor")


def test_expand_and_broadcast_messages(popart):
    def expand(b):
        x = b.addInputTensor("FLOAT", [5, 4, 3], "x")
        return b.aiOnnx.expand([x, b.aiOnnx.constant(np.array([3, 4, 2], dtype=np.int64))])

    def add(b):
        x = b.addInputTensor("FLOAT", [10, 10], "A")
        y = b.addInputTensor("FLOAT", [10, 5], "B")
        return b.aiOnnx.add([x, y], "C")
    msg = session_error(popart, expand).args[0]
    assert msg.startswith("Expand shape constraint: corresponding dimensions must have the same value or one of them "
                          "must be 1"), msg
    msg = session_error(popart, add).args[0]
    assert msg.startswith("np broadcasting failed on 'Op(C"), msg
    assert "ai.onnx.Add" in msg and "frames [10, 10] and [10, 5] are not aligned" in msg


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_variadic_opset7_needs_equal_shapes(popart, op):
    def build(b):
        x = b.addInputTensor("FLOAT", [2, 3], "x")
        y = b.addInputTensor("FLOAT", [3], "y")
        return getattr(b.aiOnnx, op)([x, y])
    msg = session_error(popart, build, opsets={"ai.onnx": 7, "ai.graphcore": 1}).args[0]
    assert msg.startswith("Inputs to ai.onnx.%s:6 do not all the same type & shape" % op.capitalize()), msg


def test_variadic_opset8_broadcasts(popart):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.array([1, 2, 3], dtype=np.float32)
    out, _, o = run(popart, lambda b, i: b.aiOnnx.mean([i["x"], i["y"]]), {"x": x, "y": y})
    np.testing.assert_allclose(out[o], (x + y) / 2)


def test_reverse_dimensions(popart):
    def build(dims):
        def f(b):
            x = b.addInputTensor("FLOAT", [2, 3], "x")
            return b.aiGraphcore.reverse([x], dims, "rev")
        return f
    assert "invalid dimension '-1'. Only positive dimensions are supported" in session_error(popart, build([-1])).args[0]
    assert "Dimension 1 appears multiple times" in session_error(popart, build([1, 1])).args[0]
    assert "for input tensor of rank 2" in session_error(popart, build([2])).args[0]


def test_dropout_ratio(popart):
    def build(b):
        x = b.addInputTensor("FLOAT", [4], "x")
        return b.aiOnnxOpset10.dropout([x], num_outputs=1, ratio=1.5)[0]
    assert session_error(popart, build).args[0].endswith("Please use a value in the interval [0,1)")


def _dropout_run(popart, opset, train, seed, steps=2, n=200):
    """x (ones) -> Dropout(ratio 0.5) -> identityloss; returns (y, dL/dx) for each step."""
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [n], "x")
    y = getattr(b, "aiOnnxOpset%d" % opset).dropout([x], 1, 0.5)[0]
    loss = b.aiGraphcore.identityloss([y], reduction=popart.ReductionType.Sum)
    grad = popart.reservedGradientPrefix() + x
    dev = popart.DeviceManager().createCpuDevice()
    if train:
        s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(steps, [y, grad]), loss,
                                   popart.ConstSGD(0.1), dev)
    else:
        s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(steps, [y]), dev)
    s.prepareDevice()
    s.setRandomSeed(seed)
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: np.ones((steps, n), np.float32)}, a))
    return a[y], a.get(grad)


@pytest.mark.parametrize("opset", [7, 10, 11])
def test_dropout_acts_in_a_training_session(popart, opset):
    """PopART applies Dropout 6-11 in a TrainingSession (its DropoutOp; only inference makes it the
    identity): kept elements scaled by 1/(1 - ratio), the gradient through the same mask, a new
    mask each step, the same masks for the same seed."""
    y, g = _dropout_run(popart, opset, True, 0)
    kept = y != 0
    assert 0.3 < kept.mean() < 0.7
    np.testing.assert_array_equal(y[kept], 2.0)
    np.testing.assert_array_equal(g, np.where(kept, 2.0, 0.0))
    assert not np.array_equal(kept[0], kept[1])
    np.testing.assert_array_equal(_dropout_run(popart, opset, True, 0)[0], y)
    assert not np.array_equal(_dropout_run(popart, opset, True, 11583)[0] != 0, kept)
    # Inference: the identity.
    np.testing.assert_array_equal(_dropout_run(popart, opset, False, 0)[0], 1.0)


def test_set_random_seed_before_prepare(popart):
    """PopART: a session with random behaviour needs prepareDevice first; one without warns and
    does nothing, prepared or not."""
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [10], "x")
    y = b.aiOnnxOpset10.dropout([x], 1, 0.3)[0]
    loss = b.aiGraphcore.identityloss([y])
    dev = popart.DeviceManager().createCpuDevice()
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [y]), loss, popart.ConstSGD(0.1), dev)
    with pytest.raises(popart.popart_exception) as e:
        s.setRandomSeed(0)
    assert e.value.args[0] == ("Devicex::prepare() must be called before Devicex::setRandomSeedFromHost(uint64_t) is "
                               "called.")
    s.prepareDevice()
    s.setRandomSeed(0)
    i = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y]), dev)  # Dropout: the identity
    i.setRandomSeed(0)


def test_non_scalar_loss_and_label_shape(popart):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2, 3], "x")
    loss = b.aiGraphcore.identityloss([x], reduction=popart.ReductionType.NoReduction)
    with pytest.raises(popart.popart_exception) as e:
        popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, popart.ConstSGD(0.1),
                               popart.DeviceManager().createCpuDevice())
    assert e.value.args[0].endswith("must be a scalar tensor")
    assert "(it is FLOAT [2 3])" in e.value.fullMessage

    def nll(b):
        p = b.addInputTensor("FLOAT", [2, 4, 3], "p")
        lb = b.addInputTensor("INT32", [2, 5], "lb")
        return b.aiGraphcore.nllloss([p, lb])
    assert session_error(popart, nll).args[0] == (
        "The label tensor (INT32   [2 5]) must have shape [2 4] to match all but the final dimension of the "
        "probabilities tensor (FLOAT   [2 4 3])")


# ---------------------------------------------------------------- behaviour


def test_rnn_builder_leaves_out_default_attributes(popart):
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2, 1, 3], "x")
    w = b.addInputTensor("FLOAT", [1, 2, 3], "w")
    r = b.addInputTensor("FLOAT", [1, 2, 2], "r")
    y = b.aiOnnx.rnn([x, w, r], 2, direction="forward")
    # PopART's builder writes an optional attribute only when it is not the schema default, so a
    # script may add it afterwards.
    assert not b.nodeHasAttribute("direction", set(y))
    b.addNodeAttribute("direction", "forward", set(y))
    b.addNodeAttribute("activations", ["Relu"], set(y))
    assert b.getStringNodeAttribute("direction", set(y)) == "forward"
    y2 = b.aiOnnx.rnn([x, w, r], 2, direction="reverse")
    assert b.getStringNodeAttribute("direction", set(y2)) == "reverse"


def test_mod_fmod0_on_floats_is_numpy_mod(popart):
    a = np.array([-4.3, 7.2, 5.0, 4.3, -7.2, 8.0], dtype=np.float32)
    d = np.array([2.1, -3.4, 8.0, -2.1, 3.4, 5.0], dtype=np.float32)
    out, _, o = run(popart, lambda b, i: b.aiOnnx.mod([i["a"], i["d"]], 0), {"a": a, "d": d})
    np.testing.assert_allclose(out[o], np.mod(a.astype(np.float64), d.astype(np.float64)), rtol=1e-5, atol=1e-5)


def test_scaledadd_tensor_scales(popart):
    x = np.array([1.0, 2.0, -3.0], dtype=np.float32)
    y = np.array([0.5, -1.0, 4.0], dtype=np.float32)
    s0 = np.array([0.25], dtype=np.float32)
    s1 = np.array([-3.0], dtype=np.float32)
    out, _, o = run(popart, lambda b, i: b.aiGraphcore.scaledadd([i["x"], i["y"], i["s0"], i["s1"]]),
                    {"x": x, "y": y, "s0": s0, "s1": s1})
    np.testing.assert_allclose(out[o], 0.25 * x.astype(np.float64) - 3.0 * y, rtol=1e-6)


def test_dynamicslice_takes_the_slice_inputs_shape(popart):
    data = np.random.default_rng(0).standard_normal((5, 4, 3)).astype(np.float32)

    def build(b, i):
        slice_in = b.aiGraphcore.init([4, 3], popart.DataType.FLOAT, popart.InitType.Zero, "slice_in")
        return b.aiGraphcore.dynamicslice([i["data"], i["idx"], slice_in], axes=[0], sizes=[1], noOverlap=True)
    out, _, o = run(popart, build, {"data": data, "idx": np.array([3], dtype=np.uint32)})
    assert out[o].shape == (4, 3)
    np.testing.assert_array_equal(out[o], data[3])


def test_int64_data_for_an_int32_input_is_converted(popart):
    x = np.array([0.5, 1.5, 2.5], dtype=np.float32)
    idx = np.array([2, 0], dtype=np.int64)  # NumPy's default integers for an INT32 input
    out, _, o = run(popart, lambda b, i: b.aiOnnx.gather([i["x"], i["idx"]]), {"x": x, "idx": idx},
                    inputs_are={"idx": np.zeros(2, np.int32)})
    np.testing.assert_array_equal(out[o], x[[2, 0]])

    too_big = np.array([2 ** 40, 0], dtype=np.int64)
    with pytest.raises(popart.popart_exception, match="does not fit INT32"):
        run(popart, lambda b, i: b.aiOnnx.gather([i["x"], i["idx"]]), {"x": x, "idx": too_big},
            inputs_are={"idx": np.zeros(2, np.int32)})


def test_gradient_of_a_constant_can_be_anchored(popart):
    d = np.array([[-1, -2, -3], [4, 5, 6], [7, 8, 9]], dtype=np.float32)
    b = popart.Builder()
    c = b.aiOnnx.constant(d)
    i = b.aiOnnx.constant(np.array([0, 2, 2], dtype=np.int32))
    o = b.aiOnnx.gather([c, i], axis=0)
    b.addOutputTensor(o)
    loss = b.aiGraphcore.identityloss([o], reduction=popart.ReductionType.Sum)
    gc = popart.reservedGradientPrefix() + c
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [o, gc]), loss, popart.ConstSGD(0.1),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, out))
    np.testing.assert_array_equal(out[o], d[[0, 2, 2]])
    # d(sum(gather))/dc counts how often each row is gathered.
    np.testing.assert_array_equal(out[gc], np.array([1, 0, 2], np.float32)[:, None] * np.ones((1, 3), np.float32))


def finite_difference_grads(f, arrays, h=1e-3):
    """Central differences (in float64) of the scalar f(*arrays) with respect to each array."""
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros(a.shape)
        for idx in np.ndindex(a.shape):
            plus = [x.astype(np.float64).copy() for x in arrays]
            minus = [x.astype(np.float64).copy() for x in arrays]
            plus[k][idx] += h
            minus[k][idx] -= h
            g[idx] = (f(*plus) - f(*minus)) / (2 * h)
        grads.append(g)
    return grads


@pytest.mark.parametrize("sa, sb", [((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)), ((1,), (4, 2, 1, 3)),
                                    ((1, 4, 3, 2), (2,))])
def test_matmul_gradients_with_one_dimensional_operands(popart, sa, sb):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(sa).astype(np.float32)
    bm = rng.standard_normal(sb).astype(np.float32)
    c = rng.standard_normal(np.matmul(a, bm).shape).astype(np.float32)

    def build(b, i):
        return b.aiOnnx.mul([b.aiOnnx.matmul([i["a"], i["b"]]), i["c"]])
    grads = lambda ids, _: [popart.reservedGradientPrefix() + ids["a"], popart.reservedGradientPrefix() + ids["b"]]
    out, ids, _ = run(popart, build, {"a": a, "b": bm, "c": c}, anchors_of=grads, train=True)
    ga, gb = finite_difference_grads(lambda x, y: float(np.sum(np.matmul(x, y) * c)), [a, bm])
    np.testing.assert_allclose(out[popart.reservedGradientPrefix() + ids["a"]], ga, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(out[popart.reservedGradientPrefix() + ids["b"]], gb, rtol=1e-3, atol=1e-3)


def rnn_reference(x, w, r, h0, lens):
    """ONNX RNN (tanh, forward) in float64: steps past an entry's length keep its state, output 0."""
    S, N, _ = x.shape
    h = h0[0].astype(np.float64)
    ys = np.zeros((S, 1, N, h.shape[1]))
    for t in range(S):
        nh = np.tanh(x[t] @ w[0].T + h @ r[0].T)
        valid = (t < lens)[:, None]
        ys[t, 0] = np.where(valid, nh, 0)
        h = np.where(valid, nh, h)
    return ys, h[None]


@pytest.mark.parametrize("cell", ["rnn", "gru"])
def test_recurrent_gradient_with_computed_sequence_lengths(popart, cell):
    """sequence_lens computed at run time (a streamed INT32 input): the gradient masks the steps past
    each sequence as the forward pass does; checked against central differences of the model."""
    rng = np.random.default_rng(2)
    S, N, I, H = 3, 2, 2, 2
    G = 1 if cell == "rnn" else 3
    x = rng.uniform(-1, 1, (S, N, I)).astype(np.float32)
    w = rng.uniform(-0.7, 0.7, (1, G * H, I)).astype(np.float32)
    r = rng.uniform(-0.7, 0.7, (1, G * H, H)).astype(np.float32)
    h0 = rng.uniform(-0.5, 0.5, (1, N, H)).astype(np.float32)
    lens = np.array([3, 1], dtype=np.int32)
    c = rng.uniform(-1, 1, (S, 1, N, H)).astype(np.float32)

    def build(b, i):
        y = getattr(b.aiOnnx, cell)([i["x"], i["w"], i["r"], "", i["lens"], i["h0"]], 2)
        return b.aiOnnx.add([b.aiOnnx.reducesum([b.aiOnnx.mul([y[0], i["c"]])], keepdims=0),
                             b.aiOnnx.reducesum([y[1]], keepdims=0)])
    feeds = {"x": x, "w": w, "r": r, "lens": lens, "h0": h0, "c": c}
    names = ["x", "w", "r", "h0"]
    grads = lambda ids, _: [popart.reservedGradientPrefix() + ids[n] for n in names]
    out, ids, o = run(popart, build, feeds, anchors_of=grads, train=True)

    def value(**kw):
        arrays = dict(feeds, **kw)
        out2, _, o2 = run(popart, build, {k: (v.astype(np.float32) if v.dtype == np.float64 else v)
                                          for k, v in arrays.items()})
        return float(out2[o2])
    if cell == "rnn":  # the forward value itself against NumPy in float64
        ys, hn = rnn_reference(x, w, r, h0, lens)
        np.testing.assert_allclose(out[o], np.sum(ys * c) + np.sum(hn), rtol=1e-5)
    h = 1e-2
    for n in names:
        g = out[popart.reservedGradientPrefix() + ids[n]]
        a = feeds[n]
        for idx in list(np.ndindex(a.shape))[:6]:
            p, m = a.copy(), a.copy()
            p[idx] += h
            m[idx] -= h
            fd = (value(**{n: p}) - value(**{n: m})) / (2 * h)
            assert abs(g[idx] - fd) < 2e-3, (n, idx, g[idx], fd)


def test_integer_loss_gives_integer_gradients(popart):
    """An IdentityLoss of INT32 data is differentiated in INT32 (PopART trains reducemedian on INT32
    data): d sum(median(x, axis 1)) / dx is 1 at each row's median, 0 elsewhere."""
    rng = np.random.default_rng(3)
    x = rng.choice(1000, size=(3, 5), replace=False).astype(np.int32)
    b = popart.Builder()
    xi = b.addInputTensor(popart.TensorInfo("INT32", [3, 5]), "x")
    med = b.aiGraphcore.reducemedian([xi], axes=[1], keepdims=0)[0]
    s = b.aiOnnx.reducesum([med], keepdims=0)
    loss = b.aiGraphcore.identityloss([s])
    gx = popart.reservedGradientPrefix() + xi
    sess = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [s, gx]), loss, popart.ConstSGD(0.1),
                                  popart.DeviceManager().createCpuDevice())
    sess.prepareDevice()
    out = sess.initAnchorArrays()
    sess.run(popart.PyStepIO({xi: x}, out))
    assert out[s] == np.sum(np.median(x, axis=1))
    want = (x == np.median(x, axis=1, keepdims=True)).astype(np.int32)
    assert out[gx].dtype == np.int32
    np.testing.assert_array_equal(out[gx], want)


def test_slice_starts_not_known_when_building(popart):
    def build(b):
        x = b.addInputTensor("FLOAT", [2, 4], "x")
        starts = b.addInputTensor("INT32", [2], "st")
        ends = b.aiOnnx.constant(np.array([2, 3], dtype=np.int32))
        return b.aiOnnx.slice([x, starts, ends])
    e = session_error(popart, build, ipu_model=True)
    assert e.args[0] == ("Need the value of the ai.onnx.Slice:10 input 'starts' to determine the output shape, but was "
                         "unable because [Tensor::getDataViaGraphTraversal] Could not work out tensor data for st.")
    assert "computed at run time" in e.fullMessage


def test_builder_shape_inference_is_onnx_lenient_as_popart(popart):
    """PopART's Builder runs ONNX's shape inference: And / Or / Xor / Not of FLOAT tensors get the
    broadcast shape (a session still wants BOOL), and Subsample's inferred shape is floor(d / s)
    while the op outputs ceil(d / s) elements."""
    import numpy as np
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [1, 2, 5, 5]))
    y = b.addInputTensor(popart.TensorInfo("FLOAT", [1, 2, 5, 5]))
    for op in ("logical_and", "logical_or", "logical_xor"):
        assert b.getTensorShape(getattr(b.aiOnnx, op)([x, y])) == [1, 2, 5, 5]
    n = b.aiOnnx.logical_not([x])
    assert b.getTensorShape(n) == [1, 2, 5, 5]
    b.addOutputTensor(n)
    with pytest.raises(popart.popart_exception):
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [n]), popart.DeviceManager().createCpuDevice())

    b = popart.Builder()
    i = b.addInputTensor(popart.TensorInfo("FLOAT", [10, 9, 8, 7]))
    o = b.aiGraphcore.subsample([i], strides=[2, 3, 4, 5])
    assert b.getTensorShape(o) == [5, 3, 2, 1]
    b.addOutputTensor(o)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [o]), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    data = np.arange(10 * 9 * 8 * 7, dtype=np.float32).reshape(10, 9, 8, 7)
    s.run(popart.PyStepIO({i: data}, a))
    np.testing.assert_array_equal(a[o], data[::2, ::3, ::4, ::5])  # ceil(d / s) elements
