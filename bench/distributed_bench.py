"""Replicated training on one machine: resnet18 (BatchNorm folded, as bench/run_train_bench.py
trains it; batch 8 per replica) with 2 replicas, as 1 process x 2 threads (local replicas) and as 2
processes x 1 thread each (mpirun, one replica per process), against 1 process x 1 replica for the
per-replica cost. Prints steps per second, images per second and the time the gradient sums take
per step (from the session's summary: over the process's replicas, and between the processes).

    bench/run_distributed_bench.sh [--steps N] [--batch B]
    (or: PYTHONPATH=<build>/python /usr/bin/python3 bench/distributed_bench.py --steps N)
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"


def export(path, batch):
    """torchvision resnet18 (seeded), BN folded, exported at `batch` (run_train_bench's model)."""
    if os.path.exists(path):
        return
    import torch
    sys.path.insert(0, HERE)
    import run_train_bench as rtb
    model = rtb.resnet18_folded().eval()
    x = torch.zeros(batch, 3, 224, 224)
    torch.onnx.export(model, (x,), path + ".tmp", opset_version=13, do_constant_folding=False,
                      input_names=["input"], output_names=["logits"])
    os.replace(path + ".tmp", path)


def worker(args):
    """One process: trains `steps` steps (after 2 warm-up steps) and prints a JSON line."""
    import popart
    import popdist
    import popdist.popart
    b = popart.Builder(args.model)
    logits = b.getOutputTensorIds()[0]
    loss = b.aiGraphcore.l1loss([logits], 0.001, reduction=popart.ReductionType.Mean)
    opts = popart.SessionOptions()
    opts.engineOptions = {"debug.instrument": "true"}  # the summary (with the gradient sums' time)
    if popdist.isPopdistEnvSet():
        popdist.popart.configureSessionOptions(opts)
    else:
        opts.replicatedGraphCount = args.local
        opts.enableReplicatedGraphs = args.local > 1
    local = opts.replicatedGraphCount
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss,
                               popart.SGD({"defaultLearningRate": (0.001, True), "defaultMomentum": (0.9, True)}),
                               popart.DeviceManager().createCpuDevice(), userOptions=opts)
    s.prepareDevice()
    s.weightsFromHost()
    anchors = s.initAnchorArrays()
    rng = np.random.default_rng(popdist.getInstanceIndex())
    shape = [local, args.batch, 3, 224, 224] if local > 1 else [args.batch, 3, 224, 224]
    io = popart.PyStepIO({"input": rng.standard_normal(shape).astype(np.float32)}, anchors)
    for _ in range(2):
        s.run(io)
    t0 = time.perf_counter()
    for _ in range(args.steps):
        s.run(io)
    seconds = (time.perf_counter() - t0) / args.steps
    summary = s.getSummaryReport()
    m = re.search(r"Exchanges between replicas \(gradient sums, collectives\): \d+, on average ([0-9.e+-]+) ms over this process's replicas"
                  r"(?: \+ ([0-9.e+-]+) ms between the processes)?", summary)
    local_ms = float(m.group(1)) if m else 0.0
    mpi_ms = float(m.group(2)) if m and m.group(2) else 0.0
    print("RESULT " + json.dumps({"rank": popdist.getInstanceIndex(), "step_s": seconds, "local": local,
                                  "sum_local_ms": local_ms, "sum_mpi_ms": mpi_ms}), flush=True)


def launch(cmd, env):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(p.stdout + p.stderr)
    texts = [line.split("RESULT ", 1)[1] for line in p.stdout.splitlines() if "RESULT " in line]
    rows = [json.loads(t[:t.rindex("}") + 1]) for t in texts]
    return rows


def cpu_model():
    with open("/proc/cpuinfo") as f:
        text = f.read()
    name = re.search(r"model name\s*:\s*(.*)", text).group(1)
    flags = re.search(r"flags\s*:\s*(.*)", text).group(1).split()
    ext = [f for f in ("avx2", "fma", "avx512f", "avx512bw", "avx512vnni") if f in flags]
    return f"{name} ({', '.join(ext)}), {os.cpu_count()} cores"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--batch", type=int, default=8, help="images per replica")
    ap.add_argument("--dir", default=os.path.join(os.path.dirname(HERE), "build", "bench_distributed"))
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    ap.add_argument("--local", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    os.makedirs(args.dir, exist_ok=True)
    model = os.path.join(args.dir, f"resnet18_folded_b{args.batch}.onnx")
    export(model, args.batch)
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    base = [PYTHON, os.path.abspath(__file__), "--worker", "--model", model, "--steps", str(args.steps),
            "--batch", str(args.batch)]
    one = launch(base + ["--local", "1"], dict(env, POPART_NUM_THREADS="1"))[0]
    two_threads = launch(base + ["--local", "2"], dict(env, POPART_NUM_THREADS="2"))[0]
    mpirun = shutil.which("mpirun")
    poprun = os.path.join(os.path.dirname(HERE), "scripts", "poprun")
    two_procs = launch([poprun, "--num-instances", "2", "--num-replicas", "2", "--"] + base,
                       dict(env, POPART_NUM_THREADS="1")) if mpirun else []
    print(f"machine: {cpu_model()}")
    print(f"resnet18 (BN folded), batch {args.batch} per replica, SGD momentum; {args.steps} timed steps\n")
    print("| layout | replicas | step (ms) | steps/s | images/s | gradient sum per step (ms) |")
    print("|---|---|---|---|---|---|")

    def row(name, replicas, r):
        step = max(x["step_s"] for x in r)
        sums = max(x["sum_local_ms"] + x["sum_mpi_ms"] for x in r)
        print(f"| {name} | {replicas} | {step * 1e3:.0f} | {1 / step:.2f} | {replicas * args.batch / step:.1f} | "
              f"{sums:.1f} |")

    row("1 process x 1 thread (no replication)", 1, [one])
    row("1 process x 2 threads, 2 local replicas", 2, [two_threads])
    if two_procs:
        row("2 processes x 1 thread (mpirun), 1 replica each", 2, two_procs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
