"""Data-parallel training of the digits CNN (native/examples/train_digits.cpp's model, sklearn's
handwritten digits) over several processes: each process runs its replicas on its share of every
step's images, the gradients are summed over all replicas, and process 0 prints the loss per step
and the final training accuracy.

    scripts/poprun --num-instances 2 --num-replicas 2 python3 python/examples/distributed_digits.py
    scripts/poprun --num-instances 2 --num-replicas 4 --host node1,node2 python3 python/examples/distributed_digits.py
    python3 python/examples/distributed_digits.py        # one process, one replica

(PYTHONPATH=<build>/python when popart is not installed.)
"""
import argparse
import gzip

import numpy as np
import popart
import popdist
import popdist.popart

DIGITS_CSV = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
BATCH, CLASSES = 16, 10  # images per replica and micro-batch


def read_digits():
    with gzip.open(DIGITS_CSV, "rt") as f:
        data = np.loadtxt(f, delimiter=",", dtype=np.float32)
    return (data[:, :64] / 16.0).reshape(-1, 1, 8, 8).astype(np.float32), data[:, 64].astype(np.int32)


def build(rng):
    """conv 3x3 (16) - relu - maxpool - conv 3x3 (32) - relu - maxpool - gemm 128x64 - relu -
    gemm 64x10 - softmax - nllloss (mean)."""
    b = popart.Builder()
    ai = b.aiOnnxOpset13

    def weight(shape, fan_in, name):
        lim = np.sqrt(6.0 / fan_in)
        return b.addInitializedInputTensor(rng.uniform(-lim, lim, shape).astype(np.float32), name)

    def bias(k, name):
        return b.addInitializedInputTensor(np.zeros(k, np.float32), name)

    x = b.addInputTensor(popart.TensorInfo("FLOAT", [BATCH, 1, 8, 8]), "image")
    label = b.addInputTensor(popart.TensorInfo("INT32", [BATCH]), "label")
    h = ai.conv([x, weight((16, 1, 3, 3), 9, "conv1.w"), bias(16, "conv1.b")], [1, 1], 1, [3, 3], [1, 1, 1, 1])
    h = ai.maxpool([ai.relu([h])], 1, [2, 2], strides=[2, 2])[0]
    h = ai.conv([h, weight((32, 16, 3, 3), 144, "conv2.w"), bias(32, "conv2.b")], [1, 1], 1, [3, 3], [1, 1, 1, 1])
    h = ai.flatten([ai.maxpool([ai.relu([h])], 1, [2, 2], strides=[2, 2])[0]], 1)
    h = ai.relu([ai.gemm([h, weight((128, 64), 128, "fc1.w"), bias(64, "fc1.b")])])
    probs = ai.softmax([ai.gemm([h, weight((64, CLASSES), 64, "fc2.w"), bias(CLASSES, "fc2.b")])], 1)
    loss = b.aiGraphcore.nllloss([probs, label], popart.ReductionType.Mean)
    return b, x, label, probs, loss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=4)
    args = ap.parse_args()
    popdist.init()
    rank = popdist.getInstanceIndex()
    images, labels = read_digits()
    b, x, label, probs, loss = build(np.random.default_rng(7))  # the same start on every process

    opts = popart.SessionOptions()
    popdist.popart.configureSessionOptions(opts)
    local, total, offset = opts.replicatedGraphCount, opts.globalReplicationFactor, opts.globalReplicaOffset
    opts.accumulationAndReplicationReductionType = popart.ReductionType.Mean  # the mean over all replicas
    opt = popart.SGD({"defaultLearningRate": (0.05, True), "defaultMomentum": (0.9, True)})
    session = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, {loss: popart.AnchorReturnType("All")}),
                                     loss, opt, popdist.popart.getDevice(), userOptions=opts)
    session.prepareDevice()
    session.weightsFromHost()
    anchors = session.initAnchorArrays()

    per_step = total * BATCH  # images of one step, over every replica
    steps = len(labels) // per_step
    shuffle = np.random.default_rng(2026)  # the same order on every process
    for epoch in range(args.epochs):
        order = shuffle.permutation(len(labels))
        for step in range(steps):
            ids = order[step * per_step:(step + 1) * per_step].reshape(total, BATCH)[offset:offset + local]
            xs, ys = images[ids], labels[ids]
            if local == 1:
                xs, ys = xs[0], ys[0]
            session.run(popart.PyStepIO({x: np.ascontiguousarray(xs), label: np.ascontiguousarray(ys)}, anchors))
            if rank == 0 and step % 10 == 0:
                print(f"epoch {epoch} step {step:3d}: loss {float(np.mean(anchors[loss])):.4f} "
                      f"(replicas {offset}-{offset + local - 1} of {total})", flush=True)

    if rank == 0:  # accuracy of the trained weights on every image
        infer = popart.InferenceSession(session.modelToHostBytes(), popart.DataFlow(1, [probs]),
                                        popart.DeviceManager().createCpuDevice())
        infer.prepareDevice()
        out = infer.initAnchorArrays()
        right = 0
        for i in range(len(labels) // BATCH):
            sl = slice(i * BATCH, (i + 1) * BATCH)
            infer.run(popart.PyStepIO({x: images[sl], label: labels[sl]}, out))
            right += int((out[probs].argmax(1) == labels[sl]).sum())
        print(f"training accuracy: {right / (len(labels) // BATCH * BATCH):.4f}", flush=True)


if __name__ == "__main__":
    main()
