"""pytest set-up for the popart Python module's tests: `popart` from PYTHONPATH (the build tree,
<build>/python, as ctest sets it) or from an installed package."""
import os

import numpy as np
import pytest

os.environ.setdefault("POPART_LOG_LEVEL", "OFF")


@pytest.fixture
def popart():
    import popart as p
    return p


@pytest.fixture
def cpu(popart):
    return popart.DeviceManager().createCpuDevice()


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Runs the test in a fresh directory (the seeds write alexnet.onnx to the working directory)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def add_model(popart, shape=(2, 3), opset=None):
    """x, y -> x + y; returns (proto, x, y, out)."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", list(shape)), "x")
    y = b.addInputTensor("FLOAT", list(shape), "y")
    ai = b.aiOnnx if opset is None else getattr(b, "aiOnnxOpset%d" % opset)
    o = ai.add([x, y])
    b.addOutputTensor(o)
    return b.getModelProto(), x, y, o


def rand(*shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def run(popart, build, feeds):
    """Builds `build(builder, input ids)` over inputs with the values `feeds`, runs it once on the
    CPU and returns the outputs (one array, or a list)."""
    b = popart.Builder()
    ids = [b.addInputTensor(popart.TensorInfo(a)) for a in feeds]
    outs = build(b, ids)
    single = isinstance(outs, str)
    outs = [outs] if single else list(outs)
    for o in outs:
        b.addOutputTensor(o)
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, outs),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO(dict(zip(ids, feeds)), a))
    res = [a[o] for o in outs]
    return res[0] if single else res


def grads(popart, build, weights, feeds=()):
    """Adds `weights` (arrays) as trainable tensors and `feeds` as inputs; `build(b, weight ids,
    input ids)` returns a tensor t; the loss is sum(t * c) for a fixed c. Returns (t, c, the
    gradients of the weights) from one training step with learning rate 0."""
    b = popart.Builder()
    w = [b.addInitializedInputTensor(x) for x in weights]
    ins = [b.addInputTensor(popart.TensorInfo(a)) for a in feeds]
    t = build(b, w, ins)
    shape = b.getTensorShape(t)
    c = np.random.default_rng(9).uniform(-1, 1, shape).astype(weights[0].dtype)
    ci = b.addInitializedInputTensor(c)  # a weight too, but not one whose gradient is read
    loss = b.aiGraphcore.identityloss([b.aiOnnx.mul([t, ci])], reduction=popart.ReductionType.Sum)
    anchors = [t] + [popart.reservedGradientPrefix() + x for x in w]
    a = train_step_lr0(popart, b, loss, anchors, dict(zip(ins, feeds)))
    return a[t], c, [a[popart.reservedGradientPrefix() + x] for x in w]


def train_step_lr0(popart, b, loss, anchors, feeds):
    """One training step of the model of `b` on the CPU with SGD at learning rate 0 (the weights
    stay as they are); returns the anchor arrays (gradients anchored by reservedGradientPrefix())."""
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, anchors), loss,
                               popart.SGD({"defaultLearningRate": (0.0, False)}),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, a))
    return a
