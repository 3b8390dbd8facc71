"""Gradients as PopART gives them, from its documented behaviour: anchoring
`popart.reservedGradientPrefix() + id` in a TrainingSession returns the gradient of the loss with
respect to any floating-point tensor on a path to the loss (stream inputs, activations, weights,
the loss itself), scaled by the loss scaling; the gradients are checked against PyTorch autograd.
Gradients that cannot exist (no path to the loss, integer tensors, inference sessions) and
non-scalar losses give PopART's errors."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")


def grad(popart, tid):
    return popart.reservedGradientPrefix() + tid


def train_once(popart, cpu, proto, loss, anchors, inputs, optimizer=None, batches=1):
    optimizer = optimizer or popart.SGD({"defaultLearningRate": (0.1, True)})
    s = popart.TrainingSession(proto, popart.DataFlow(batches, anchors), loss, optimizer, cpu)
    s.prepareDevice()
    s.weightsFromHost()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO(inputs, out))
    return s, out


def mlp(popart, x_np, w_np, b_np):
    """x (input) -> h = tanh(x @ w + b) -> s = sin(h) * x[:, :1] -> loss = mean(s^2)."""
    bld = popart.Builder()
    x = bld.addInputTensor(popart.TensorInfo("FLOAT", list(x_np.shape)), "x")
    w = bld.addInitializedInputTensor(w_np, "w")
    b = bld.addInitializedInputTensor(b_np, "b")
    ai = bld.aiOnnx
    h = ai.tanh([ai.add([ai.matmul([x, w]), b])], "h")
    col = ai.gather([x, bld.aiOnnx.constant(np.array([0], dtype=np.int64))], axis=1)
    s = ai.mul([ai.sin([h]), col], "s")
    loss = bld.aiGraphcore.identityloss([ai.mul([s, s])], reduction=popart.ReductionType.Mean)
    bld.addOutputTensor(loss)
    return bld.getModelProto(), x, w, b, h, s, loss


def torch_mlp(x_np, w_np, b_np):
    x = torch.tensor(x_np, dtype=torch.float64, requires_grad=True)
    w = torch.tensor(w_np, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(b_np, dtype=torch.float64, requires_grad=True)
    h = torch.tanh(x @ w + b)
    h.retain_grad()
    s = torch.sin(h) * x[:, :1]
    s.retain_grad()
    loss = (s * s).mean()
    loss.backward()
    return x.grad.numpy(), w.grad.numpy(), b.grad.numpy(), h.grad.numpy(), s.grad.numpy(), loss.item()


def test_input_activation_and_weight_gradients_match_pytorch(popart, cpu):
    rng = np.random.default_rng(0)
    x_np = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    w_np = rng.uniform(-1, 1, (3, 5)).astype(np.float32)
    b_np = rng.uniform(-1, 1, (5,)).astype(np.float32)
    proto, x, w, b, h, s, loss = mlp(popart, x_np, w_np, b_np)
    anchors = [loss, grad(popart, x), grad(popart, w), grad(popart, b), grad(popart, h), grad(popart, s),
               grad(popart, loss)]
    _, out = train_once(popart, cpu, proto, loss, anchors, {x: x_np})
    gx, gw, gb, gh, gs, lv = torch_mlp(x_np, w_np, b_np)
    np.testing.assert_allclose(out[loss], lv, rtol=1e-5)
    # x feeds the MatMul and the Gather: its two contributions are summed.
    np.testing.assert_allclose(out[grad(popart, x)], gx, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out[grad(popart, w)], gw, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out[grad(popart, b)], gb, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out[grad(popart, h)], gh, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out[grad(popart, s)], gs, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out[grad(popart, loss)], 1.0)


def test_gradients_carry_the_loss_scaling_and_follow_the_anchor_return_type(popart, cpu):
    rng = np.random.default_rng(1)
    x_np = rng.uniform(-1, 1, (3, 4, 3)).astype(np.float32)  # 3 batches per step
    w_np = rng.uniform(-1, 1, (3, 5)).astype(np.float32)
    b_np = np.zeros(5, np.float32)
    proto, x, w, b, h, s, loss = mlp(popart, x_np[0], w_np, b_np)
    opt = popart.SGD({"defaultLearningRate": (0.0, False), "lossScaling": (4.0, True)})
    sess = popart.TrainingSession(proto, popart.DataFlow(3, {grad(popart, x): popart.AnchorReturnType("All")}), loss,
                                  opt, cpu)
    sess.prepareDevice()
    sess.weightsFromHost()
    out = sess.initAnchorArrays()
    assert out[grad(popart, x)].shape == (3, 4, 3)
    sess.run(popart.PyStepIO({x: x_np}, out))
    for i in range(3):
        np.testing.assert_allclose(out[grad(popart, x)][i], 4.0 * torch_mlp(x_np[i], w_np, b_np)[0], rtol=1e-4,
                                   atol=1e-6)


def test_detach_stops_the_gradient(popart, cpu):
    bld = popart.Builder()
    x = bld.addInputTensor(popart.TensorInfo("FLOAT", [3]), "x")
    ai, gc = bld.aiOnnx, bld.aiGraphcore
    loss = gc.identityloss([ai.mul([x, gc.detach([ai.exp([x])])])], reduction=popart.ReductionType.Sum)
    bld.addOutputTensor(loss)
    x_np = np.array([0.5, -1.0, 2.0], np.float32)
    _, out = train_once(popart, cpu, bld.getModelProto(), loss, [grad(popart, x)], {x: x_np})
    np.testing.assert_allclose(out[grad(popart, x)], np.exp(x_np), rtol=1e-6)  # not (1 + x) e^x


def gather_model(popart):
    bld = popart.Builder()
    x = bld.addInputTensor(popart.TensorInfo("FLOAT", [4]), "x")
    idx = bld.addInputTensor(popart.TensorInfo("INT32", [2]), "idx")
    ai = bld.aiOnnx
    side = ai.exp([x], "side")
    loss = bld.aiGraphcore.identityloss([ai.gather([x, idx])], reduction=popart.ReductionType.Sum)
    bld.addOutputTensor(loss)
    return bld.getModelProto(), x, idx, side, loss


def test_gradients_that_cannot_exist_give_popart_errors(popart, cpu):
    proto, x, idx, side, loss = gather_model(popart)
    inputs = {x: np.arange(4, dtype=np.float32), idx: np.array([3, 3], np.int32)}
    _, out = train_once(popart, cpu, proto, loss, [grad(popart, x)], inputs)
    np.testing.assert_allclose(out[grad(popart, x)], [0, 0, 0, 2])  # repeated index: summed
    for t in (idx, side):  # integer indices; a tensor that does not lead to the loss
        with pytest.raises(popart.popart_exception,
                           match=r"Anchor tensor `%s' not in Ir Tensors\. \nInterestingly, `%s' IS in tensors\."
                           % (grad(popart, t), t)):
            train_once(popart, cpu, proto, loss, [side, grad(popart, t)], inputs)
    # An inference session computes no gradients: the same error.
    with pytest.raises(popart.popart_exception, match="Anchor tensor `Gradient___x' not in Ir Tensors"):
        popart.InferenceSession(proto, popart.DataFlow(1, [loss, grad(popart, x)]), cpu).prepareDevice()


def test_loss_must_be_a_scalar(popart, cpu):
    bld = popart.Builder()
    x = bld.addInputTensor(popart.TensorInfo("FLOAT", [2, 3]), "x")
    per = bld.aiGraphcore.l1loss([x], 0.5, reduction=popart.ReductionType.NoReduction)
    total = bld.aiGraphcore.identityloss([per], reduction=popart.ReductionType.Sum)
    bld.addOutputTensor(total)
    proto = bld.getModelProto()
    x_np = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
    # A NoReduction loss is fine as an intermediate of a scalar loss...
    _, out = train_once(popart, cpu, proto, total, [total, grad(popart, x), grad(popart, per)], {x: x_np})
    np.testing.assert_allclose(out[total], 10.5)
    np.testing.assert_allclose(out[grad(popart, x)], 0.5 * np.sign(x_np))
    np.testing.assert_allclose(out[grad(popart, per)], np.ones((2, 3)))
    # ...but not as the loss of a TrainingSession.
    with pytest.raises(popart.popart_exception, match="Loss tensor, '%s', must be a scalar tensor" % per):
        train_once(popart, cpu, proto, per, [per], {x: x_np})
    with pytest.raises(popart.popart_exception, match="Could not find loss tensor 'nope' in main graph tensors"):
        train_once(popart, cpu, proto, "nope", [per], {x: x_np})


@pytest.mark.parametrize("name,fn,tfn,lo,hi", [
    ("sin", lambda ai, x: ai.sin([x]), torch.sin, -2, 2),
    ("atan", lambda ai, x: ai.atan([x]), torch.atan, -2, 2),
    ("asinh", lambda ai, x: ai.asinh([x]), torch.asinh, -3, 3),
    ("acos", lambda ai, x: ai.acos([x]), torch.acos, -0.9, 0.9),
    ("softplus", lambda ai, x: ai.softplus([x]), torch.nn.functional.softplus, -3, 3),
    ("leakyrelu", lambda ai, x: ai.leakyrelu([x], alpha=0.2), lambda t: torch.nn.functional.leaky_relu(t, 0.2), -2, 2),
    ("reducel2", lambda ai, x: ai.reducel2([x], axes=[1], keepdims=0), lambda t: t.norm(dim=1), -2, 2),
])
def test_input_gradients_of_ops_match_pytorch(popart, cpu, name, fn, tfn, lo, hi):
    """The loss is sum(y * c) for a constant c; the input's and the output's gradients are anchored,
    as PopART's op tests anchor them."""
    rng = np.random.default_rng(hash(name) % 1000)
    x_np = rng.uniform(lo, hi, (3, 4)).astype(np.float32)
    bld = popart.Builder()
    x = bld.addInputTensor(popart.TensorInfo("FLOAT", [3, 4]), "x")
    y = fn(bld.aiOnnx, x)
    out_shape = tfn(torch.tensor(x_np)).shape
    c_np = rng.uniform(-1, 1, tuple(out_shape)).astype(np.float32)
    c = bld.aiOnnx.constant(c_np)
    loss = bld.aiGraphcore.identityloss([bld.aiOnnx.mul([y, c])], reduction=popart.ReductionType.Sum)
    bld.addOutputTensor(loss)
    _, out = train_once(popart, cpu, bld.getModelProto(), loss, [y, grad(popart, x), grad(popart, y)], {x: x_np})
    xt = torch.tensor(x_np, dtype=torch.float64, requires_grad=True)
    yt = tfn(xt)
    (yt * torch.tensor(c_np, dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(out[y], yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[grad(popart, y)], c_np, rtol=1e-6)
    np.testing.assert_allclose(out[grad(popart, x)], xt.grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("onesided,inverse", [(1, 0), (0, 0), (0, 1)])
def test_dft_input_gradient_matches_pytorch(popart, cpu, onesided, inverse):
    """DFT's gradient (the adjoint transform) against torch.fft's autograd, a real signal."""
    rng = np.random.default_rng(30 + 2 * onesided + inverse)
    x_np = rng.uniform(-1, 1, (3, 8, 1)).astype(np.float32)
    bld = popart.Builder(opsets={"ai.onnx": 17, "ai.graphcore": 1})
    x = bld.addInputTensor(popart.TensorInfo("FLOAT", [3, 8, 1]), "x")
    y = bld.aiOnnx.dft([x], axis=1, inverse=inverse, onesided=onesided)
    c_np = rng.uniform(-1, 1, bld.getTensorShape(y)).astype(np.float32)
    loss = bld.aiGraphcore.identityloss([bld.aiOnnx.mul([y, bld.aiOnnx.constant(c_np)])],
                                        reduction=popart.ReductionType.Sum)
    bld.addOutputTensor(loss)
    _, out = train_once(popart, cpu, bld.getModelProto(), loss, [y, grad(popart, x)], {x: x_np})
    xt = torch.tensor(x_np[..., 0], dtype=torch.float64, requires_grad=True)
    f = torch.fft.rfft if onesided else (torch.fft.ifft if inverse else torch.fft.fft)
    yt = torch.view_as_real(f(xt if onesided else xt.to(torch.complex128), dim=1))
    (yt * torch.tensor(c_np, dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(out[y], yt.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[grad(popart, x)], xt.grad.numpy()[..., None], rtol=1e-4, atol=1e-5)


def test_lstm_input_and_weight_gradients_match_pytorch(popart, cpu):
    rng = np.random.default_rng(5)
    S, N, I, H = 4, 2, 3, 5
    x_np = rng.uniform(-1, 1, (S, N, I)).astype(np.float32)
    w_np = rng.uniform(-0.5, 0.5, (1, 4 * H, I)).astype(np.float32)
    r_np = rng.uniform(-0.5, 0.5, (1, 4 * H, H)).astype(np.float32)
    bld = popart.Builder()
    x = bld.addInputTensor(popart.TensorInfo("FLOAT", [S, N, I]), "x")
    w = bld.addInitializedInputTensor(w_np, "W")
    r = bld.addInitializedInputTensor(r_np, "R")
    y = bld.aiOnnx.lstm([x, w, r], 3)[0]
    loss = bld.aiGraphcore.identityloss([bld.aiOnnx.mul([y, y])], reduction=popart.ReductionType.Sum)
    bld.addOutputTensor(loss)
    _, out = train_once(popart, cpu, bld.getModelProto(), loss, [grad(popart, x), grad(popart, w)], {x: x_np})
    # PyTorch's LSTM gate order is i, f, g, o; ONNX's is i, o, f, c.
    lstm = torch.nn.LSTM(I, H, bias=False).double()
    perm = np.concatenate([np.arange(0, H), np.arange(2 * H, 3 * H), np.arange(3 * H, 4 * H), np.arange(H, 2 * H)])
    with torch.no_grad():
        lstm.weight_ih_l0.copy_(torch.tensor(w_np[0][perm]))
        lstm.weight_hh_l0.copy_(torch.tensor(r_np[0][perm]))
    xt = torch.tensor(x_np, dtype=torch.float64, requires_grad=True)
    yt, _ = lstm(xt)
    (yt * yt).sum().backward()
    np.testing.assert_allclose(out[grad(popart, x)], xt.grad.numpy(), rtol=1e-4, atol=1e-5)
    gw = np.zeros_like(w_np[0])
    gw[perm] = lstm.weight_ih_l0.grad.numpy()
    np.testing.assert_allclose(out[grad(popart, w)][0], gw, rtol=1e-4, atol=1e-5)
