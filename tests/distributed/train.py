"""One process of a distributed training run (tests/python/test_distributed.py launches it under
mpirun, and once on its own as the single-process reference). A small tanh MLP trains STEPS
steps; global replica g of step s gets micro-batch xs[s, g], so any split of the replicas over
processes sees the same data. Each process writes its final weights and its replicas' losses to
<out>/rank<r>.npz; process 0 also saves the model (modelToHost).

    train.py --out DIR [--replicas TOTAL] [--local N] [--optimizer sgd|momentum|adam] [--mean]
             [--popdist] [--mpi4py] [--perturb] [--broadcast] [--lr LR] [--stall SECONDS]
             [--stall-training SECONDS] [--die-before-training] [--wrong-offset] [--lr-of-rank1 LR]
             [--collectives] [--wide] [--shard local|all] [--grouped Consecutive|Orthogonal]

--collectives adds the Builder's collectives between replicas to the model, over groups that span
the processes: the hidden layer summed over Orthogonal pairs ({0, 2}, {1, 3} of 4), the output
reduce-scattered over Consecutive pairs into a second loss term, and the hidden layer's maximum
over every replica as an anchor (saved as "maxima"). --shard shards the optimizer state (replicated
tensor sharding) over each process's replicas (local) or over all of them (all: an error when
distributed). --grouped gives w2 a value per pair of replicas (VariableSettings over the global
replicas: Consecutive pairs {0, 1}, {2, 3} lie in one process each at 2 x 2, Orthogonal pairs
{0, 2}, {1, 3} span the processes); w2 is then saved as [2, 3, 2].
"""
import argparse
import os
import sys
import time

import numpy as np

STEPS = 3
BATCH = 2


WIDE = 360000  # --wide: w2 [3, WIDE] of 4.3 MB, more than one bucket of the sum between processes


def data(total, wide=False):
    rng = np.random.default_rng(11)
    w1 = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    w2 = rng.uniform(-1, 1, (3, WIDE if wide else 2)).astype(np.float32)
    xs = rng.uniform(-2, 2, (STEPS, total, BATCH, 4)).astype(np.float32)
    return w1, w2, xs


def optimizer(popart, name, lr):
    if name == "sgd":
        return popart.SGD({"defaultLearningRate": (lr, True)})
    if name == "momentum":
        return popart.SGD({"defaultLearningRate": (lr, True), "defaultMomentum": (0.9, True)})
    return popart.Adam({"defaultLearningRate": (lr, True), "defaultEps": (1e-8, True)})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--replicas", type=int, default=4, help="global replicas")
    p.add_argument("--local", type=int, default=None, help="replicas of this process (default: replicas / ranks)")
    p.add_argument("--optimizer", default="momentum")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--mean", action="store_true")
    p.add_argument("--popdist", action="store_true", help="options from popdist.popart.configureSessionOptions")
    p.add_argument("--mpi4py", action="store_true", help="the script starts MPI itself (mpi4py) first")
    p.add_argument("--perturb", action="store_true", help="ranks > 0 start from other weights")
    p.add_argument("--broadcast", action="store_true", help="broadcastWeights(0) before training")
    p.add_argument("--stall", type=float, default=0.0, help="rank 1 sleeps this long before preparing")
    p.add_argument("--stall-training", type=float, default=0.0, help="rank 1 sleeps this long before training")
    p.add_argument("--lr-of-rank1", type=float, default=None, help="rank 1's learning rate (a mismatch)")
    p.add_argument("--die-before-training", action="store_true", help="rank 1 exits before training")
    p.add_argument("--wrong-offset", action="store_true", help="every rank claims globalReplicaOffset 0")
    p.add_argument("--collectives", action="store_true", help="collectives between replicas in the model")
    p.add_argument("--wide", action="store_true", help="a 4.3 MB weight: the sums go in buckets, overlapping")
    p.add_argument("--shard", choices=["local", "all"], help="replicated tensor sharding of the optimizer state")
    p.add_argument("--grouped", choices=["Consecutive", "Orthogonal"], help="w2 grouped by VariableSettings")
    a = p.parse_args()

    if a.mpi4py:
        from mpi4py import MPI  # noqa: F401  (MPI_Init by mpi4py)
    import popart
    import popdist
    import popdist.popart

    rank, ranks = popdist.getInstanceIndex(), popdist.getNumInstances()
    local = a.local or a.replicas // ranks
    offset = rank * local
    w1, w2, xs = data(a.replicas, a.wide)
    if a.perturb and rank > 0:
        w1, w2 = w1 + 0.5, w2 - 0.25

    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [BATCH, 4]), "x")
    wa = b.addInitializedInputTensor(w1, "w1")
    if a.grouped:
        w2 = np.stack([w2, 0.5 * w2])  # a value per group of 2 replicas
        settings = popart.VariableSettings(popart.CommGroup(getattr(popart.CommGroupType, a.grouped), 2))
        wb = b.addInitializedInputTensor(w2, settings, "w2")
    else:
        wb = b.addInitializedInputTensor(w2, "w2")
    h = b.aiOnnx.tanh([b.aiOnnx.matmul([x, wa])])
    anchored = {}
    if a.collectives:
        orthogonal = popart.CommGroup(popart.CommGroupType.Orthogonal, 2)
        consecutive = popart.CommGroup(popart.CommGroupType.Consecutive, 2)
        anchored["maxima"] = b.aiGraphcore.replicatedallreduce([h], popart.CollectiveOperator.Max)
        h = b.aiGraphcore.replicatedallreduce([h], popart.CollectiveOperator.Add, orthogonal)
    y = b.aiOnnx.matmul([h, wb])
    loss = b.aiGraphcore.l1loss([y], 1.0, reduction=popart.ReductionType.Sum)
    if a.collectives:
        shard = b.aiGraphcore.replicatedreducescatter([y], popart.CollectiveOperator.Add, consecutive)
        loss = b.aiOnnx.add([loss, b.aiGraphcore.l1loss([shard], 0.5, reduction=popart.ReductionType.Sum)])

    opts = popart.SessionOptions()
    if a.popdist:
        popdist.popart.configureSessionOptions(opts)
        assert opts.globalReplicationFactor == a.replicas, (opts.globalReplicationFactor, a.replicas)
        offset = opts.globalReplicaOffset
    else:
        opts.replicatedGraphCount = local
        opts.enableReplicatedGraphs = local > 1
        if ranks > 1:
            opts.enableDistributedReplicatedGraphs = True
            opts.globalReplicationFactor = a.replicas
            opts.globalReplicaOffset = 0 if a.wrong_offset else offset
    if a.shard:
        rts = opts.optimizerStateTensorLocationSettings
        rts.location.replicatedTensorSharding = popart.ReplicatedTensorSharding.On
        rts.minElementsForReplicatedTensorSharding = 4
        if a.shard == "local":
            rts.location.shardingDomain = popart.CommGroup(popart.CommGroupType.Consecutive, local)
    if a.mean:
        opts.accumulationAndReplicationReductionType = popart.ReductionType.Mean
    if a.stall and rank == 1:
        time.sleep(a.stall)
    device = popdist.popart.getDevice() if a.popdist else popart.DeviceManager().createCpuDevice()
    flow = {t: popart.AnchorReturnType("All") for t in [loss, *anchored.values()]}
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, flow), loss,
                               optimizer(popart, a.optimizer, a.lr_of_rank1 if a.lr_of_rank1 and rank == 1 else a.lr), device, userOptions=opts)
    s.prepareDevice()
    s.weightsFromHost()
    if a.broadcast:
        s.broadcastWeights(0)
    if a.die_before_training and rank == 1:
        os._exit(3)
    if a.stall_training and rank == 1:
        time.sleep(a.stall_training)
    anchors = s.initAnchorArrays()
    losses, seen = [], {k: [] for k in anchored}
    for step in range(STEPS):
        mine = xs[step, offset:offset + local]
        s.run(popart.PyStepIO({x: mine if local > 1 else mine[0]}, anchors))
        losses.append(np.array(anchors[loss]).reshape(local))
        for k, t in anchored.items():
            seen[k].append(np.array(anchors[t]).reshape(local, -1))
    out = {wa: np.zeros_like(w1), wb: np.zeros_like(w2)}
    s.weightsToHost()
    s.readWeights(popart.PyWeightsIO(out))
    os.makedirs(a.out, exist_ok=True)
    np.savez(os.path.join(a.out, f"rank{rank}.npz"), w1=out[wa], w2=out[wb], losses=np.stack(losses),
             offset=offset, local=local, **{k: np.stack(v) for k, v in seen.items()})
    s.modelToHost(os.path.join(a.out, "model.onnx"))
    if rank == 0:
        print(f"trained {STEPS} steps on {a.replicas} replicas over {ranks} process(es)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
