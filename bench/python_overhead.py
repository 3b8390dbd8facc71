#!/usr/bin/python3
"""Python session.run against the C++ run (popart_bench) on the same models, one thread each, in
alternating child processes: what the Python binding adds per call. Also one training step
(forward + nllloss + backward + SGD update) from Python against popart_bench train.

  bench/python_overhead.py --popart-bench build/py/bench/popart_bench --zoo build/zoo \
      --pythonpath build/py/python [--rounds 3] [--target-ms 2000]

Models: "tiny" (a [2, 3] Add built with the Python Builder: the call itself), the zoo's mlp
([32, 784]) and resnet18 ([1, 3, 224, 224]); training: mlp and cnn_small. Each Python figure is the
median of timed session.run(stepio) calls on one PyStepIO (inputs read in place: no copy); "new
StepIO" also builds a PyStepIO per call, as scripts often do."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = r'''
import json, sys, time
import numpy as np
sys.path.insert(0, PYTHONPATH)
import popart
popart.setNumThreads(1)

def timed(fn, target_ms, warmup=5, min_runs=20, max_runs=200000):
    for _ in range(warmup):
        fn()
    t0 = time.perf_counter(); fn(); one = max(time.perf_counter() - t0, 1e-7)
    runs = int(min(max(target_ms / 1000.0 / one, min_runs), max_runs))
    s = []
    for _ in range(runs):
        t0 = time.perf_counter(); fn(); s.append(time.perf_counter() - t0)
    return float(np.median(s)) * 1000.0, runs

dev = popart.DeviceManager().createCpuDevice()
x = np.fromfile(INPUT, dtype=np.float32)
if MODE == "infer":
    s = popart.InferenceSession(MODEL, popart.DataFlow(1, [OUT]), dev)
    s.prepareDevice()
    x = x.reshape(s.getInfo(IN).shape())
    a = s.initAnchorArrays()
    io = popart.PyStepIO({IN: x}, a)
    med, runs = timed(lambda: s.run(io), TARGET)
    med_new, _ = timed(lambda: s.run(popart.PyStepIO({IN: x}, a)), TARGET)
    print(json.dumps({"median_ms": med, "median_new_stepio_ms": med_new, "runs": runs}))
else:
    labels = np.fromfile(LABELS, dtype=np.int32)
    b = popart.Builder(MODEL)
    label = b.addInputTensor(popart.TensorInfo("INT32", [len(labels)]), "label")
    probs = b.aiOnnxOpset13.softmax([OUT], 1)
    loss = b.aiGraphcore.nllloss([probs, label], popart.ReductionType.Mean)
    b.addOutputTensor(loss)
    sgd = popart.SGD({"defaultLearningRate": (0.01, True), "defaultMomentum": (0.9, True)})
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, sgd, dev)
    s.prepareDevice()
    s.weightsFromHost()
    x = x.reshape(s.getInfo(IN).shape())
    a = s.initAnchorArrays()
    io = popart.PyStepIO({IN: x, label: labels}, a)
    med, runs = timed(lambda: s.run(io), TARGET)
    print(json.dumps({"median_ms": med, "runs": runs}))
'''


def run_python(args, mode, model, inp, labels, in_id, out_id):
    code = "\n".join(["PYTHONPATH = %r" % os.path.abspath(args.pythonpath), "MODE = %r" % mode,
                      "MODEL = %r" % model, "INPUT = %r" % inp, "LABELS = %r" % labels, "IN = %r" % in_id,
                      "OUT = %r" % out_id, "TARGET = %d" % args.target_ms]) + CHILD
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=ENV)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_cpp(args, mode, model, inp, labels, in_id, out_id):
    cmd = [args.popart_bench] + (["train"] if mode == "train" else []) + [model, inp]
    if mode == "train":
        cmd += [labels, "--head", "logits", "--lr", "0.01", "--momentum", "0.9"]
    cmd += ["--input-name", in_id, "--output-name", out_id, "--target-ms", str(args.target_ms),
            "--max-runs", "200000", "--min-runs", "20"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=ENV)
    return json.loads(out.stdout.strip().splitlines()[-1])


ENV = dict(os.environ, POPART_NUM_THREADS="1", OMP_NUM_THREADS="1")
ENV.pop("OPENBLAS_CORETYPE", None)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--popart-bench", required=True)
    ap.add_argument("--zoo", required=True)
    ap.add_argument("--pythonpath", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--target-ms", type=int, default=2000)
    args = ap.parse_args()
    sys.path.insert(0, os.path.abspath(args.pythonpath))
    import numpy as np
    import popart

    tmp = tempfile.mkdtemp(prefix="popart_pybench_")
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [2, 3], "x")
    o = b.aiOnnx.add([x, x])
    b.addOutputTensor(o)
    tiny = os.path.join(tmp, "tiny.onnx")
    b.saveModelProto(tiny)
    np.ones((2, 3), np.float32).tofile(os.path.join(tmp, "tiny.input.bin"))
    cases = [("infer", "tiny", tiny, os.path.join(tmp, "tiny.input.bin"), None, x, o)]
    for m in ("mlp", "resnet18"):
        cases.append(("infer", m, os.path.join(args.zoo, m + ".onnx"), os.path.join(args.zoo, m + ".input.bin"),
                      None, "input", "output"))
    for m, batch in (("mlp", 32), ("cnn_small", 32)):
        labels = os.path.join(tmp, m + ".labels.bin")
        (np.arange(batch) % 10).astype(np.int32).tofile(labels)
        cases.append(("train", m, os.path.join(args.zoo, m + ".onnx"), os.path.join(args.zoo, m + ".input.bin"),
                      labels, "input", "output"))

    results = {}
    for r in range(args.rounds):
        for mode, name, model, inp, labels, in_id, out_id in cases:
            key = (mode, name)
            res = results.setdefault(key, {"cpp": [], "py": [], "py_new": []})
            order = [run_cpp, run_python] if r % 2 == 0 else [run_python, run_cpp]
            for fn in order:
                out = fn(args, mode, model, inp, labels, in_id, out_id)
                if fn is run_cpp:
                    res["cpp"].append(out["median_ms"])
                else:
                    res["py"].append(out["median_ms"])
                    if "median_new_stepio_ms" in out:
                        res["py_new"].append(out["median_new_stepio_ms"])
    print("| mode | model | C++ run ms | Python run ms | Python - C++ (us) | Python, new PyStepIO per call ms |")
    print("|---|---|---|---|---|---|")
    for (mode, name), res in results.items():
        c, p = statistics.median(res["cpp"]), statistics.median(res["py"])
        pn = "%.4f" % statistics.median(res["py_new"]) if res["py_new"] else "-"
        print("| %s | %s | %.4f | %.4f | %+.1f | %s |" % (mode, name, c, p, (p - c) * 1000.0, pn))
    print(json.dumps({"%s/%s" % k: v for k, v in results.items()}))


if __name__ == "__main__":
    main()
