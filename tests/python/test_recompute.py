"""Recomputation: SessionOptions.autoRecomputation and Builder.recomputeOutputInBackwardPass /
checkpointOutput. The annotation of each RecomputationType (the "recompute" op setting of
_serializeIr), training results identical to no recomputation, the activation peak of the memory
plan and of the IPU model, and PopART's errors."""
import json
import math
import re

import numpy as np
import pytest

ROWS, COLS = 64, 256


def initial_weights(layers, seed=0):
    rng = np.random.default_rng(seed)
    return [(1 + 0.1 * rng.standard_normal(COLS)).astype(np.float32) for _ in range(layers)]


def chain(popart, layers, ckpt_every=0, seed=0):
    """x [ROWS, COLS] -> layers x (Mul by a weight [COLS], Tanh) -> L1 loss. With ckpt_every, a
    user checkpoint (Builder.checkpointOutput) after every ckpt_every layers but the last."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [ROWS, COLS]), "x")
    h = x
    for k, w0 in enumerate(initial_weights(layers, seed)):
        w = b.addInitializedInputTensor(w0, "w%d" % k)
        h = b.aiOnnx.tanh([b.aiOnnx.mul([h, w], "mul%d" % k)], "tanh%d" % k)
        if ckpt_every and (k + 1) % ckpt_every == 0 and k + 1 < layers:
            h = b.checkpointOutput([h])[0]
    loss = b.aiGraphcore.l1loss([h], 0.1)
    return b, x, loss


def train(popart, device, builder, x, loss, rtype, steps=3, anchors=(), shape=(ROWS, COLS)):
    opts = popart.SessionOptions()
    opts.autoRecomputation = rtype
    s = popart.TrainingSession(builder.getModelProto(), popart.DataFlow(1, [loss] + list(anchors)), loss,
                               popart.SGD({"defaultLearningRate": (0.05, False), "defaultMomentum": (0.5, False)}),
                               device, userOptions=opts)
    s.prepareDevice()
    s.weightsFromHost()
    out = s.initAnchorArrays()
    xv = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    losses = []
    for _ in range(steps):
        s.run(popart.PyStepIO({x: xv}, out))
        losses.append(out[loss].copy())
    s.weightsToHost()
    return s, losses, out


def read_weights(popart, s, names):
    w = {n: np.zeros(COLS, np.float32) for n in names}
    s.readWeights(popart.PyWeightsIO(w))
    return w


def ir_ops(popart, s):
    return json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))["maingraph"]


def node(name):
    """The Builder's name of a node ("tanh3" for "tanh3_7": the Builder numbers repeated names)."""
    return re.sub(r"_\d+$", "", name)


def marks(popart, s):
    """node name -> the "recompute" setting, for the ops of the model (not the clones)."""
    return {node(op["name"]): op["attributes"]["recompute"] for op in ir_ops(popart, s)
            if not op["name"].endswith("/recompute")}


def clones(popart, s):
    """The recomputing clones ("<op name>/recompute")."""
    return [op for op in ir_ops(popart, s) if op["name"].endswith("/recompute")]


def clone_nodes(popart, s):
    return sorted(node(op["name"][:-len("/recompute")]) for op in clones(popart, s))


def decreasing_intervals(n):
    """PopART's getDecreasingIntervals(N), as documented in willow/src/intervals.cpp: sizes from
    int(0.75 * (int(sqrt(2N)) - 1)) down to 1, then intervals of one op."""
    if n == 1:
        return [(0, 1)]
    k = int(0.75 * (int(math.sqrt(2.0 * n)) - 1))
    out, i0 = [], 0
    while k > 0 and i0 + k <= n:
        out.append((i0, i0 + k))
        i0 += k
        k -= 1
    out += [(i, i + 1) for i in range(i0, n)]
    return out


@pytest.mark.parametrize("rtype", ["Standard", "RecomputeAll"])
def test_training_is_bit_identical_with_recomputation(popart, cpu, rtype):
    names = ["w%d" % k for k in range(12)]
    b, x, loss = chain(popart, 12, ckpt_every=4)
    ref, ref_losses, _ = train(popart, cpu, b, x, loss, popart.RecomputationType.NoRecompute)
    b, x, loss = chain(popart, 12, ckpt_every=4)
    s, losses, _ = train(popart, popart.DeviceManager().createCpuDevice(), b, x, loss,
                         getattr(popart.RecomputationType, rtype))
    assert clones(popart, s), "nothing was recomputed"
    for a, c in zip(ref_losses, losses):
        assert a.tobytes() == c.tobytes()
    wr, w = read_weights(popart, ref, names), read_weights(popart, s, names)
    for n, w0 in zip(names, initial_weights(12)):
        assert wr[n].tobytes() == w[n].tobytes(), n
        assert (w[n] != w0).any(), n  # they trained


def test_recompute_all_recomputes_up_to_the_last_checkpoint(popart, cpu):
    """RecomputeAll: every forward op Recompute, then the ops between the last checkpoint and the
    loss Checkpoint again; the user's checkpoints (checkpointOutput's Identity) stay."""
    b, x, loss = chain(popart, 12, ckpt_every=4)
    s, _, _ = train(popart, cpu, b, x, loss, popart.RecomputationType.RecomputeAll, steps=1)
    m = marks(popart, s)
    for k in range(12):
        want = "YES" if k < 8 else "NO"
        assert m["mul%d" % k] == want and m["tanh%d" % k] == want, k
    idents = [op for op in ir_ops(popart, s) if op["type"] in ("Identity", "IdentityInplace")
              and not op["name"].endswith("/recompute") and "grad" not in op["name"].lower()]
    assert idents and all(op["attributes"]["recompute"] == "NO" for op in idents)
    # The loss op itself is left Recompute, as PopART leaves it (nothing reads its output back).
    assert [op["attributes"]["recompute"] for op in ir_ops(popart, s) if op["type"] == "L1"] == ["YES"]
    # Each recomputed Tanh and Mul whose output the backward pass needs has a clone.
    assert clone_nodes(popart, s) == sorted(["mul%d" % k for k in range(8)] + ["tanh%d" % k for k in range(8)])
    # Without user checkpoints, RecomputeAll turns every op back: nothing is recomputed.
    b, x, loss = chain(popart, 6)
    s, _, _ = train(popart, popart.DeviceManager().createCpuDevice(), b, x, loss,
                    popart.RecomputationType.RecomputeAll, steps=1)
    assert not clones(popart, s)
    assert all(v == "NO" for k, v in marks(popart, s).items() if k.startswith(("mul", "tanh")))


def test_standard_checkpoints_the_lowest_memory_live_set_of_each_interval(popart, cpu):
    layers = 24
    b, x, loss = chain(popart, layers)
    s, _, _ = train(popart, cpu, b, x, loss, popart.RecomputationType.Standard, steps=1)
    m = marks(popart, s)
    fwd = [n for k in range(layers) for n in ("mul%d" % k, "tanh%d" % k)] + ["L1"]
    # A chain: each live set is the op just run (its input's last reader has run), every
    # activation has the same size, so each interval checkpoints its first op.
    checkpoints = {lo for lo, _ in decreasing_intervals(len(fwd))}
    want = {fwd[i] for i in range(len(fwd) - 1) if i not in checkpoints}
    got = {n for n, v in m.items() if v == "YES" and n.startswith(("mul", "tanh"))}
    assert got == want and len(want) == 15


def test_norm_only_recomputes_the_normalizations(popart, cpu):
    """NormOnly: the forward normalizations Recompute, every other op Checkpoint. The backward
    pass reads the GroupNormalization's output (the second MatMul's weight gradient), so it gets
    a clone; the training is bit-identical."""
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((16, 16)).astype(np.float32)
    w1 = rng.standard_normal((16, 16)).astype(np.float32)

    def build():
        b = popart.Builder()
        x = b.addInputTensor(popart.TensorInfo("FLOAT", [8, 16]), "x")
        w = b.addInitializedInputTensor(w0, "w")
        v = b.addInitializedInputTensor(w1, "v")
        sc = b.addInitializedInputTensor(np.ones(16, np.float32), "scale")
        bi = b.addInitializedInputTensor(np.zeros(16, np.float32), "bias")
        h = b.aiOnnx.matmul([x, w], "mm")
        n = b.aiGraphcore.groupnormalization([h, sc, bi], 4, debugContext="gn")[0]
        r = b.aiOnnx.sigmoid([b.aiOnnx.matmul([n, v], "mm2")], "sig")
        return b, x, b.aiGraphcore.l1loss([r], 0.1)

    results = {}
    for rt in ("NoRecompute", "NormOnly"):
        b, x, loss = build()
        s, losses, _ = train(popart, popart.DeviceManager().createCpuDevice(), b, x, loss,
                             getattr(popart.RecomputationType, rt), shape=(8, 16))
        ww = {"w": np.zeros((16, 16), np.float32), "v": np.zeros((16, 16), np.float32),
              "scale": np.zeros(16, np.float32)}
        s.readWeights(popart.PyWeightsIO(ww))
        results[rt] = (s, ww, losses)
    s = results["NormOnly"][0]
    m = {node(op["name"]): op["attributes"]["recompute"] for op in ir_ops(popart, s)
         if not op["name"].endswith("/recompute") and node(op["name"]) in ("mm", "gn", "mm2", "sig")}
    assert m == {"mm": "NO", "gn": "YES", "mm2": "NO", "sig": "NO"}
    assert clone_nodes(popart, s) == ["gn"]
    for k in ("w", "v", "scale"):
        assert results["NormOnly"][1][k].tobytes() == results["NoRecompute"][1][k].tobytes(), k
    for a, c in zip(results["NormOnly"][2], results["NoRecompute"][2]):
        assert a.tobytes() == c.tobytes()


def test_memory_plan_and_ipu_model_show_the_saving(popart):
    """12 layers on a [64, 256] activation, a checkpoint every 4 layers: recomputing the first 8
    layers lowers the CPU arena (the memory plan's peak) and the IPU model's activation memory, and
    the IPU model's cycles grow by the clones' cost."""
    stats = {}
    for rt in ("NoRecompute", "RecomputeAll"):
        b, x, loss = chain(popart, 12, ckpt_every=4)
        s, _, _ = train(popart, popart.DeviceManager().createCpuDevice(), b, x, loss,
                        getattr(popart.RecomputationType, rt), steps=1)
        ipu = popart.DeviceManager().createIpuModelDevice({"tilesPerIPU": 64})
        b, x, loss = chain(popart, 12, ckpt_every=4)
        si, _, _ = train(popart, ipu, b, x, loss, getattr(popart.RecomputationType, rt), steps=1)
        c = json.loads(si._getReportJson())["compilation"]
        stats[rt] = (s.getMemoryStats()["activationArenaBytes"], c["memory"]["byCategory"]["activations"],
                     c["cycles"]["perMicroBatch"])
    (arena0, act0, cyc0), (arena1, act1, cyc1) = stats["NoRecompute"], stats["RecomputeAll"]
    one = ROWS * COLS * 4  # one activation
    assert arena1 <= arena0 - 4 * one, stats
    assert act1 < act0, stats
    assert cyc1 > cyc0, stats


def test_user_recompute_mark_acts_without_auto_recomputation(popart, cpu):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 8]), "x")
    w = b.addInitializedInputTensor(np.full(8, 0.5, np.float32), "w")
    h = b.aiOnnx.mul([x, w], "mul")
    t = b.aiOnnx.tanh([h], "tanh")
    b.recomputeOutputInBackwardPass(t)
    s2 = b.aiOnnx.sigmoid([t], "sig")
    loss = b.aiGraphcore.l1loss([s2], 0.1)
    s, _, _ = train(popart, cpu, b, x, loss, popart.RecomputationType.NoRecompute, steps=1, shape=(4, 8))
    assert marks(popart, s)["tanh"] == "YES"
    assert clone_nodes(popart, s) == ["tanh"]
    # The backward pass reads the clone's output, the forward Sigmoid the original.
    ops = ir_ops(popart, s)
    clone_out = clones(popart, s)[0]["outputs"][0]["name"]
    readers = [op["name"] for op in ops if any(i["name"] == clone_out for i in op["inputs"])]
    assert readers and all(node(r) != "sig" for r in readers)
    assert any(r.startswith("tanh") and "grad" in r for r in readers)


def test_recompute_output_scope_marks_the_nodes_made_in_it(popart, cpu):
    """PopART's `with builder.recomputeOutput(RecomputeType.Recompute):` marks the nodes created
    in the scope, as recomputeOutputInBackwardPass marks one."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 8]), "x")
    w = b.addInitializedInputTensor(np.full(8, 0.5, np.float32), "w")
    h = b.aiOnnx.mul([x, w], "mul")
    with b.recomputeOutput(popart.RecomputeType.Recompute):
        t = b.aiOnnx.tanh([h], "tanh")
    s2 = b.aiOnnx.sigmoid([t], "sig")
    assert "__recompute_output_in_backward_pass" in b.getAllNodeAttributeNames({t})
    assert "__recompute_output_in_backward_pass" not in b.getAllNodeAttributeNames({s2})
    b.recomputeOutput(h, popart.RecomputeType.Checkpoint)  # the ids form
    assert b.getInt64NodeAttribute("__recompute_output_in_backward_pass", {h}) == int(popart.RecomputeType.Checkpoint)
    loss = b.aiGraphcore.l1loss([s2], 0.1)
    s, _, _ = train(popart, cpu, b, x, loss, popart.RecomputationType.NoRecompute, steps=1, shape=(4, 8))
    assert marks(popart, s)["tanh"] == "YES" and marks(popart, s)["mul"] == "NO"
    assert clone_nodes(popart, s) == ["tanh"]


def test_user_checkpoint_is_respected(popart, cpu):
    """A user Checkpoint on an op that Standard would recompute stays a checkpoint."""
    b, x, loss = chain(popart, 24)
    mul1 = [op for op in ir_ops(popart, train(popart, cpu, b, x, loss, popart.RecomputationType.NoRecompute,
                                                steps=1)[0]) if node(op["name"]) == "mul1"][0]["outputs"][0]["name"]
    b.recomputeOutputInBackwardPass(mul1, popart.RecomputeType.Checkpoint)
    s, _, _ = train(popart, popart.DeviceManager().createCpuDevice(), b, x, loss,
                    popart.RecomputationType.Standard, steps=1)
    m = marks(popart, s)
    assert m["mul1"] == "NO" and m["tanh1"] == "YES" and m["mul2"] == "YES"


def test_errors(popart, cpu):
    b, x, loss = chain(popart, 2)
    opts = popart.SessionOptions()
    opts.autoRecomputation = popart.RecomputationType.Pipeline
    with pytest.raises(popart.popart_exception) as e:
        popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, popart.ConstSGD(0.1), cpu,
                               userOptions=opts)
    assert e.value.args[0] == "Invalid RecomputationType::Pipeline in autoAnnotate when using implicit pipelining."
    # Auto and manual recomputation together: test_errors.py's
    # test_auto_and_manual_recomputation_together_are_refused.


def test_pipeline_recomputes_the_earlier_stages(popart):
    """Pipelining (2 IPUs, a stage each): the ops of stage 0 are recomputed except the one whose
    output is copied to stage 1; stage 1 (the loss's) is all checkpoints. Results as without."""
    def build():
        b = popart.Builder()
        x = b.addInputTensor(popart.TensorInfo("FLOAT", [4, 8]), "x")
        ws = [b.addInitializedInputTensor(np.full(8, 0.9 + 0.01 * k, np.float32), "w%d" % k) for k in range(4)]
        h = x
        for k in range(4):
            with b.virtualGraph(k // 2), b.pipelineStage(k // 2):
                h = b.aiOnnx.tanh([b.aiOnnx.mul([h, ws[k]], "mul%d" % k)], "tanh%d" % k)
        with b.virtualGraph(1), b.pipelineStage(1):
            loss = b.aiGraphcore.l1loss([h], 0.1)
        return b, x, loss

    res = {}
    for rt in ("NoRecompute", "Pipeline"):
        b, x, loss = build()
        opts = popart.SessionOptions()
        opts.autoRecomputation = getattr(popart.RecomputationType, rt)
        opts.enablePipelining = True
        opts.virtualGraphMode = popart.VirtualGraphMode.Manual
        ipu = popart.DeviceManager().createIpuModelDevice({"tilesPerIPU": 16, "numIPUs": 2})
        s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(4, [loss]), loss, popart.ConstSGD(0.1), ipu,
                                   userOptions=opts)
        s.prepareDevice()
        s.weightsFromHost()
        out = s.initAnchorArrays()
        s.run(popart.PyStepIO({x: np.linspace(-1, 1, 128, dtype=np.float32).reshape(4, 4, 8)}, out))
        s.weightsToHost()
        w = {"w%d" % k: np.zeros(8, np.float32) for k in range(4)}
        s.readWeights(popart.PyWeightsIO(w))
        res[rt] = (s, out[loss].copy(), w)
    m = marks(popart, res["Pipeline"][0])
    assert [m["mul0"], m["tanh0"], m["mul1"], m["tanh1"]] == ["YES", "YES", "YES", "NO"]
    assert [m["mul2"], m["tanh2"], m["mul3"], m["tanh3"]] == ["NO"] * 4
    assert res["Pipeline"][1].tobytes() == res["NoRecompute"][1].tobytes()
    for k in res["Pipeline"][2]:
        assert res["Pipeline"][2][k].tobytes() == res["NoRecompute"][2][k].tobytes()

    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [4]))
    with b.virtualGraph(0), b.pipelineStage(0):
        r = b.aiOnnx.relu([x])
    b.recomputeOutputInBackwardPass(r)
    with b.virtualGraph(1), b.pipelineStage(1):
        o = b.aiOnnx.relu([r])
    opts = popart.SessionOptions()
    opts.enablePipelining = True
    opts.virtualGraphMode = popart.VirtualGraphMode.Manual
    with pytest.raises(popart.popart_exception) as e:
        popart.InferenceSession(b.getModelProto(), popart.DataFlow(4, [o]),
                                popart.DeviceManager().createIpuModelDevice({"tilesPerIPU": 16, "numIPUs": 2}),
                                userOptions=opts)
    assert e.value.args[0] == "When pipelining is enabled, user annotation for recomputation is not allowed"


def test_matmul_chain_saving(popart):
    """12 MatMul + Relu layers on a [256, 64] activation, a checkpoint every 4: RecomputeAll
    recomputes the first 8 layers; the arena falls by more than four activations."""
    rows, d = 256, 64
    arena = {}
    for rt in ("NoRecompute", "RecomputeAll"):
        rng = np.random.default_rng(0)
        b = popart.Builder()
        x = b.addInputTensor(popart.TensorInfo("FLOAT", [rows, d]), "x")
        h = x
        for k in range(12):
            w = b.addInitializedInputTensor((rng.standard_normal((d, d)) / 8).astype(np.float32))
            h = b.aiOnnx.relu([b.aiOnnx.matmul([h, w])])
            if (k + 1) % 4 == 0 and k + 1 < 12:
                h = b.checkpointOutput([h])[0]
        loss = b.aiGraphcore.l1loss([h], 0.1)
        s, _, _ = train(popart, popart.DeviceManager().createCpuDevice(), b, x, loss,
                        getattr(popart.RecomputationType, rt), steps=1, shape=(rows, d))
        arena[rt] = s.getMemoryStats()["activationArenaBytes"]
    assert arena["RecomputeAll"] < arena["NoRecompute"] - 4 * rows * d * 4, arena
