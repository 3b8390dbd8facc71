"""Replicated graphs in one process (enableReplicatedGraphs + replicatedGraphCount), for training
and inference, as PopART lays out the data: inputs [bps, AF, R] + shape, anchors with the replica
dimension, gradients summed over the replicas (or their mean with ReductionType.Mean) before the
update, weights identical on every replica. References: PyTorch in double on the same micro-batches
(one optimizer step on the sum of every replica's and micro-batch's gradients), and PopART's
anchor examples at R = 2."""
import re

import numpy as np
import pytest
import torch

STEPS = 2


def _data(seed, af, rf):
    rng = np.random.default_rng(seed)
    w1 = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    w2 = rng.uniform(-1, 1, (3, 2)).astype(np.float32)
    xs = rng.uniform(-2, 2, (STEPS, af, rf, 2, 4)).astype(np.float32)
    return w1, w2, xs


def _options(popart, af, rf, mean):
    o = popart.SessionOptions()
    if rf > 1:
        o.enableReplicatedGraphs = True
        o.replicatedGraphCount = rf
    if af > 1:
        o.enableGradientAccumulation = True
        o.accumulationFactor = af
    if mean:
        o.accumulationAndReplicationReductionType = popart.ReductionType.Mean
    return o


def _model(popart, w1, w2):
    """loss = sum |tanh(x w1) w2|; returns the builder and the ids (x, w1, w2, loss)."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 4]), "x")
    a = b.addInitializedInputTensor(w1, "w1")
    c = b.addInitializedInputTensor(w2, "w2")
    y = b.aiOnnx.matmul([b.aiOnnx.tanh([b.aiOnnx.matmul([x, a])]), c])
    return b, x, a, c, b.aiGraphcore.l1loss([y], 1.0, reduction=popart.ReductionType.Sum)


def _popart(popart, opt, af, rf, mean, device=None):
    w1, w2, xs = _data(3, af, rf)
    b, x, a, c, loss = _model(popart, w1, w2)
    device = device or popart.DeviceManager().createCpuDevice()
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, {loss: popart.AnchorReturnType("All")}), loss,
                               opt(popart), device, userOptions=_options(popart, af, rf, mean))
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    losses = []
    for step in range(STEPS):
        data = xs[step]
        if af == 1:
            data = data[0]
        if rf == 1:
            data = data[..., 0, :, :] if af > 1 else data[0]
        s.run(popart.PyStepIO({x: data}, anchors))
        losses.append(anchors[loss].copy())
    s.weightsToHost()
    out = {a: np.zeros_like(w1), c: np.zeros_like(w2)}
    s.readWeights(popart.PyWeightsIO(out))
    return out[a], out[c], losses


def _torch(topt, af, rf, mean):
    w1, w2, xs = _data(3, af, rf)
    p = [torch.tensor(w1, dtype=torch.float64, requires_grad=True),
         torch.tensor(w2, dtype=torch.float64, requires_grad=True)]
    opt = topt(p)
    losses = []
    for step in range(STEPS):
        opt.zero_grad()
        step_losses = np.zeros((af, rf))
        for k in range(af):
            for r in range(rf):
                x = torch.tensor(xs[step, k, r], dtype=torch.float64)
                loss = (torch.tanh(x @ p[0]) @ p[1]).abs().sum()
                step_losses[k, r] = loss.item()
                (loss / (af * rf) if mean else loss).backward()
        opt.step()
        losses.append(step_losses)
    return p[0].detach().numpy(), p[1].detach().numpy(), losses


OPTIMIZERS = {
    "sgd": (lambda popart: popart.SGD({"defaultLearningRate": (0.05, True)}),
            lambda ps: torch.optim.SGD(ps, lr=0.05)),
    "momentum": (lambda popart: popart.SGD({"defaultLearningRate": (0.05, True), "defaultMomentum": (0.9, True),
                                            "defaultWeightDecay": (0.01, True)}),
                 lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9, weight_decay=0.01)),
    "adam": (lambda popart: popart.Adam({"defaultLearningRate": (0.02, True), "defaultEps": (1e-8, True)}),
             lambda ps: torch.optim.Adam(ps, lr=0.02, eps=1e-8)),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("af,rf,mean", [(1, 4, False), (1, 2, True), (2, 2, False), (2, 2, True), (3, 2, False)])
def test_replicated_training_matches_pytorch_on_the_summed_batch(popart, name, af, rf, mean):
    popart_opt, torch_opt = OPTIMIZERS[name]
    w1, w2, losses = _popart(popart, popart_opt, af, rf, mean)
    t1, t2, tlosses = _torch(torch_opt, af, rf, mean)
    np.testing.assert_allclose(w1, t1, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(w2, t2, rtol=1e-4, atol=1e-5)
    for got, want in zip(losses, tlosses):  # the anchor is [AF, R] (bps 1 dropped), per replica
        np.testing.assert_allclose(got.reshape(af, rf), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_replicas_equal_accumulation_over_the_same_micro_batches(popart, name):
    # R = 4 replicas sum what one replica accumulating 4 micro-batches sums: the same weights.
    popart_opt = OPTIMIZERS[name][0]
    rep = _popart(popart, popart_opt, 1, 4, False)
    w1, w2, xs = _data(3, 1, 4)
    acc = _popart_accumulating(popart, popart_opt, w1, w2, xs)
    np.testing.assert_allclose(rep[0], acc[0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(rep[1], acc[1], rtol=1e-6, atol=1e-6)


def _popart_accumulating(popart, opt, w1, w2, xs):
    b, x, a, c, loss = _model(popart, w1, w2)
    o = popart.SessionOptions()
    o.enableGradientAccumulation = True
    o.accumulationFactor = xs.shape[2]
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, opt(popart),
                               popart.DeviceManager().createCpuDevice(), userOptions=o)
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    for step in range(STEPS):
        s.run(popart.PyStepIO({x: xs[step, 0]}, anchors))
    s.weightsToHost()
    out = {a: np.zeros_like(w1), c: np.zeros_like(w2)}
    s.readWeights(popart.PyWeightsIO(out))
    return out[a], out[c]


def test_every_replica_keeps_the_same_weights(popart):
    # The weight anchored on every replica after each step: identical across replicas.
    rng = np.random.default_rng(5)
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [3, 2]), "x")
    w = b.addInitializedInputTensor(rng.normal(size=(2, 2)).astype(np.float32), "w")
    loss = b.aiGraphcore.l1loss([b.aiOnnx.matmul([x, w])], 1.0)
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(2, {w: popart.AnchorReturnType("All")}), loss,
                               popart.SGD({"defaultLearningRate": (0.1, True), "defaultMomentum": (0.5, True)}),
                               popart.DeviceManager().createCpuDevice(), userOptions=_options(popart, 1, 3, False))
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    assert anchors[w].shape == (2, 3, 2, 2)  # [bps, R] + shape
    for _ in range(3):
        s.run(popart.PyStepIO({x: rng.normal(size=(2, 3, 3, 2)).astype(np.float32)}, anchors))
        for r in (1, 2):
            np.testing.assert_array_equal(anchors[w][:, r], anchors[w][:, 0])
        assert not np.array_equal(anchors[w][0, 0], anchors[w][1, 0])  # the weights do change


def test_replicas_draw_different_random_numbers(popart):
    # Dropout masks differ between replicas (each replica has its own seed), as PopART's do.
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [64]), "x")
    w = b.addInitializedInputTensor(np.ones(64, np.float32), "w")
    d = b.aiOnnx.dropout([b.aiOnnx.mul([x, w])], 1, 0.5)[0]
    loss = b.aiGraphcore.l1loss([d], 1.0)
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, {d: popart.AnchorReturnType("All")}), loss,
                               popart.ConstSGD(0.01), popart.DeviceManager().createCpuDevice(),
                               userOptions=_options(popart, 1, 2, False))
    s.prepareDevice()
    s.setRandomSeed(11)
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: np.ones((2, 64), np.float32)}, anchors))
    masks = anchors[d] != 0
    assert masks.shape == (2, 64)
    assert not np.array_equal(masks[0], masks[1])


ANCHORS = [("All", None, [[1, 2], [3, 4], [5, 6], [7, 8]]), ("EveryN", 2, [[3, 4], [7, 8]]), ("Final", None, [7, 8]),
           ("Sum", None, [16, 20])]


@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("art,period,expected", ANCHORS)
def test_anchor_return_types_at_two_replicas_as_popart(popart, art, period, expected, training):
    # PopART's example: inputs [[1,2],[3,4],[5,6],[7,8]] at bps 4 and R = 2, a scalar per replica.
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [1]), "x")
    w = b.addInitializedInputTensor(np.zeros(1, np.float32), "w")
    y = b.aiOnnx.add([x, w])  # w stays 0 in training: the loss does not depend on it
    rt = popart.AnchorReturnType(art, period) if period else popart.AnchorReturnType(art)
    o = _options(popart, 1, 2, False)
    device = popart.DeviceManager().createCpuDevice()
    if training:
        loss = b.aiGraphcore.l1loss([b.aiOnnx.mul([w, w])], 1.0)
        s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(4, {y: rt}), loss, popart.ConstSGD(0.1), device,
                                   userOptions=o)
    else:
        s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(4, {y: rt}), device, userOptions=o)
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    data = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.float32).reshape(4, 2, 1)
    s.run(popart.PyStepIO({x: data}, anchors))
    np.testing.assert_array_equal(anchors[y].reshape(np.shape(expected)), np.array(expected, np.float32))
    assert anchors[y].shape == np.shape(expected) + (1,)


def test_replicated_training_on_the_ipu_model(popart):
    # Two replicas of a one-IPU graph need two IPUs; the result is the CPU device's.
    opt = OPTIMIZERS["momentum"][0]
    cpu = _popart(popart, opt, 1, 2, False)
    ipu = _popart(popart, opt, 1, 2, False, popart.DeviceManager().createIpuModelDevice({"numIPUs": 2}))
    np.testing.assert_allclose(ipu[0], cpu[0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ipu[1], cpu[1], rtol=1e-6, atol=1e-7)


def test_replicatedallreduce_sums_over_the_replicas(popart):
    # (ReplicatedTraining.ReplicatedAllReduceSumsOverTheReplicas in C++): every replica gets the sum;
    # the op's input keeps each replica's own value.
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2]), "x")
    x2 = b.aiOnnx.mul([x, x])
    y = b.aiGraphcore.replicatedallreduce([x2])
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [y, x2]), popart.DeviceManager().createCpuDevice(),
                                userOptions=_options(popart, 1, 2, False))
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: np.array([[1, 2], [3, 4]], np.float32)}, anchors))
    np.testing.assert_array_equal(anchors[y], [[10, 20], [10, 20]])
    np.testing.assert_array_equal(anchors[x2], [[1, 4], [9, 16]])


def _collective_session(popart, b, outs, rf, device=None):
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, {o: popart.AnchorReturnType("All") for o in outs}),
                                device or popart.DeviceManager().createCpuDevice(),
                                userOptions=_options(popart, 1, rf, False))
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    return s, anchors


@pytest.mark.parametrize("group, var_settings", [
    (None, False), (("Consecutive", 2), False), (("Consecutive", 2), True), (("Orthogonal", 2), False)])
def test_replicatedreducescatter_over_replica_groups(popart, group, var_settings):
    # PopART's reduce-scatter case at R = 4: a weight of 12 values (grouped by the same CommGroup as
    # VariableSettings: one row per group of replicas sharing it); each replica gets its shard of
    # the sum over its group, in NumPy.
    rf = 4
    comm = popart.CommGroup(getattr(popart.CommGroupType, group[0]), group[1]) if group else None
    k = group[1] if group else rf  # replicas per reduction group
    grouping = comm.toReplicaGrouping(rf) if comm else popart.ReplicaGrouping(rf)
    rows = grouping.getNumGroups() if var_settings else 1
    data = np.arange(12 * rows, dtype=np.float32).reshape([rows, 12] if var_settings else [12])
    b = popart.Builder()
    if var_settings:
        b.embedReplicationFactor(rf)
        t = b.addInitializedInputTensor(data, popart.VariableSettings(comm), "input")
    else:
        t = b.addInitializedInputTensor(data, "input")
    o = b.aiGraphcore.replicatedreducescatter([t], commGroup=comm)
    s, anchors = _collective_session(popart, b, [o], rf)
    s.run(popart.PyStepIO({}, anchors))
    assert anchors[o].shape == (rf, 12 // k)
    for r in range(rf):
        g = grouping.getGroupAt(r)
        value = data[g] if var_settings else data
        members = grouping.getReplicasAt(g)
        total = sum(value for _ in members)  # every member of the group holds the same value here
        i = grouping.getIndexInGroupAt(r)
        np.testing.assert_array_equal(anchors[o][r], total[i * (12 // k):(i + 1) * (12 // k)])


@pytest.mark.parametrize("op", ["Add", "Mean", "Mul", "Min", "Max", "SquareAdd", "Local"])
def test_replicatedallreduce_collective_operators(popart, op):
    # Each replica's own input [R, 5]; Consecutive groups of 2 of 4 replicas; NumPy in double.
    rf = 4
    x = np.random.default_rng(3).uniform(-2, 2, (rf, 5)).astype(np.float32)
    b = popart.Builder()
    t = b.addInputTensor(popart.TensorInfo("FLOAT", [5]), "x")
    y = b.aiGraphcore.replicatedallreduce([t], getattr(popart.CollectiveOperator, op),
                                          popart.CommGroup(popart.CommGroupType.Consecutive, 2))
    s, anchors = _collective_session(popart, b, [y], rf)
    s.run(popart.PyStepIO({t: x}, anchors))
    xd = x.astype(np.float64).reshape(2, 2, 5)
    combine = {"Add": xd.sum(1), "Mean": xd.mean(1), "Mul": xd.prod(1), "Min": xd.min(1), "Max": xd.max(1),
               "SquareAdd": (xd * xd).sum(1)}
    want = x if op == "Local" else np.repeat(combine[op], 2, axis=0)
    np.testing.assert_allclose(anchors[y], want, rtol=1e-6, atol=1e-6)


def test_collectives_on_the_ipu_model_cost_their_exchange(popart):
    # The IPU model runs the same values as the CPU and prices the reduce-scatter's exchange.
    b = popart.Builder()
    t = b.addInitializedInputTensor(np.arange(16, dtype=np.float32), "w")
    o = b.aiGraphcore.replicatedreducescatter([t])
    dev = popart.DeviceManager().createIpuModelDevice({"numIPUs": 4, "tilesPerIPU": 16})
    s, anchors = _collective_session(popart, b, [o], 4, dev)
    s.run(popart.PyStepIO({}, anchors))
    np.testing.assert_array_equal(anchors[o], 4 * np.arange(16, dtype=np.float32).reshape(4, 4))
    assert s.getReport().compilation.cycles.replicaAllReduce > 0
    assert re.search(r"Replicas: +4 of 1 IPU\(s\) each", s.getSummaryReport())


@pytest.mark.parametrize("group", [("Consecutive", 2), ("Orthogonal", 2), ("Ungrouped", 0)])
def test_grouped_weights_sum_over_their_group(popart, group):
    # (ReplicatedTraining.GroupedWeightsSumOverTheirGroup in C++): 4 replicas, w grouped by
    # VariableSettings; each group's replicas share a value and sum only their gradients
    # (loss_r = sum |x_r w|); one SGD step in NumPy (double).
    rf = 4
    comm = popart.CommGroup(getattr(popart.CommGroupType, group[0]), group[1])
    grouping = comm.toReplicaGrouping(rf)
    groups = grouping.getNumGroups()
    rng = np.random.default_rng(5)
    w0 = rng.uniform(-1, 1, (groups, 3, 2)).astype(np.float32)
    xs = rng.uniform(-2, 2, (rf, 2, 3)).astype(np.float32)
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3]), "x")
    w = b.addInitializedInputTensor(w0, popart.VariableSettings(comm), "w")
    loss = b.aiGraphcore.l1loss([b.aiOnnx.matmul([x, w])], 1.0, reduction=popart.ReductionType.Sum)
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, popart.ConstSGD(0.1),
                               popart.DeviceManager().createCpuDevice(), userOptions=_options(popart, 1, rf, False))
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: xs}, anchors))
    s.weightsToHost()
    got = {w: np.zeros_like(w0)}
    s.readWeights(popart.PyWeightsIO(got))
    want = w0.astype(np.float64)
    for g in range(groups):
        grad = sum(xs[r].T.astype(np.float64) @ np.sign(xs[r].astype(np.float64) @ w0[g]) for r in grouping.getReplicasAt(g))
        want[g] -= 0.1 * grad
    np.testing.assert_allclose(got[w], want, rtol=1e-5, atol=1e-5)


def test_automatic_loss_scaling_sums_the_replicas_statistics(popart):
    # (AutoLossScale.ReplicasSumTheirCountsAndMoveTheScaleAlike in C++): replica 1's gradients pass
    # the bin edge while the scale is 512 or more, replica 0's never; the summed counts move both
    # replicas' scale alike: 1024, 512, 256, 512, 256.
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT16", [2, 3]), "x")
    w0 = np.array([[0.5, -0.25], [1.0, 0.75], [-1.5, 0.125]], np.float16)
    w = b.addInitializedInputTensor(w0, "W")
    loss = b.aiGraphcore.identityloss([b.aiOnnx.matmul([x, w])], reduction=popart.ReductionType.Sum)
    o = _options(popart, 1, 2, False)
    o.automaticLossScalingSettings = popart.AutomaticLossScalingSettings(enabled=True, binEdgeLocation=0.125)
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(5, ["finalLossScale"]), loss,
                               popart.SGD({"defaultLearningRate": (0.0625, True), "lossScaling": (1024.0, False)}),
                               popart.DeviceManager().createCpuDevice(), userOptions=o)
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    xs = np.stack([np.stack([np.full((2, 3), 0.5), np.full((2, 3), 8.0)])] * 5).astype(np.float16)
    s.run(popart.PyStepIO({x: xs}, anchors))
    np.testing.assert_array_equal(anchors["finalLossScale"], [[1024] * 2, [512] * 2, [256] * 2, [512] * 2, [256] * 2])


def test_embedded_replication_factor_names_a_mismatch(popart):
    # A model built for 4 replicas (two groups of the weight) opened at 8 replicas (four groups):
    # PopART's VariableSettings shape error, and the factor the model was built for.
    b = popart.Builder()
    with pytest.raises(popart.popart_exception, match="at least 1"):
        b.embedReplicationFactor(0)
    b.embedReplicationFactor(4)
    comm = popart.CommGroup(popart.CommGroupType.Consecutive, 2)
    t = b.addInitializedInputTensor(np.zeros([2, 3], np.float32), popart.VariableSettings(comm), "w")
    o = b.aiGraphcore.replicatedallreduce([t])
    with pytest.raises(popart.popart_exception, match="built for replication factor 4"):
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, [o]), popart.DeviceManager().createCpuDevice(),
                                userOptions=_options(popart, 1, 8, False))
