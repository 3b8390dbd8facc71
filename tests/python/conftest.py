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
