#!/usr/bin/python3
"""Training-step benchmark: popart-runtime's TrainingSession vs PyTorch, one thread each.

Usage: /usr/bin/python3 bench/run_train_bench.py [--popart-bench PATH] [--out-dir DIR]
           [--models mlp,cnn_small,resnet18] [--rounds R] [--target-ms T] [--json FILE] [--force]
(bench/run_train_bench.sh builds popart_bench first and calls this.)

One step = forward + loss + backward + SGD update (momentum 0.9; lr 0.01, 0.001 for the folded
resnet18, whose loss grows with 0.01 when one batch is trained again and again). Both sides start from
the same weights and data: the models are exported to ONNX here (DIR, default build/bench_train)
and PyTorch trains the very same modules. The loss is nllloss (mean) over softmax probabilities:
our graph adds aiGraphcore nllloss (after a Softmax for logits); PyTorch uses nll_loss(log(p))
for the mlp (which ends in Softmax) and cross_entropy for logits.

Models: the zoo's mlp (batch 32) and cnn_small (batch 32), and torchvision's resnet18 (weights=None,
seeded, batch 4) with BatchNormalization folded into the convolutions (eval-mode statistics, as the
zoo calibrates them): both sides train that folded graph. PyTorch's standard train-mode step of
the unfolded resnet18 (batch statistics) is timed too, for reference ("resnet18 train-mode BN").

Each (round, model, side) runs in a fresh child process (OMP/OpenBLAS 1 thread, torch 1 thread,
OPENBLAS_CORETYPE unset); sides alternate per round; the time is the median of all timed steps
after the warm-up steps. The process CPU time of each step is recorded too: on a machine shared
with other work it is the steadier measure.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "zoo"))
import make_zoo  # noqa: E402  (model definitions, seeds, numpy compatibility for onnx)

SEED = 20261123
MOMENTUM = 0.9


def resnet18_folded():
    """torchvision resnet18 (seeded, BN statistics calibrated as in the zoo), BN folded into convs."""
    import torch
    from torch.nn.utils.fusion import fuse_conv_bn_eval
    model = make_zoo.vision("resnet18")()

    def fold(parent, conv_name, bn_name):
        setattr(parent, conv_name, fuse_conv_bn_eval(getattr(parent, conv_name), getattr(parent, bn_name)))
        setattr(parent, bn_name, torch.nn.Identity())

    fold(model, "conv1", "bn1")
    for layer in (model.layer1, model.layer2, model.layer3, model.layer4):
        for block in layer:
            fold(block, "conv1", "bn1")
            fold(block, "conv2", "bn2")
            if block.downsample is not None:
                block.downsample[0] = fuse_conv_bn_eval(block.downsample[0], block.downsample[1])
                block.downsample[1] = torch.nn.Identity()
    return model


def resnet18_bn():
    return make_zoo.vision("resnet18")()


# name -> (builder, input shape, head, learning rate, exported for us: True in eval mode, "train"
# with BatchNormalization in training mode, opset 15: batch statistics, running statistics as outputs)
MODELS = {
    "mlp": (make_zoo.mlp, [32, 784], "probs", 0.01, True),
    "cnn_small": (make_zoo.cnn_small, [32, 1, 28, 28], "logits", 0.01, True),
    "resnet18": (resnet18_folded, [4, 3, 224, 224], "logits", 0.001, True),
    "resnet18 train-mode BN": (resnet18_bn, [4, 3, 224, 224], "logits", 0.01, "train"),
}


def file_stem(name):
    return name.replace(" ", "_")


def prepare(name, out_dir, force):
    """ONNX model, state_dict, one input batch and its labels in out_dir (kept unless force)."""
    import torch
    build, shape, _, _, export = MODELS[name]
    stem = os.path.join(out_dir, file_stem(name))
    if not force and all(os.path.exists(stem + e) for e in ([".onnx"] if export else []) + [".pt", ".labels.bin"]):
        return
    rng = np.random.default_rng(SEED + sum(map(ord, name)))
    x = rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)
    labels = rng.integers(0, 10, size=[shape[0]]).astype(np.int32)
    x.astype("<f4").tofile(stem + ".input.bin")
    labels.astype("<i4").tofile(stem + ".labels.bin")
    model = build()
    torch.save(model.state_dict(), stem + ".pt")
    if export == "train":
        model.train()
        torch.onnx.export(model, (torch.from_numpy(x),), stem + ".onnx.tmp", opset_version=15, do_constant_folding=False,
                          input_names=["input"], output_names=["output"], training=torch.onnx.TrainingMode.TRAINING)
        os.replace(stem + ".onnx.tmp", stem + ".onnx")
    elif export:
        model.eval()
        torch.onnx.export(model, (torch.from_numpy(x),), stem + ".onnx.tmp", opset_version=13, do_constant_folding=False,
                          input_names=["input"], output_names=["output"], training=torch.onnx.TrainingMode.PRESERVE)
        os.replace(stem + ".onnx.tmp", stem + ".onnx")


def timed_runs(step, warmup, target_ms):
    first_loss = step()
    t0 = time.perf_counter()
    for _ in range(max(warmup - 1, 0)):
        step()
    warm = (time.perf_counter() - t0) * 1e3 / max(warmup - 1, 1)
    runs = max(5, min(200, int(np.ceil(target_ms / max(warm, 0.01)))))
    samples, cpu = [], []
    for _ in range(runs):
        c0 = time.process_time()
        t0 = time.perf_counter()
        last_loss = step()
        samples.append((time.perf_counter() - t0) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
    return first_loss, last_loss, samples, cpu


def peak_rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return -1


def child_torch(name, out_dir, warmup, target_ms):
    import torch
    torch.set_num_threads(1)
    build, shape, head, lr, _ = MODELS[name]
    stem = os.path.join(out_dir, file_stem(name))
    model = build()
    model.load_state_dict(torch.load(stem + ".pt"))
    # The folded resnet18 and the MLPs have no BN or dropout: train() and eval() compute the same;
    # the reference resnet18 uses batch statistics, PyTorch's usual training step.
    model.train()
    x = torch.from_numpy(np.fromfile(stem + ".input.bin", dtype="<f4").reshape(shape))
    y = torch.from_numpy(np.fromfile(stem + ".labels.bin", dtype="<i4").astype(np.int64))
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=MOMENTUM)

    def step():
        opt.zero_grad(set_to_none=True)
        out = model(x)
        if head == "probs":
            loss = torch.nn.functional.nll_loss(torch.log(out), y)
        else:
            loss = torch.nn.functional.cross_entropy(out, y)
        loss.backward()
        opt.step()
        return loss.item()

    first, last, samples, cpu = timed_runs(step, warmup, target_ms)
    print(json.dumps({"median_ms": float(np.median(samples)), "median_cpu_ms": float(np.median(cpu)),
                      "runs": len(samples), "first_loss": first, "last_loss": last, "peak_rss_kb": peak_rss_kb(),
                      "samples_ms": samples, "cpu_samples_ms": cpu}))


def run_child(cmd):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env.pop("OPENBLAS_CORETYPE", None)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    line = next((l for l in p.stdout.splitlines() if l.startswith("{")), None)
    if p.returncode != 0 or line is None:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-2000:]))
    return json.loads(line)


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--popart-bench", default=os.path.join(ROOT, "build", "native", "bench", "popart_bench"))
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "build", "bench_train"))
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--target-ms", type=float, default=3000)
    ap.add_argument("--json", default="")
    ap.add_argument("--force", action="store_true", help="export the models again")
    ap.add_argument("--child-torch", default="")
    args = ap.parse_args()
    import warnings
    warnings.filterwarnings("ignore")
    if args.child_torch:
        child_torch(args.child_torch, args.out_dir, args.warmup, args.target_ms)
        return 0
    names = [m for m in args.models.split(",") if m]
    for n in names:
        if n not in MODELS:
            print("unknown model %r (known: %s)" % (n, ", ".join(MODELS)), file=sys.stderr)
            return 2
    if not os.path.exists(args.popart_bench):
        print("%s not found: build popart_bench first (bench/run_train_bench.sh does)" % args.popart_bench,
              file=sys.stderr)
        return 2
    import torch
    torch.set_num_threads(1)
    os.makedirs(args.out_dir, exist_ok=True)
    for n in names:
        prepare(n, args.out_dir, args.force)
    res = {}
    for rnd in range(args.rounds):
        for n in names:
            _, _, head, lr, ours_too = MODELS[n]
            sides = ["torch", "ours"] if ours_too else ["torch"]
            if rnd % 2:
                sides.reverse()
            stem = os.path.join(args.out_dir, file_stem(n))
            for side in sides:
                if side == "ours":
                    cmd = [args.popart_bench, "train", stem + ".onnx", stem + ".input.bin", stem + ".labels.bin",
                           "--head", head, "--lr", str(lr), "--momentum", str(MOMENTUM), "--warmup",
                           str(args.warmup), "--target-ms", str(args.target_ms)]
                else:
                    cmd = [sys.executable, os.path.abspath(__file__), "--child-torch", n, "--out-dir", args.out_dir,
                           "--warmup", str(args.warmup), "--target-ms", str(args.target_ms)]
                r = run_child(cmd)
                res.setdefault(n, {}).setdefault(side, []).append(r)
                print("[round %d] %-24s %-5s median %9.3f ms (cpu %9.3f ms)  first-step loss %.6f" %
                      (rnd, n, side, r["median_ms"], r["median_cpu_ms"], r["first_loss"]), file=sys.stderr,
                      flush=True)
    rows = []
    for n in names:
        t = res[n]["torch"]
        tm = float(np.median([s for r in t for s in r["samples_ms"]]))
        tc = float(np.median([s for r in t for s in r["cpu_samples_ms"]]))
        row = {"model": n, "batch": MODELS[n][1][0], "torch_ms": tm, "torch_cpu_ms": tc,
               "torch_loss": t[0]["first_loss"], "torch_rss_mb": max(r["peak_rss_kb"] for r in t) / 1024}
        if "ours" in res[n]:
            o = res[n]["ours"]
            om = float(np.median([s for r in o for s in r["samples_ms"]]))
            oc = float(np.median([s for r in o for s in r["cpu_samples_ms"]]))
            row.update({"ours_ms": om, "ours_cpu_ms": oc, "ratio": om / tm, "cpu_ratio": oc / tc,
                        "ours_loss": o[0]["first_loss"], "ours_rss_mb": max(r["peak_rss_kb"] for r in o) / 1024})
        rows.append(row)
    print("# training step (forward + loss + backward + SGD momentum update): popart-runtime vs PyTorch %s, 1 thread"
          % torch.__version__)
    print("# %s, %d cpus; %d round(s), medians over all samples" % (cpu_model(), os.cpu_count(), args.rounds))
    print("| model | batch | PyTorch ms | ours ms | ours/PyTorch | CPU ms PyTorch / ours | CPU ratio "
          "| first-step loss ours / PyTorch | peak RSS MB ours / PyTorch |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "ours_ms" in r:
            print("| %s | %d | %.3f | %.3f | %.2f | %.3f / %.3f | %.2f | %.6f / %.6f | %.1f / %.1f |" % (
                r["model"], r["batch"], r["torch_ms"], r["ours_ms"], r["ratio"], r["torch_cpu_ms"], r["ours_cpu_ms"],
                r["cpu_ratio"], r["ours_loss"], r["torch_loss"], r["ours_rss_mb"], r["torch_rss_mb"]))
        else:
            print("| %s | %d | %.3f | - | - | %.3f / - | - | - / %.6f | - / %.1f |" % (
                r["model"], r["batch"], r["torch_ms"], r["torch_cpu_ms"], r["torch_loss"], r["torch_rss_mb"]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d"), "rows": rows, "raw": res}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
