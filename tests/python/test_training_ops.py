"""ONNX's ai.onnx.preview.training ops (Adagrad, Adam, Momentum, Gradient) through an
InferenceSession: the optimizer steps against torch.optim (Adagrad and SGD with momentum agree with
ONNX's pseudo code; Adam does once ONNX's epsilon is torch's scaled by sqrt(1 - beta^T)) and NumPy
where torch has no counterpart (T = 0, norm_coefficient_post), Gradient against torch.autograd."""
import numpy as np
import pytest
import torch
from onnx import TensorProto, helper, mapping

TRAINING = "ai.onnx.preview.training"
SHAPES = [(3,), (2, 2)]


def run(popart, cpu, nodes, inputs, outputs, opset=13):
    """Builds a graph of `nodes` with `inputs` {name: array}, runs it once, returns {name: array}."""
    vi = [helper.make_tensor_value_info(k, mapping.NP_TYPE_TO_TENSOR_TYPE[v.dtype], list(v.shape))
          for k, v in inputs.items()]
    out = [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in outputs]
    g = helper.make_graph(nodes, "g", vi, out)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid(TRAINING, 1)])
    s = popart.InferenceSession(m.SerializeToString(), popart.DataFlow(1, outputs), cpu)
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO(inputs, anchors))
    return anchors


def step(popart, cpu, op, r, t, groups, **attrs):
    """Runs `op` over groups [(x, g, *states)], returns [(x_new, *states_new)]."""
    n, k = len(groups), len(groups[0])
    inputs = {"R": np.array(r, np.float32), "T": np.array(t, np.int64)}
    names = ["R", "T"]
    for j in range(k):
        for i in range(n):
            name = "in%d_%d" % (j, i)
            inputs[name] = groups[i][j]
            names.append(name)
    outs = ["out%d_%d" % (j, i) for j in range(k - 1) for i in range(n)]
    got = run(popart, cpu, [helper.make_node(op, names, outs, domain=TRAINING, **attrs)], inputs, outs)
    return [tuple(got["out%d_%d" % (j, i)] for j in range(k - 1)) for i in range(n)]


def rng_groups(states, seed):
    rng = np.random.default_rng(seed)
    return [tuple([rng.standard_normal(s).astype(np.float32) for _ in range(2)] +
                  [rng.uniform(0.1, 1.0, s).astype(np.float32) for _ in range(states)]) for s in SHAPES]


def torch_step(opt_class, groups, state_of, **kw):
    """One torch.optim step of the tensors of `groups` from the ONNX states; returns the new x."""
    params = [torch.tensor(g[0].astype(np.float64), requires_grad=True) for g in groups]
    for p, g in zip(params, groups):
        p.grad = torch.tensor(g[1].astype(np.float64))
    opt = opt_class(params, **kw)
    for p, g in zip(params, groups):
        opt.state[p].update(state_of(g))
    opt.step()
    return [p.detach().numpy() for p in params], [opt.state[p] for p in params]


def test_adagrad_matches_torch(popart, cpu):
    groups = rng_groups(1, 1)
    got = step(popart, cpu, "Adagrad", 0.3, 5, groups, decay_factor=0.1, epsilon=1e-5, norm_coefficient=0.01)
    # torch's step counts this update: (step - 1) is ONNX's T.
    want, states = torch_step(torch.optim.Adagrad, groups,
                              lambda g: {"sum": torch.tensor(g[2].astype(np.float64)), "step": torch.tensor(5.0)},
                              lr=0.3, lr_decay=np.float32(0.1).item(), eps=np.float32(1e-5).item(),
                              weight_decay=np.float32(0.01).item())
    for (x, h), w, st in zip(got, want, states):
        np.testing.assert_allclose(x, w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(h, st["sum"].numpy(), rtol=1e-5)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_matches_torch_sgd(popart, cpu, nesterov):
    groups = rng_groups(1, 2)
    alpha, beta = 0.9, 1.0 if nesterov else 0.75  # torch's Nesterov has no dampening
    for t in (0, 3):
        # T = 0 (the first update, V = 0): torch's first step takes the whole gradient as its buffer,
        # as ONNX's beta' = 1 does.
        gs = [(g[0], g[1], np.zeros_like(g[2])) for g in groups] if t == 0 else groups
        got = step(popart, cpu, "Momentum", 0.2, t, gs, alpha=alpha, beta=beta, norm_coefficient=0.05,
                   mode="nesterov" if nesterov else "standard")
        state = (lambda g: {}) if t == 0 else (lambda g: {"momentum_buffer": torch.tensor(g[2].astype(np.float64))})
        want, states = torch_step(torch.optim.SGD, gs, state, lr=np.float32(0.2).item(),
                                  momentum=np.float32(alpha).item(), dampening=1 - np.float32(beta).item(),
                                  weight_decay=np.float32(0.05).item(), nesterov=nesterov)
        for (x, v), w, st in zip(got, want, states):
            np.testing.assert_allclose(x, w, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(v, st["momentum_buffer"].numpy(), rtol=1e-5, atol=1e-6)


def test_adam_matches_torch_with_onnx_epsilon_placement(popart, cpu):
    groups = rng_groups(2, 3)
    alpha, beta, eps, t = 0.85, 0.95, 1e-3, 4
    onnx_eps = eps * np.sqrt(1 - np.float32(beta).item() ** t)  # ONNX adds epsilon before the bias correction
    got = step(popart, cpu, "Adam", 0.05, t, groups, alpha=alpha, beta=beta, epsilon=onnx_eps, norm_coefficient=0.02)
    want, states = torch_step(
        torch.optim.Adam, groups,
        lambda g: {"exp_avg": torch.tensor(g[2].astype(np.float64)),
                   "exp_avg_sq": torch.tensor(g[3].astype(np.float64)), "step": torch.tensor(float(t - 1))},
        lr=np.float32(0.05).item(), betas=(np.float32(alpha).item(), np.float32(beta).item()),
        eps=np.float32(onnx_eps).item() / np.sqrt(1 - np.float32(beta).item() ** t),
        weight_decay=np.float32(0.02).item())
    for (x, v, h), w, st in zip(got, want, states):
        np.testing.assert_allclose(x, w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(v, st["exp_avg"].numpy(), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(h, st["exp_avg_sq"].numpy(), rtol=1e-5, atol=1e-7)


def test_adam_first_update_and_post_regularization_match_numpy(popart, cpu):
    groups = rng_groups(2, 4)
    for t in (0, 2):
        got = step(popart, cpu, "Adam", 0.1, t, groups, norm_coefficient_post=0.1)
        for (x, v, h), (x0, g0, v0, h0) in zip(got, groups):
            x0, g0, v0, h0 = (a.astype(np.float64) for a in (x0, g0, v0, h0))
            a, b = np.float32(0.9).item(), np.float32(0.999).item()
            v1 = a * v0 + (1 - a) * g0
            h1 = b * h0 + (1 - b) * g0 * g0
            r = 0.1 * np.sqrt(1 - b ** t) / (1 - a ** t) if t > 0 else 0.1
            x1 = (1 - np.float32(0.1).item()) * (x0 - r * v1 / (np.sqrt(h1) + np.float32(1e-6).item()))
            np.testing.assert_allclose(x, x1, rtol=1e-5, atol=1e-7)
            np.testing.assert_allclose(v, v1, rtol=1e-5, atol=1e-7)
            np.testing.assert_allclose(h, h1, rtol=1e-5, atol=1e-7)


def test_gradient_matches_torch_autograd(popart, cpu):
    """y = ReduceSum(Tanh(a) * b + a * a) and its gradients with respect to a and b."""
    rng = np.random.default_rng(5)
    a, b = (rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2))
    nodes = [helper.make_node("Tanh", ["a"], ["t"]), helper.make_node("Mul", ["t", "b"], ["m"]),
             helper.make_node("Mul", ["a", "a"], ["s"]), helper.make_node("Add", ["m", "s"], ["u"]),
             helper.make_node("ReduceSum", ["u"], ["y"], keepdims=0),
             helper.make_node("Gradient", ["a", "b"], ["da", "db"], domain=TRAINING, xs=["a", "b"], y="y")]
    got = run(popart, cpu, nodes, {"a": a, "b": b}, ["y", "da", "db"])
    ta, tb = (torch.tensor(v.astype(np.float64), requires_grad=True) for v in (a, b))
    (torch.tanh(ta) * tb + ta * ta).sum().backward()
    np.testing.assert_allclose(got["da"], ta.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["db"], tb.grad.numpy(), rtol=1e-5, atol=1e-6)
