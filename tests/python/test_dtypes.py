"""PopART's data types on the CPU device: FLOAT16 ops and training (float arithmetic, rounded to half
on store), PopART's mixed FLOAT16 / FLOAT rules and their errors, the index types of Gather and
Scatter, ArgMax's INT32, Reduce with axes=[], Scan's shapes for Builder-made bodies. References are
NumPy / PyTorch in double precision, computed from the same 16-bit inputs."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import rand

H = np.float16


def run(popart, build, feeds, opset=13):
    """Builds `build(builder, aiOnnx, input ids)` over inputs shaped and typed like `feeds`, runs it
    once on the CPU and returns the outputs (a list)."""
    b = popart.Builder(opsets={"ai.onnx": opset, "ai.graphcore": 1})
    ids = [b.addInputTensor(popart.TensorInfo(a), "in%d" % i) for i, a in enumerate(feeds)]
    outs = build(b, b.aiOnnx, ids)
    outs = [outs] if isinstance(outs, str) else list(outs)
    for o in outs:
        b.addOutputTensor(o)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, outs),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO(dict(zip(ids, feeds)), a))
    return [a[o] for o in outs]


def t(x):
    return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64))


def assert_half_close(got, want, atol=2e-3):
    """A FLOAT16 result: the double reference rounded once to half, within a unit in the last place
    of half (float partials round differently) plus `atol` for sums of many terms."""
    assert got.dtype == np.float16
    want = np.asarray(want, np.float64)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2 ** -10, atol=atol)


X = rand(2, 3, 4, seed=1).astype(H)
P = (np.abs(rand(2, 3, 4, seed=2)) + 0.5).astype(H)
IMG = rand(2, 3, 6, 6, seed=3).astype(H)
W = (rand(4, 3, 3, 3, seed=4) * 0.5).astype(H)
B4 = rand(4, seed=5).astype(H)
C3 = [(np.abs(rand(3, seed=6)) + 0.5).astype(H), rand(3, seed=7).astype(H), rand(3, seed=8).astype(H),
      (np.abs(rand(3, seed=9)) + 0.5).astype(H)]
LOGITS = rand(3, 5, seed=10).astype(H)
LABELS = np.array([1, 4, 0], np.int32)


def const(ai, a):
    return ai.constant(np.asarray(a))


# name: (build, feeds, reference(*feeds as float64 torch tensors), opset)
CASES = {
    "conv": (lambda b, ai, i: ai.conv([i[0], const(ai, W), const(ai, B4)], pads=[1, 1, 1, 1]), [IMG],
             lambda x: F.conv2d(x, t(W), t(B4), padding=1)),
    "conv_strided_streamed_weights": (lambda b, ai, i: ai.conv([i[0], i[1]], strides=[2, 2]), [IMG, W],
                                      lambda x, w: F.conv2d(x, w, stride=2)),
    "convtranspose": (lambda b, ai, i: ai.convtranspose([i[0], const(ai, W[:3, :2])], strides=[2, 2]), [IMG],
                      lambda x: F.conv_transpose2d(x, t(W[:3, :2]), stride=2)),
    "matmul": (lambda b, ai, i: ai.matmul([i[0], i[1]]), [X, rand(4, 5, seed=11).astype(H)],
               lambda x, y: x @ y),
    "gemm": (lambda b, ai, i: ai.gemm([i[0], i[1], i[2]], 0.5, 2.0, 0, 1),
             [X[0], rand(5, 4, seed=12).astype(H), rand(3, 5, seed=13).astype(H)],
             lambda a, b, c: 0.5 * a @ b.T + 2.0 * c),
    "maxpool": (lambda b, ai, i: ai.maxpool([i[0]], 1, [3, 3], pads=[1, 1, 1, 1], strides=[2, 2])[0], [IMG],
                lambda x: F.max_pool2d(x, 3, 2, 1)),
    "averagepool": (lambda b, ai, i: ai.averagepool([i[0]], [2, 2], strides=[2, 2]), [IMG],
                    lambda x: F.avg_pool2d(x, 2)),
    "globalaveragepool": (lambda b, ai, i: ai.globalaveragepool([i[0]]), [IMG],
                          lambda x: x.mean((2, 3), keepdim=True)),
    "batchnormalization": (lambda b, ai, i: ai.batchnormalization([i[0]] + [const(ai, c) for c in C3], 1)[0],
                           [IMG], lambda x: F.batch_norm(x, t(C3[2]), t(C3[3]), t(C3[0]), t(C3[1]), eps=1e-5)),
    "instancenormalization": (lambda b, ai, i: ai.instancenormalization([i[0], const(ai, C3[0]), const(ai, C3[1])]),
                              [IMG], lambda x: F.instance_norm(x, weight=t(C3[0]), bias=t(C3[1]))),
    "layernormalization": (lambda b, ai, i: ai.layernormalization([i[0], const(ai, P[0, 0]), const(ai, X[0, 0])], 1)[0],
                           [X], lambda x: F.layer_norm(x, (4,), t(P[0, 0]), t(X[0, 0])), 17),
    "softmax": (lambda b, ai, i: ai.softmax([i[0]], 1), [X], lambda x: torch.softmax(x, 1)),
    "logsoftmax": (lambda b, ai, i: ai.logsoftmax([i[0]], 2), [X], lambda x: torch.log_softmax(x, 2)),
    "elementwise": (lambda b, ai, i: [ai.add([i[0], i[1]]), ai.div([i[0], i[1]]), ai.pow([i[1], i[0]]),
                                      ai.exp([i[0]]), ai.tanh([i[0]]), ai.sigmoid([i[0]]), ai.erf([i[0]]),
                                      ai.sqrt([i[1]]), ai.relu([i[0]]), ai.max([i[0], i[1]])],
                    [X, P], lambda x, p: [x + p, x / p, p ** x, torch.exp(x), torch.tanh(x), torch.sigmoid(x),
                                          torch.erf(x), torch.sqrt(p), torch.relu(x), torch.maximum(x, p)]),
    "reductions": (lambda b, ai, i: [ai.reducesum([i[0], const(ai, np.array([1], np.int64))], keepdims=0),
                                     ai.reducemean([i[0]], axes=[2]), ai.reducemax([i[0]], axes=[0, 2]),
                                     ai.reducel2([i[0]], axes=[1]), ai.reducelogsumexp([i[0]], axes=[2])],
                   [X], lambda x: [x.sum(1), x.mean(2, keepdim=True), x.amax((0, 2), keepdim=True),
                                   x.norm(dim=1, keepdim=True), torch.logsumexp(x, 2, keepdim=True)]),
    "losses": (lambda b, ai, i: [b.aiGraphcore.nllloss([ai.softmax([i[0]], 1), const(ai, LABELS)]),
                                 b.aiGraphcore.l1loss([i[0]], 0.5),
                                 b.aiGraphcore.identityloss([i[0]])],
               [LOGITS], lambda x: [F.cross_entropy(x, torch.tensor(LABELS, dtype=torch.long)),
                                    0.5 * x.abs().mean(), x.mean()]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_float16_ops_compute_in_float_and_round_to_half(popart, name):
    case = CASES[name]
    build, feeds, ref = case[:3]
    opset = case[3] if len(case) > 3 else 13
    got = run(popart, build, feeds, opset)
    want = ref(*[t(f) for f in feeds])
    want = [want] if isinstance(want, torch.Tensor) else want
    for g, w in zip(got, want):
        assert_half_close(g, w.detach().numpy())


def test_cast_between_float16_and_float(popart):
    x = rand(2, 3, seed=20)
    h16, back = run(popart, lambda b, ai, i: [ai.cast([i[0]], "FLOAT16"), ai.cast([ai.cast([i[0]], "FLOAT16")], "FLOAT")],
                    [x])
    assert h16.dtype == np.float16 and back.dtype == np.float32
    np.testing.assert_array_equal(h16, x.astype(H))  # round to nearest even, as numpy
    np.testing.assert_array_equal(back, x.astype(H).astype(np.float32))


# ------------------------------------------------------------------ training in FLOAT16

def cnn(popart, dtype, x, w0, w1, labels):
    """conv -> relu -> global average pool -> matmul -> softmax -> nllloss (mean)."""
    b = popart.Builder(opsets={"ai.onnx": 13, "ai.graphcore": 1})
    xi = b.addInputTensor(popart.TensorInfo(x.astype(dtype)), "x")
    li = b.addInputTensor(popart.TensorInfo(labels), "labels")
    c0 = b.addInitializedInputTensor(w0.astype(dtype), "w0")
    c1 = b.addInitializedInputTensor(w1.astype(dtype), "w1")
    ai = b.aiOnnx
    h = ai.relu([ai.conv([xi, c0], pads=[1, 1, 1, 1])])
    h = b.reshape_const(ai, [ai.globalaveragepool([h])], [x.shape[0], w0.shape[0]])
    probs = ai.softmax([ai.matmul([h, c1])], 1)
    loss = b.aiGraphcore.nllloss([probs, li])
    return b.getModelProto(), xi, li, c0, c1, loss


def train_step(popart, dtype, optimizer, steps=1):
    x = rand(2, 3, 5, 5, seed=30)
    w0 = rand(4, 3, 3, 3, seed=31) * 0.5
    w1 = rand(4, 6, seed=32)
    labels = np.array([2, 5], np.int32)
    proto, xi, li, c0, c1, loss = cnn(popart, dtype, x, w0, w1, labels)
    s = popart.TrainingSession(proto, popart.DataFlow(1, [loss]), loss, optimizer,
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    for _ in range(steps):
        s.run(popart.PyStepIO({xi: x.astype(dtype), li: labels}, a))
    out = {c0: np.zeros(w0.shape, dtype), c1: np.zeros(w1.shape, dtype)}
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO(out))
    return x, w0, w1, labels, out[c0], out[c1], s


def test_float16_sgd_step_matches_torch(popart):
    lr = 0.5
    x, w0, w1, labels, got0, got1, _ = train_step(popart, H, popart.ConstSGD(lr))
    assert got0.dtype == np.float16
    # The reference starts from the same half values and computes in double.
    tx, tw0, tw1 = t(x.astype(H)), t(w0.astype(H)).requires_grad_(), t(w1.astype(H)).requires_grad_()
    h = F.relu(F.conv2d(tx, tw0, padding=1)).mean((2, 3))
    loss = F.nll_loss(torch.log(torch.softmax(h @ tw1, 1)), torch.tensor(labels, dtype=torch.long))
    loss.backward()
    want0 = (tw0 - lr * tw0.grad).detach().numpy()
    want1 = (tw1 - lr * tw1.grad).detach().numpy()
    np.testing.assert_allclose(got0.astype(np.float64), want0, rtol=4e-3, atol=4e-3)
    np.testing.assert_allclose(got1.astype(np.float64), want1, rtol=4e-3, atol=4e-3)
    assert not np.allclose(got1, w1.astype(H))  # it moved


@pytest.mark.parametrize("make", [
    lambda p: p.SGD({"defaultLearningRate": (0.2, False), "defaultMomentum": (0.9, True),
                     "defaultWeightDecay": (0.01, True)}),
    lambda p: p.Adam({"defaultLearningRate": (0.02, False)}),
    lambda p: p.Adaptive({"defaultLearningRate": (0.02, True), "defaultMomentum": (0.5, True)}),
    lambda p: p.Adaptive({"defaultLearningRate": (0.02, True)}, mode=p.AdaptiveMode.CenteredRMSProp,
                         rmsprop_tf_variant=True),
], ids=["sgd1", "adam", "rmsprop_momentum", "centered_rmsprop_tf"])
def test_float16_weights_and_state_follow_the_float_run(popart, make):
    # Three steps with FLOAT16 weights (FLOAT16 velocity / Accl3, FLOAT Accl1 / Accl2 as PopART's
    # defaults) stay within half's precision of the same steps in FLOAT.
    *_, h0, h1, s16 = train_step(popart, H, make(popart), steps=3)
    *_, f0, f1, _ = train_step(popart, np.float32, make(popart), steps=3)
    assert h0.dtype == np.float16
    np.testing.assert_allclose(h0.astype(np.float32), f0, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(h1.astype(np.float32), f1, rtol=1e-2, atol=1e-2)


# ------------------------------------------------------------------ mixed FLOAT16 / FLOAT

def test_mul_by_a_float_scalar_gives_float16(popart):
    x = rand(2, 3, seed=40).astype(H)
    s = np.array(1.75, np.float32)
    (y,) = run(popart, lambda b, ai, i: ai.mul([i[0], i[1]]), [x, s])
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y, (x.astype(np.float32) * s).astype(H))


@pytest.mark.parametrize("op", ["add", "sub", "div", "sum", "less"])
def test_other_mixed_broadcasts_raise_popart_error(popart, op):
    x = rand(2, 3, seed=41).astype(H)
    y = rand(2, 3, seed=42)
    with pytest.raises(popart.popart_exception, match=r"np broadcasting failed, incompatible types FLOAT16 and FLOAT "
                                                      r"\(shapes \[2 3\] and \[2 3\]\)"):
        run(popart, lambda b, ai, i: getattr(ai, op)([i[0], i[1]]), [x, y])


def test_mul_of_same_shaped_float16_and_float_is_refused(popart):
    with pytest.raises(popart.popart_exception, match="incompatible types FLOAT16 and FLOAT"):
        run(popart, lambda b, ai, i: ai.mul([i[0], i[1]]), [rand(2, 3, seed=43).astype(H), rand(2, 3, seed=44)])


def test_batchnorm_training_float16_data_float_variance(popart):
    # PopART's batchnorm_train_half_fp32var: FLOAT16 X, scale, B, mean; FLOAT var. The running var
    # keeps var's type; the update writes it back.
    x = (rand(2, 3, 2, 2, seed=45) * 10).astype(H)
    scale, bias, mean = [(np.abs(rand(3, seed=s)) + 0.5).astype(H) for s in (46, 47, 48)]
    var = (np.abs(rand(3, seed=49)) + 0.5).astype(np.float32)
    b = popart.Builder(opsets={"ai.onnx": 9, "ai.graphcore": 1})
    xi = b.addInputTensor(popart.TensorInfo(x), "x")
    ids = [b.addInitializedInputTensor(v, n) for v, n in zip((scale, bias, mean, var), ("sc", "b", "m", "v"))]
    y = b.aiOnnx.batchnormalization([xi] + ids, 5, 1e-5, 0.1)[0]
    loss = b.aiGraphcore.identityloss([y])
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [y]), loss, popart.ConstSGD(0.01),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({xi: x}, a))
    xd = x.astype(np.float64)
    bm, bv = xd.mean((0, 2, 3)), xd.var((0, 2, 3))
    want = (xd - bm[None, :, None, None]) / np.sqrt(bv[None, :, None, None] + 1e-5) * \
        scale.astype(np.float64)[None, :, None, None] + bias.astype(np.float64)[None, :, None, None]
    assert_half_close(a[y], want, atol=4e-3)
    out = {"v": np.zeros(3, np.float32), "m": np.zeros(3, H)}
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO(out))
    np.testing.assert_allclose(out["v"], 0.1 * var + 0.9 * bv, rtol=1e-3)
    np.testing.assert_allclose(out["m"].astype(np.float64), 0.1 * mean.astype(np.float64) + 0.9 * bm, rtol=2e-3,
                               atol=2e-3)


# ------------------------------------------------------------------ indices, ArgMax, Reduce, Scan

@pytest.mark.parametrize("itype", [np.int32, np.int64, np.uint32])
def test_gather_indices_of_every_index_type_train(popart, itype):
    table = rand(5, 3, seed=50)
    idx = np.array([[4, 0], [4, 2]], itype)
    b = popart.Builder(opsets={"ai.onnx": 13, "ai.graphcore": 1})
    ii = b.addInputTensor(popart.TensorInfo(idx), "idx")
    w = b.addInitializedInputTensor(table, "table")
    g = b.aiOnnx.gather([w, ii], axis=0)
    ge = b.aiOnnx.gatherelements([w, b.aiOnnx.constant(np.array([[1, 0, 4]], itype))], axis=0)
    se = b.aiOnnx.scatterelements([w, b.aiOnnx.constant(np.array([[2, 1]], itype)),
                                   b.aiOnnx.constant(np.array([[7.0, 8.0]], np.float32))], axis=1)
    loss = b.aiGraphcore.l1loss([g], 1.0, reduction=popart.ReductionType.Sum)
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [g, ge, se]), loss, popart.ConstSGD(0.1),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({ii: idx}, a))
    np.testing.assert_array_equal(a[g], table[idx.astype(np.int64)])
    np.testing.assert_array_equal(a[ge], table[[1, 0, 4], [0, 1, 2]][None])
    want_se = table.copy()
    want_se[0, 2], want_se[0, 1] = 7.0, 8.0
    np.testing.assert_array_equal(a[se], want_se)
    # d|table[idx]|/dtable: sign(row) added once per use (row 4 twice).
    grad = np.zeros_like(table)
    np.add.at(grad, idx.astype(np.int64).ravel(), np.sign(table[idx.astype(np.int64).ravel()]))
    out = {w: np.zeros_like(table)}
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO(out))
    np.testing.assert_allclose(out[w], table - 0.1 * grad, rtol=1e-6)


def test_argmax_argmin_give_int32(popart):
    x = np.array([[1, 5, 2], [9, 0, 9]], np.float32)
    mx, mn = run(popart, lambda b, ai, i: [ai.argmax([i[0]], axis=1, keepdims=0, select_last_index=1),
                                           ai.argmin([i[0]], axis=0)], [x])
    assert mx.dtype == np.int32 and mn.dtype == np.int32
    np.testing.assert_array_equal(mx, [1, 2])
    np.testing.assert_array_equal(mn, [[0, 1, 0]])


@pytest.mark.parametrize("op, ref", [("reducesum", np.sum), ("reducemean", np.mean), ("reducemax", np.max),
                                     ("reducesumsquare", lambda x, axis, keepdims: np.sum(x * x, axis=axis,
                                                                                          keepdims=keepdims)),
                                     ("reducel1", lambda x, axis, keepdims: np.sum(np.abs(x), axis=axis,
                                                                                   keepdims=keepdims))])
@pytest.mark.parametrize("axes", [[], None, [1]])
def test_reduce_axes_as_popart(popart, op, ref, axes):
    # axes=[] reduces over no axis (numpy's axis=()), None over every axis.
    x = rand(2, 3, 4, seed=60)
    (y,) = run(popart, lambda b, ai, i: getattr(ai, op)([i[0]], axes=axes, keepdims=0), [x], opset=11)
    want = ref(x.astype(np.float64), axis=None if axes is None else tuple(axes), keepdims=False)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", ["zip", "add"])
def test_scan_of_a_builder_body_over_scalar_slices(popart, op):
    # PopART's Scan with an untyped body: a rank-1 input gives [1] slices, and the outputs are
    # concatenated along their axis.
    d0 = np.array([0, 2, 4, 6], np.float32)
    d1 = np.array([1, 3, 5, 7], np.float32)

    def build(b, ai, i):
        body = b.createSubgraphBuilder()
        a0 = body.addUntypedInputTensor()
        a1 = body.addUntypedInputTensor()
        body.addOutputTensor(body.aiOnnx.concat([a0, a1], 0) if op == "zip" else body.aiOnnx.add([a0, a1]))
        return ai.scan([i[0], i[1]], 1, num_scan_inputs=2, body=body, scan_input_directions=[0, 1])[0]

    (y,) = run(popart, build, [d0, d1], opset=11)
    want = np.stack([d0, d1[::-1]], 1).ravel() if op == "zip" else d0 + d1[::-1]
    np.testing.assert_array_equal(y, want)
