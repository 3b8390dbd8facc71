"""VirtualGraphMode.Auto: PopART's AutoVirtualGraph split, read as PopART users read it, from
op["attributes"]["__ipu_number"] in Session._serializeIr(IrSerializationFormat.JSON).

The expectations follow PopART's documented algorithm: a region per consumer of each input, a new
region where two regions meet, IPU i filled up to i/n of the total cost (the bytes of the weights
an op reads, and when training of the activations its gradient ops read), a region too large for
the budget split at the op where its data meets nearest the budget."""
import json
import re

import numpy as np
import pytest


def ipus(popart, n):
    return popart.DeviceManager().createIpuModelDevice({"numIPUs": n, "tilesPerIPU": 16})


def auto_options(popart, **kw):
    o = popart.SessionOptions()
    o.virtualGraphMode = popart.VirtualGraphMode.Auto
    for k, v in kw.items():
        setattr(o, k, v)
    return o


def placement(popart, session, full_names=False):
    """op name -> __ipu_number (None when absent); the Builder's "_<n>" suffixes dropped unless
    `full_names`."""
    ir = json.loads(session._serializeIr(popart.IrSerializationFormat.JSON))
    name = (lambda n: n) if full_names else (lambda n: re.sub(r"_\d+$", "", n))
    return {name(op["name"]): int(op["attributes"]["__ipu_number"]) if "__ipu_number" in op["attributes"] else None
            for op in ir["maingraph"]}


def weight(b, rows, cols, seed, name):
    w = np.random.default_rng(seed).uniform(-0.5, 0.5, (rows, cols)).astype(np.float32)
    return b.addInitializedInputTensor(w, name)


def branches(popart):
    """A (x0) -> C; B (x1); D = C + B -> E. MatMuls with 8x8 weights (256 bytes), D none."""
    b = popart.Builder()
    x0 = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 8]), "x0")
    x1 = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 8]), "x1")
    a = b.aiOnnx.matmul([x0, weight(b, 8, 8, 1, "wA")], "A")
    c = b.aiOnnx.matmul([a, weight(b, 8, 8, 2, "wC")], "C")
    bb = b.aiOnnx.matmul([x1, weight(b, 8, 8, 3, "wB")], "B")
    d = b.aiOnnx.add([c, bb], "D")
    y = b.aiOnnx.matmul([d, weight(b, 8, 8, 4, "wE")], "E")
    b.addOutputTensor(y)
    return b.getModelProto(), x0, x1, y


@pytest.mark.parametrize("n,expected", [
    # Total 1024 bytes. 2 IPUs: the first branch's region {A, C} is exactly IPU 0's half.
    (2, {"A": 0, "C": 0, "B": 1, "D": 1, "E": 1}),
    # 4 IPUs (budgets of 256): {A, C} split after A, then {B}, then {D, E}.
    (4, {"A": 0, "C": 1, "B": 2, "D": 3, "E": 3}),
])
def test_two_branches(popart, n, expected):
    proto, x0, x1, y = branches(popart)
    s = popart.InferenceSession(proto, popart.DataFlow(1, [y]), ipus(popart, n), userOptions=auto_options(popart))
    assert placement(popart, s) == expected
    # The same outputs as the CPU without placement.
    feeds = {x0: np.random.default_rng(5).standard_normal((4, 8)).astype(np.float32),
             x1: np.random.default_rng(6).standard_normal((4, 8)).astype(np.float32)}
    outs = []
    for sess in (s, popart.InferenceSession(proto, popart.DataFlow(1, [y]), popart.DeviceManager().createCpuDevice())):
        sess.prepareDevice()
        a = sess.initAnchorArrays()
        sess.run(popart.PyStepIO(feeds, a))
        outs.append(a[y])
    np.testing.assert_array_equal(outs[0], outs[1])
    # The IPU model's report places the ops where the IR says.
    report = s.getReport()
    ops = {re.sub(r"_\d+$", "", op.name): op.ipu for op in report.compilation.ops}
    assert ops == expected


def chain(popart, sizes):
    """x -> mm1 -> relu1 -> ... -> mm<n>: w_i is [sizes[i], sizes[i+1]] (the last [.., 4])."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, sizes[0]]), "x")
    t = x
    for i, k in enumerate(sizes):
        n = sizes[i + 1] if i + 1 < len(sizes) else 4
        t = b.aiOnnx.matmul([t, weight(b, k, n, i, "w%d" % (i + 1))], "mm%d" % (i + 1))
        if i + 1 < len(sizes):
            t = b.aiOnnx.relu([t], "relu%d" % (i + 1))
    b.addOutputTensor(t)
    return b.getModelProto(), x, t


def test_chain_on_four_ipus(popart):
    proto, _, y = chain(popart, [16, 16, 16, 16])
    s = popart.InferenceSession(proto, popart.DataFlow(1, [y]), ipus(popart, 4), userOptions=auto_options(popart))
    # Equal weights: a cut after each of mm1..mm3; the Relu after a cut starts the next IPU.
    assert placement(popart, s) == {"mm1": 0, "relu1": 1, "mm2": 1, "relu2": 2, "mm3": 2, "relu3": 3, "mm4": 3}


def test_chain_splits_at_the_split_point_nearest_the_budget(popart):
    # 256 + 256 + 512 + 256 bytes: IPU 0's budget 640 is nearer mm2 (512) than mm3 (1024).
    proto, _, y = chain(popart, [8, 8, 8, 16])
    s = popart.InferenceSession(proto, popart.DataFlow(1, [y]), ipus(popart, 2), userOptions=auto_options(popart))
    p = placement(popart, s)
    assert [p["mm%d" % i] for i in (1, 2, 3, 4)] == [0, 0, 1, 1]


def test_too_few_splits(popart):
    proto, _, y = chain(popart, [8])  # one weighted op: one split point
    with pytest.raises(popart.popart_exception) as e:
        popart.InferenceSession(proto, popart.DataFlow(1, [y]), ipus(popart, 4), userOptions=auto_options(popart))
    assert e.value.args[0] == "[AutoVirtualGraph] Couldn't find enough splits for 4 IPUs. Only found 1"
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [4]))
    z = b.aiOnnx.exp([b.aiOnnx.sin([x])])
    b.addOutputTensor(z)
    with pytest.raises(popart.popart_exception) as e:
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [z]), ipus(popart, 2),
                                userOptions=auto_options(popart))
    assert e.value.args[0].startswith("[AutoVirtualGraph] Couldn't find enough splits for 2 IPUs. Only found 0")


def test_one_ipu_per_replica_places_nothing(popart):
    proto, _, _, y = branches(popart)
    for device, opts in ((ipus(popart, 1), auto_options(popart)),
                         (ipus(popart, 2), auto_options(popart, enableReplicatedGraphs=True, replicatedGraphCount=2)),
                         (popart.DeviceManager().createCpuDevice(), auto_options(popart))):
        s = popart.InferenceSession(proto, popart.DataFlow(1, [y]), device, userOptions=opts)
        assert set(placement(popart, s).values()) == {None}


def train_model(popart):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [1, 64]), "x")
    h = b.aiOnnx.relu([b.aiOnnx.matmul([x, weight(b, 64, 64, 7, "w1")], "mm1")], "relu")
    y = b.aiOnnx.matmul([h, weight(b, 64, 64, 8, "w2")], "mm2")
    loss = b.aiGraphcore.l1loss([y], 0.1, popart.ReductionType.Sum, debugContext="loss")
    return b.getModelProto(), x, loss


def train(popart, device, opts):
    proto, x, loss = train_model(popart)
    s = popart.TrainingSession(proto, popart.DataFlow(1, [loss]), loss, popart.ConstSGD(0.1), device,
                               userOptions=opts)
    s.prepareDevice()
    s.weightsFromHost()
    a = s.initAnchorArrays()
    feed = {x: np.random.default_rng(9).standard_normal((1, 64)).astype(np.float32)}
    for _ in range(3):
        s.run(popart.PyStepIO(feed, a))
    s.weightsToHost()
    w = {"w1": np.zeros((64, 64), np.float32), "w2": np.zeros((64, 64), np.float32)}
    s.readWeights(popart.PyWeightsIO(w))
    return s, w, a[loss]


def test_training_backward_ops_follow_their_forward_op(popart):
    s, w, loss = train(popart, ipus(popart, 2), auto_options(popart))
    p = placement(popart, s)
    assert p["mm1"] == 0 and p["mm2"] == 1  # the 16 KiB weights dominate: one per IPU
    full = placement(popart, s, full_names=True)
    assert None not in full.values()  # every op placed, the weight updates and gradient sums too
    grads = [name for name in full if "/grad" in name and name.split("/grad")[0] in full]
    assert len(grads) >= 4
    for name in grads:  # "<forward op>/grad/...": on its forward op's IPU
        assert full[name] == full[name.split("/grad")[0]], name
    ir = json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))
    updates = {op["inputs"][0]["name"]: int(op["attributes"]["__ipu_number"])
               for op in ir["maingraph"] if "VarUpdate" in op["type"]}
    assert updates == {"w1": 0, "w2": 1}
    # Trained weights and loss as on the CPU without placement.
    _, w_ref, loss_ref = train(popart, popart.DeviceManager().createCpuDevice(), popart.SessionOptions())
    for k in w:
        np.testing.assert_array_equal(w[k], w_ref[k])
    np.testing.assert_array_equal(loss, loss_ref)


def test_pipelining_depth_is_checked_when_the_session_is_made(popart):
    proto, _, y = chain(popart, [8, 8])
    opts = auto_options(popart, enablePipelining=True)
    with pytest.raises(popart.popart_exception) as e:
        popart.InferenceSession(proto, popart.DataFlow(1, [y]), ipus(popart, 2), userOptions=opts)
    assert e.value.args[0].startswith(
        "For pipelining, depth (batchesPerStep) must equal at least the number of pipeline stages (2)")
    s = popart.InferenceSession(proto, popart.DataFlow(2, [y]), ipus(popart, 2), userOptions=opts)
    s.prepareDevice()
