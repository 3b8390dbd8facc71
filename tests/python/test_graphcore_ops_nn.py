"""The aiGraphcore NN ops through the Python Builder, called as PopART scripts call them (PopART's
argument names and defaults): groupnormalization against torch.nn.functional.group_norm (values,
statistics, gradients of x / scale / bias against torch.autograd) and an ai.graphcore node as PopART
writes it in an ONNX model; the errors they raise."""
import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper  # noqa: F401  (onnx.numpy_helper.from_array)
import pytest
import torch

from conftest import grads, run


def torch_grads(fn, weights, c):
    ts = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in weights]
    out = fn(*ts)
    (out * torch.tensor(c, dtype=torch.float64)).sum().backward()
    return out.detach().numpy(), [t.grad.numpy() for t in ts]


# ---------------------------------------------------------------- groupnormalization

@pytest.mark.parametrize("shape,groups,eps", [((2, 4, 3, 3), 2, 1e-5), ((3, 6, 5), 3, 0.5), ((2, 6, 2, 2), 6, 1.0),
                                              ((4, 8), 1, 1e-5)])
def test_groupnormalization_matches_torch(popart, shape, groups, eps):
    rng = np.random.default_rng(1)
    x = rng.normal(0.3, 2.0, shape).astype(np.float32)
    scale = rng.uniform(0.5, 1.5, shape[1]).astype(np.float32)
    bias = rng.uniform(-1, 1, shape[1]).astype(np.float32)
    y, mean, inv = run(popart, lambda b, i: b.aiGraphcore.groupnormalization(i, num_groups=groups, epsilon=eps),
                       [x, scale, bias])
    xt = torch.tensor(x, dtype=torch.float64)
    ref = torch.nn.functional.group_norm(xt, groups, torch.tensor(scale, dtype=torch.float64),
                                         torch.tensor(bias, dtype=torch.float64), eps)
    np.testing.assert_allclose(y, ref.numpy(), rtol=1e-5, atol=1e-5)
    v = xt.reshape(shape[0] * groups, -1)
    assert mean.shape == (shape[0] * groups,) and inv.shape == (shape[0] * groups,)
    np.testing.assert_allclose(mean, v.mean(-1).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(inv, (1 / torch.sqrt(v.var(-1, unbiased=False) + eps)).numpy(), rtol=1e-5)


def test_groupnormalization_default_epsilon_is_popart_1e_5(popart):
    x = np.random.default_rng(2).normal(0, 1e-3, (2, 4, 3)).astype(np.float32)
    ones, zeros = np.ones(4, np.float32), np.zeros(4, np.float32)
    _, _, inv = run(popart, lambda b, i: b.aiGraphcore.groupnormalization(i, 2), [x, ones, zeros])
    v = x.astype(np.float64).reshape(4, -1)
    np.testing.assert_allclose(inv, 1 / np.sqrt(v.var(-1) + 1e-5), rtol=1e-5)


def test_groupnormalization_gradients_match_torch(popart):
    rng = np.random.default_rng(3)
    x = rng.normal(0, 1, (2, 6, 3, 2)).astype(np.float32)
    scale = rng.uniform(0.5, 1.5, 6).astype(np.float32)
    bias = rng.uniform(-1, 1, 6).astype(np.float32)
    t, c, g = grads(popart, lambda b, w, i: b.aiGraphcore.groupnormalization(w, 3, 0.01)[0], [x, scale, bias])
    ref, rg = torch_grads(lambda a, s, bb: torch.nn.functional.group_norm(a, 3, s, bb, 0.01), [x, scale, bias], c)
    np.testing.assert_allclose(t, ref, rtol=1e-4, atol=1e-5)
    for got, want in zip(g, rg):
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)


def test_groupnormalization_errors(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 6, 3]))
    s = b.addInputTensor(popart.TensorInfo("FLOAT", [6]))
    bad = b.aiGraphcore.groupnormalization([x, s, s], 4)[0]
    b.addOutputTensor(bad)
    with pytest.raises(popart.popart_exception, match="num_groups = 4 must be positive and divide"):
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [bad]),
                                popart.DeviceManager().createCpuDevice())
    with pytest.raises(TypeError, match="num_groups"):
        b.aiGraphcore.groupnormalization([x, s, s])


def test_groupnormalization_node_as_popart_writes_it(popart):
    # PopART writes num_groups, and epsilon only when it is not the default.
    x = np.random.default_rng(4).normal(0, 1, (2, 4, 2, 2)).astype(np.float32)
    scale, bias = np.full(4, 2.0, np.float32), np.full(4, 0.5, np.float32)
    node = oh.make_node("GroupNormalization", ["x", "scale", "bias"], ["y", "mean", "inv"], domain="ai.graphcore",
                        num_groups=2)
    graph = oh.make_graph([node], "g", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, x.shape)],
                          [oh.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None) for n in ("y", "mean", "inv")],
                          [onnx.numpy_helper.from_array(scale, "scale"), onnx.numpy_helper.from_array(bias, "bias")])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11), oh.make_opsetid("ai.graphcore", 1)])
    s = popart.InferenceSession(model.SerializeToString(), popart.DataFlow(1, ["y", "mean"]),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, a))
    ref = torch.nn.functional.group_norm(torch.tensor(x, dtype=torch.float64), 2, torch.tensor(scale, dtype=torch.float64),
                                         torch.tensor(bias, dtype=torch.float64), 1e-5)
    np.testing.assert_allclose(a["y"], ref.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(a["mean"], x.reshape(4, -1).mean(-1), rtol=1e-5, atol=1e-6)
