"""Gradient clipping by norm (ClipNormSettings) together with gradient accumulation (and with
pipelining), against PyTorch: the clipping acts on the accumulated gradient (the sum, or the
running mean with a Mean reduction), once per step, before the optimizer uses it."""
import numpy as np
import pytest
import torch

AF = 3  # micro-batches per step
STEPS = 2


def _data(seed):
    rng = np.random.default_rng(seed)
    w1 = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    w2 = rng.uniform(-1, 1, (3, 2)).astype(np.float32)
    xs = rng.uniform(-2, 2, (STEPS, AF, 2, 4)).astype(np.float32)
    return w1, w2, xs


def _popart(popart, opt, groups, mean_strategy=None, pipelined=False):
    w1, w2, xs = _data(7)
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 4]), "x")
    a = b.addInitializedInputTensor(w1, "w1")
    c = b.addInitializedInputTensor(w2, "w2")
    with b.virtualGraph(0), b.pipelineStage(0):
        h = b.aiOnnx.tanh([b.aiOnnx.matmul([x, a])])
    with b.virtualGraph(1), b.pipelineStage(1):
        y = b.aiOnnx.matmul([h, c])
        loss = b.aiGraphcore.l1loss([y], 1.0, reduction=popart.ReductionType.Sum)
    o = popart.SessionOptions()
    device = popart.DeviceManager().createCpuDevice()
    if pipelined:  # two stages on two IPUs of the IPU model
        o.enablePipelining = True
        o.virtualGraphMode = popart.VirtualGraphMode.Manual
        device = popart.DeviceManager().createIpuModelDevice({"numIPUs": 2})
    o.enableGradientAccumulation = True
    o.accumulationFactor = AF
    if mean_strategy is not None:
        o.accumulationAndReplicationReductionType = popart.ReductionType.Mean
        o.meanAccumulationAndReplicationReductionStrategy = mean_strategy
    clips = [popart.ClipNormSettings([{"w1": a, "w2": c}[k] for k in ids], m) for ids, m in groups]
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, opt(popart, clips), device,
                               userOptions=o)
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    for step in range(STEPS):
        s.run(popart.PyStepIO({x: xs[step]}, anchors))
    s.weightsToHost()
    out = {a: np.zeros_like(w1), c: np.zeros_like(w2)}
    s.readWeights(popart.PyWeightsIO(out))
    return out[a], out[c]


def _torch(topt, groups, mean):
    w1, w2, xs = _data(7)
    p = {"w1": torch.tensor(w1, dtype=torch.float64, requires_grad=True),
         "w2": torch.tensor(w2, dtype=torch.float64, requires_grad=True)}
    opt = topt([p["w1"], p["w2"]])
    for step in range(STEPS):
        opt.zero_grad()
        for k in range(AF):
            x = torch.tensor(xs[step, k], dtype=torch.float64)
            loss = (torch.tanh(x @ p["w1"]) @ p["w2"]).abs().sum()
            (loss / AF if mean else loss).backward()
        for ids, m in groups:
            torch.nn.utils.clip_grad_norm_([p[k] for k in ids], m)
        opt.step()
    return p["w1"].detach().numpy(), p["w2"].detach().numpy()


OPTIMIZERS = {
    "sgd": (lambda popart, c: popart.SGD({"defaultLearningRate": (0.1, True)}, clip_norm_settings=c),
            lambda ps: torch.optim.SGD(ps, lr=0.1)),
    "momentum": (lambda popart, c: popart.SGD({"defaultLearningRate": (0.1, True), "defaultMomentum": (0.9, True)},
                                              clip_norm_settings=c),
                 lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)),
    "adam": (lambda popart, c: popart.Adam({"defaultLearningRate": (0.05, True), "defaultEps": (1e-8, True)},
                                           clip_norm_settings=c),
             lambda ps: torch.optim.Adam(ps, lr=0.05, eps=1e-8)),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("groups", [[(("w1", "w2"), 0.5)], [(("w1",), 0.3), (("w2",), 100.0)]],
                         ids=["one-group", "two-groups"])
def test_clipping_acts_on_the_accumulated_gradient(popart, name, groups):
    ours, theirs = OPTIMIZERS[name]
    got = _popart(popart, ours, groups)
    want = _torch(theirs, groups, mean=False)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("strategy", ["Running", "Post"])
def test_mean_reduction_clips_the_mean(popart, strategy):
    """With a Mean reduction the running-mean accumulator holds the mean, which is clipped. (With
    Post the accumulator holds the sum, as PopART's updater tensor does: the clipping sees the sum
    and the update divides by the factor.)"""
    groups = [(("w1", "w2"), 0.5)]
    ours, theirs = OPTIMIZERS["sgd"]
    got = _popart(popart, ours, groups, getattr(popart.MeanReductionStrategy, strategy))
    if strategy == "Running":
        want = _torch(theirs, groups, mean=True)
    else:
        # PyTorch: clip the summed gradient, then divide it by the factor.
        w1, w2, xs = _data(7)
        p = [torch.tensor(w, dtype=torch.float64, requires_grad=True) for w in (w1, w2)]
        for step in range(STEPS):
            for q in p:
                q.grad = None
            for k in range(AF):
                x = torch.tensor(xs[step, k], dtype=torch.float64)
                (torch.tanh(x @ p[0]) @ p[1]).abs().sum().backward()
            torch.nn.utils.clip_grad_norm_(p, 0.5)
            with torch.no_grad():
                for q in p:
                    q -= 0.1 * q.grad / AF
        want = [q.detach().numpy() for q in p]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["sgd", "adam"])
def test_clipping_with_pipelining(popart, name):
    """The same clipping when the model is pipelined over two IPUs (IPU model): the weights are
    those of the unpipelined run and of PyTorch."""
    groups = [(("w1", "w2"), 0.5)]
    ours, theirs = OPTIMIZERS[name]
    got = _popart(popart, ours, groups, pipelined=True)
    plain = _popart(popart, ours, groups)
    want = _torch(theirs, groups, mean=False)
    for g, p, w in zip(got, plain, want):
        np.testing.assert_allclose(g, p, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
