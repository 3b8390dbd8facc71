"""Phased execution as a PopART user sets it up: opts.virtualGraphMode =
popart.VirtualGraphMode.ExecutionPhases, opts.executionPhaseSettings.phases = N, the layers placed
with `with builder.executionPhase(k):`, weights streamed with weightTensorLocationSettings.

What is checked against PopART's documented behaviour: its errors for phases without the mode and
for a phase beyond the last; the backward op of a forward op in phase k in phase 2N - 2 - k (read
from _serializeIr's "__execution_phase"), on virtual graph phase % stages; training equal to
unphased training (the NumPy reference of SGD on the same chain); on the IPU model, OffChip
weights only in tile memory during their phase (a model whose weights overflow its IPUs fits)
and the streaming loads counted in the cycles."""
import json
import re

import numpy as np
import pytest

ROWS, WIDTH = 4, 8


def chain(popart, layers, width=WIDTH, phased=True):
    """x [ROWS, width] -> layers x MatMul by "w<k>" (layer k in phase k) -> L1 loss."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [ROWS, width]), "x")
    h = x
    for k in range(layers):
        w0 = np.random.default_rng(10 + k).uniform(-0.3, 0.3, (width, width)).astype(np.float32)
        w = b.addInitializedInputTensor(w0, "w%d" % k)
        if phased:
            with b.executionPhase(k):
                h = b.aiOnnx.matmul([h, w], "mm%d" % k)
        else:
            h = b.aiOnnx.matmul([h, w], "mm%d" % k)
    if phased:
        with b.executionPhase(layers - 1):
            loss = b.aiGraphcore.l1loss([h], 0.1)
    else:
        loss = b.aiGraphcore.l1loss([h], 0.1)
    return b, x, h, loss


def phased_options(popart, phases, off_chip=False):
    opts = popart.SessionOptions()
    opts.virtualGraphMode = popart.VirtualGraphMode.ExecutionPhases
    opts.executionPhaseSettings.phases = phases
    if off_chip:
        opts.weightTensorLocationSettings.location.storage = popart.TensorStorage.OffChip
    return opts


def ipu_model(popart, ipus=2, tiles=16):
    return popart.DeviceManager().createIpuModelDevice({"numIPUs": ipus, "tilesPerIPU": tiles})


def training(popart, b, x, loss, device, opts, lr=0.05):
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, popart.ConstSGD(lr), device,
                               userOptions=opts)
    s.prepareDevice()
    s.weightsFromHost()
    return s


def test_phases_without_execution_phases_mode_is_poparts_error(popart, cpu):
    b, x, _, loss = chain(popart, 2)
    opts = popart.SessionOptions()
    opts.executionPhaseSettings.phases = 2
    with pytest.raises(popart.popart_exception) as e:
        training(popart, b, x, loss, cpu, opts)
    assert "> 1 execution phases requires VirtualGraphMode::ExecutionPhases" in str(e.value)


def test_phase_beyond_the_last_is_poparts_error(popart, cpu):
    b, x, _, loss = chain(popart, 3)
    with pytest.raises(popart.popart_exception) as e:
        training(popart, b, x, loss, cpu, phased_options(popart, 2))
    assert "[StreamingMemory] Maximum phase is 1, but op MatMul 'mm2" in str(e.value)
    assert "has phase 2." in str(e.value)


def test_backward_phases_mirror_the_forward_ones(popart, cpu):
    layers = 3
    b, x, _, loss = chain(popart, layers)
    s = training(popart, b, x, loss, cpu, phased_options(popart, layers))
    ops = json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))["maingraph"]
    phases = [int(op["attributes"]["__execution_phase"]) for op in ops]
    assert phases == sorted(phases)  # schedule order: the phases one after another
    for op, p in zip(ops, phases):
        assert int(op["attributes"]["__ipu_number"]) == p % 2, op["name"]
        m = re.match(r"mm(\d)", op["name"])
        if m:
            k = int(m.group(1))
            assert p == (2 * layers - 2 - k if "/grad" in op["name"] else k), op["name"]
    assert max(phases) == 2 * layers - 2


def sgd_reference(x, weights, lr, steps):
    """NumPy: `steps` of SGD on the L1 loss 0.1 * mean|x W0 W1 ...| (l1loss's default reduction, Mean)."""
    ws = [w.copy() for w in weights]
    for _ in range(steps):
        acts = [x]
        for w in ws:
            acts.append(acts[-1] @ w)
        g = 0.1 * np.sign(acts[-1]) / acts[-1].size
        grads = []
        for k in reversed(range(len(ws))):
            grads.append(acts[k].T @ g)
            g = g @ ws[k].T
        for k, gw in zip(reversed(range(len(ws))), grads):
            ws[k] -= lr * gw
    return ws


def trained_weights(popart, s, x, xv, layers, steps):
    """`steps` runs on the input xv; the weights after them."""
    out = s.initAnchorArrays()
    for _ in range(steps):
        s.run(popart.PyStepIO({x: xv}, out))
    s.weightsToHost()
    got = {"w%d" % k: np.zeros((WIDTH, WIDTH), np.float32) for k in range(layers)}
    s.readWeights(popart.PyWeightsIO(got))
    return got


@pytest.mark.parametrize("device", ["cpu", "ipu"])
def test_phased_training_matches_numpy_and_unphased(popart, device):
    layers, lr, steps = 3, 0.05, 3
    b, x, _, loss = chain(popart, layers)
    dev = popart.DeviceManager().createCpuDevice() if device == "cpu" else ipu_model(popart)
    s = training(popart, b, x, loss, dev, phased_options(popart, layers, off_chip=True), lr)
    xv = np.random.default_rng(3).standard_normal((ROWS, WIDTH)).astype(np.float32)
    got = trained_weights(popart, s, x, xv, layers, steps)
    w0 = [np.random.default_rng(10 + k).uniform(-0.3, 0.3, (WIDTH, WIDTH)).astype(np.float32) for k in range(layers)]
    want = sgd_reference(xv.astype(np.float64), [w.astype(np.float64) for w in w0], lr, steps)
    for k in range(layers):
        np.testing.assert_allclose(got["w%d" % k], want[k], rtol=1e-4, atol=1e-5)
        assert not np.allclose(got["w%d" % k], w0[k])

    # Unphased training on the CPU gives the same weights, bit for bit.
    b2, x2, _, loss2 = chain(popart, layers, phased=False)
    plain = training(popart, b2, x2, loss2, popart.DeviceManager().createCpuDevice(), popart.SessionOptions(), lr)
    ref = trained_weights(popart, plain, x2, xv, layers, steps)
    for k in range(layers):
        np.testing.assert_array_equal(got["w%d" % k], ref["w%d" % k])


def inference_report(popart, phased, off_chip, layers=6, width=512):
    """6 MatMuls with 1 MiB weights on 2 IPUs of 4 tiles (624 KiB each): a layer per phase, or
    (unphased) three layers per IPU with Manual placement."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [ROWS, width]), "x")
    h = x
    for k in range(layers):
        w = b.addInitializedInputTensor(np.full((width, width), 0.01, np.float32), "w%d" % k)
        h = b.aiOnnx.matmul([h, w], "mm%d" % k)
        if phased:
            b.executionPhase(h, k)
        else:
            b.virtualGraph(h, 2 * k // layers)
    opts = phased_options(popart, layers, off_chip) if phased else popart.SessionOptions()
    if not phased:
        opts.virtualGraphMode = popart.VirtualGraphMode.Manual
    opts.constantWeights = False  # PopART streams variables, never constants
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [h]), ipu_model(popart, 2, 4), userOptions=opts)
    s.prepareDevice()
    return s.getReport().compilation, s


def test_off_chip_weights_fit_and_their_loads_cost_cycles(popart):
    plain, _ = inference_report(popart, phased=False, off_chip=False)
    on_chip, _ = inference_report(popart, phased=True, off_chip=False)
    streamed, s = inference_report(popart, phased=True, off_chip=True)
    assert plain.memory.outOfMemoryTiles and on_chip.memory.outOfMemoryTiles
    assert not streamed.memory.outOfMemoryTiles
    assert streamed.memory.maxTileBytes < plain.memory.maxTileBytes - 2 * 512 * 512 * 4 // 4 // 2
    assert [p.phase for p in streamed.phases] == list(range(6))
    assert [p.ipu for p in streamed.phases] == [0, 1, 0, 1, 0, 1]
    assert all(p.remoteLoadBytes == 512 * 512 * 4 and p.remoteCycles > 0 for p in streamed.phases)
    assert streamed.cycles.streamingMemory == sum(p.remoteCycles for p in streamed.phases)
    assert streamed.cycles.perMicroBatch == on_chip.cycles.perMicroBatch + streamed.cycles.streamingMemory
    assert {op.ipu for op in streamed.ops if op.executionPhase % 2 == 1} == {1}
    summary = s.getSummaryReport()
    assert "Streaming memory:" in summary and "Phase 5:" in summary
