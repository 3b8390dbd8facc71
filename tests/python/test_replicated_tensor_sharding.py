"""Replicated tensor sharding of the optimizer state (PopART's optimizerStateTensorLocationSettings /
weightTensorLocationSettings with replicatedTensorSharding On): each replica holds and updates
[ceil(n / k)] of every large enough weight's optimizer state (k: the replicas of the sharding
domain), its gradient's shard reduce-scattered, the updated shards gathered back into the weight.
References: the same session without sharding (the weights, and the optimizer state the host reads,
to float rounding), PyTorch in double on the summed batch, and the IPU model's per-replica memory."""
import numpy as np
import onnx
import onnx.numpy_helper
import pytest
import torch
from test_replicated_training import _options as _replication_options

STEPS = 3


def _data(af, rf):
    rng = np.random.default_rng(7)
    w1 = rng.uniform(-1, 1, (4, 3)).astype(np.float32)  # 12 elements
    w2 = rng.uniform(-1, 1, (3, 2)).astype(np.float32)  # 6: padded shards at 4 replicas
    xs = rng.uniform(-2, 2, (STEPS, af, rf, 2, 4)).astype(np.float32)
    return w1, w2, xs


OPTIMIZERS = {
    "momentum": lambda popart: popart.SGD({"defaultLearningRate": (0.05, True), "defaultMomentum": (0.9, True),
                                           "defaultWeightDecay": (0.01, True)}),
    "separate": lambda popart: popart.SGD({"defaultLearningRate": (0.05, False), "defaultMomentum": (0.8, False),
                                           "defaultWeightDecay": (0.02, True), "defaultDampening": (0.1, True)},
                                          accumulatorAndMomentum=popart.SGDAccumulatorAndMomentum.Separate),
    "adam": lambda popart: popart.Adam({"defaultLearningRate": (0.02, True), "defaultWeightDecay": (0.01, True)}),
    "rmsprop_tf": lambda popart: popart.Adaptive({"defaultLearningRate": (0.02, True), "defaultMomentum": (0.5, True)},
                                                 mode=popart.AdaptiveMode.RMSProp, rmsprop_tf_variant=True),
}


def _options(popart, af, rf, mean, shard, domain=None, which="optimizerState", minimum=4):
    o = _replication_options(popart, af, rf, mean)
    if shard:
        settings = getattr(o, which + "TensorLocationSettings")
        settings.location.replicatedTensorSharding = popart.ReplicatedTensorSharding.On
        settings.minElementsForReplicatedTensorSharding = minimum
        if domain:
            settings.location.shardingDomain = popart.CommGroup(getattr(popart.CommGroupType, domain[0]), domain[1])
    return o


def _train(popart, opt, af, rf, mean, shard, device=None, model=None, clip=False, **kw):
    """Trains STEPS steps; returns the session, the ids and the model the host holds afterwards."""
    w1, w2, xs = _data(af, rf)
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 4]), "x")
    a = b.addInitializedInputTensor(w1, "w1")
    c = b.addInitializedInputTensor(w2, "w2")
    y = b.aiOnnx.matmul([b.aiOnnx.tanh([b.aiOnnx.matmul([x, a])]), c])
    loss = b.aiGraphcore.l1loss([y], 1.0, reduction=popart.ReductionType.Sum)
    optimizer = OPTIMIZERS[opt](popart)
    if clip:
        optimizer = popart.SGD({"defaultLearningRate": (0.05, True), "defaultMomentum": (0.9, True)},
                               clip_norm_settings=[popart.ClipNormSettings.clipAllWeights(0.5)])
    s = popart.TrainingSession(model or b.getModelProto(), popart.DataFlow(1, [loss]), loss, optimizer,
                               device or popart.DeviceManager().createCpuDevice(),
                               userOptions=_options(popart, af, rf, mean, shard, **kw))
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    for step in range(STEPS):
        data = xs[step] if af > 1 else xs[step, 0]
        s.run(popart.PyStepIO({x: data}, anchors))
    return s, (x, a, c, loss)


def _host_model(s):
    """Every initializer of modelToHost (the weights and the optimizer state), by name."""
    m = onnx.load_from_string(s.modelToHostBytes()) if hasattr(s, "modelToHostBytes") else None
    if m is None:
        import tempfile
        with tempfile.NamedTemporaryFile(suffix=".onnx") as f:
            s.modelToHost(f.name)
            m = onnx.load(f.name)
    return {t.name: onnx.numpy_helper.to_array(t) for t in m.graph.initializer}


@pytest.mark.parametrize("opt", sorted(OPTIMIZERS))
@pytest.mark.parametrize("af,rf,mean,domain", [(1, 4, False, None), (3, 2, True, None), (2, 4, False, None),
                                               (1, 4, True, ("Consecutive", 2))])
def test_sharded_optimizer_state_trains_as_whole(popart, opt, af, rf, mean, domain):
    whole, _ = _train(popart, opt, af, rf, mean, False)
    sharded, _ = _train(popart, opt, af, rf, mean, True, domain=domain)
    k = domain[1] if domain else rf
    # On the device each replica holds [ceil(n / k)] of a state; the host sees the whole.
    state = "Accl1___w2" if opt != "momentum" else "Accl___w2"
    assert sharded.getInfo(state).shape() == [-(-6 // k)]
    assert whole.getInfo(state).shape() == [3, 2]
    got, want = _host_model(sharded), _host_model(whole)
    assert sorted(got) == sorted(want)
    assert any(name.startswith("Accl") for name in got)
    for name, value in want.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-6, err_msg=name)
        assert got[name].shape == value.shape


def test_sharded_momentum_matches_pytorch_on_the_summed_batch(popart):
    s, (x, a, c, loss) = _train(popart, "momentum", 1, 4, False, True)
    w1, w2, xs = _data(1, 4)
    p = [torch.tensor(w1, dtype=torch.float64, requires_grad=True),
         torch.tensor(w2, dtype=torch.float64, requires_grad=True)]
    topt = torch.optim.SGD(p, lr=0.05, momentum=0.9, weight_decay=0.01)
    for step in range(STEPS):
        topt.zero_grad()
        for r in range(4):
            xt = torch.tensor(xs[step, 0, r], dtype=torch.float64)
            (torch.tanh(xt @ p[0]) @ p[1]).abs().sum().backward()
        topt.step()
    s.weightsToHost()
    out = {a: np.zeros_like(w1), c: np.zeros_like(w2)}
    s.readWeights(popart.PyWeightsIO(out))
    np.testing.assert_allclose(out[a], p[0].detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out[c], p[1].detach().numpy(), rtol=1e-4, atol=1e-5)


def test_weight_sharding_and_gradient_clipping(popart):
    # weightTensorLocationSettings shards the update too; clipping sums the shards' squares.
    whole, _ = _train(popart, "momentum", 1, 4, False, False, clip=True)
    sharded, _ = _train(popart, "momentum", 1, 4, False, True, clip=True, which="weight")
    assert sharded.getInfo("Accl___w1").shape() == [3]
    got, want = _host_model(sharded), _host_model(whole)
    for name, value in want.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-6, err_msg=name)


def test_small_weights_stay_whole(popart):
    # minElementsForReplicatedTensorSharding: w2 (6 elements) below 8, w1 (12) sharded.
    s, _ = _train(popart, "adam", 1, 2, False, True, minimum=8)
    assert s.getInfo("Accl1___w1").shape() == [6]
    assert s.getInfo("Accl1___w2").shape() == [3, 2]
    assert s.getInfo("Step___w1").shape() == []  # Adam's step counter is never sharded


def test_read_and_write_the_whole_sharded_state(popart):
    whole, _ = _train(popart, "adam", 1, 4, False, False)
    sharded, _ = _train(popart, "adam", 1, 4, False, True)
    for s in (whole, sharded):
        s.weightsToHost()
    ids = ["Accl1___w1", "Accl2___w2"]
    got = {i: np.zeros((4, 3) if i.endswith("w1") else (3, 2), np.float32) for i in ids}
    want = {i: np.zeros_like(v) for i, v in got.items()}
    sharded.readWeights(popart.PyWeightsIO(got))
    whole.readWeights(popart.PyWeightsIO(want))
    for i in ids:
        np.testing.assert_allclose(got[i], want[i], rtol=1e-5, atol=1e-7)
    # Written whole on the host, loaded in shards: read back as written.
    new = {i: np.arange(v.size, dtype=np.float32).reshape(v.shape) for i, v in got.items()}
    sharded.writeWeights(popart.PyWeightsIO(new))
    sharded.weightsFromHost()
    sharded.weightsToHost()
    back = {i: np.zeros_like(v) for i, v in new.items()}
    sharded.readWeights(popart.PyWeightsIO(back))
    for i in ids:
        np.testing.assert_array_equal(back[i], new[i])
    with pytest.raises(popart.popart_exception, match=r"sharded over 4 replicas"):
        sharded.readWeights(popart.PyWeightsIO({"Accl1___w1": np.zeros(3, np.float32)}))


def test_a_saved_state_resumes_sharded(popart):
    # modelToHost writes the whole state; a sharded session made from it continues as a whole one.
    first, _ = _train(popart, "separate", 1, 4, False, True)
    saved = first.modelToHostBytes() if hasattr(first, "modelToHostBytes") else None
    if saved is None:
        pytest.skip("modelToHostBytes is not bound")
    resumed, _ = _train(popart, "separate", 1, 4, False, True, model=saved)
    continued, _ = _train(popart, "separate", 1, 4, False, False, model=saved)
    got, want = _host_model(resumed), _host_model(continued)
    for name, value in want.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-6, err_msg=name)


def test_the_ipu_model_holds_a_shard_per_replica(popart):
    dev = lambda: popart.DeviceManager().createIpuModelDevice({"numIPUs": 4, "tilesPerIPU": 16})
    whole, _ = _train(popart, "adam", 1, 4, False, False, device=dev())
    sharded, _ = _train(popart, "adam", 1, 4, False, True, device=dev())
    size = lambda s, name: next(t.bytes for t in s.getReport().compilation.tensors if t.id == name)
    assert size(whole, "Accl1___w1") == 12 * 4
    assert size(sharded, "Accl1___w1") == 3 * 4
    np.testing.assert_allclose(_host_model(sharded)["w1"], _host_model(whole)["w1"], rtol=1e-5, atol=1e-6)
    # A reduce-scatter and an all-gather instead of an all-reduce: the same bytes over the links.
    assert sharded.getReport().compilation.cycles.replicaAllReduce > 0


@pytest.mark.parametrize("domain,message", [
    (("Orthogonal", 2), r"sharding domain is All or Consecutive"),
    (("Consecutive", 3), r"must split this process's 4 replicas"),
])
def test_bad_sharding_domains(popart, domain, message):
    with pytest.raises(popart.popart_exception, match=message):
        _train(popart, "adam", 1, 4, False, True, domain=domain)


def test_tensor_location_takes_a_sharding_domain(popart):
    loc = popart.TensorLocation(popart.TensorStorage.OnChip, popart.ReplicatedTensorSharding.On,
                                popart.CommGroup(popart.CommGroupType.Consecutive, 2))
    assert loc.shardingDomain == popart.CommGroup(popart.CommGroupType.Consecutive, 2)
    o = popart.SessionOptions()
    assert o.optimizerStateTensorLocationSettings.location.shardingDomain == popart.CommGroup(popart.CommGroupType.All,
                                                                                               0)
    o.optimizerStateTensorLocationSettings.location = loc
    assert o.optimizerStateTensorLocationSettings.location.shardingDomain.replicaGroupSize == 2
    assert o.optimizerStateTensorLocationSettings.location.replicatedTensorSharding == popart.ReplicatedTensorSharding.On
