"""How long a session takes from the model's bytes to a prepared device (the work PopART's engine
cache skips on IPU hardware, where compiling takes minutes): InferenceSession / TrainingSession
creation and prepareDevice() for models of the zoo, on the CPU and IPU-model devices, median of
--rounds. Run from the build tree:
  PYTHONPATH=build/ci/python /usr/bin/python3 bench/session_startup.py build/zoo
"""
import argparse
import os
import statistics
import time

import popart


def device(kind):
    dm = popart.DeviceManager()
    return dm.createCpuDevice() if kind == "cpu" else dm.createIpuModelDevice({"numIPUs": 1, "tilesPerIPU": 1472})


def session(proto, kind, training):
    b = popart.Builder(proto)
    out = b.getOutputTensorIds()[0]
    if not training:
        return lambda: popart.InferenceSession(proto, popart.DataFlow(1, [out]), device(kind))
    label = b.addInputTensor(popart.TensorInfo("INT32", [b.getTensorShape(out)[0]]))
    loss = b.aiGraphcore.nllloss([b.aiOnnx.softmax([out]), label])
    model = b.getModelProto()
    return lambda: popart.TrainingSession(model, popart.DataFlow(1, [loss]), loss,
                                          popart.SGD({"defaultLearningRate": (0.1, False)}), device(kind))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("zoo")
    ap.add_argument("--models", default="resnet18,mobilenet_v2,squeezenet1_0,alexnet,cnn_small,mlp")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    print("| model | mode | device | create ms | prepareDevice ms | total ms |")
    print("|---|---|---|---|---|---|")
    for name in a.models.split(","):
        path = os.path.join(a.zoo, name + ".onnx")
        if not os.path.exists(path):
            continue
        proto = open(path, "rb").read()
        for training in (False, True):
            for kind in ("cpu", "ipumodel"):
                make = session(proto, kind, training)
                create, prepare = [], []
                for _ in range(a.rounds):
                    t0 = time.perf_counter()
                    s = make()
                    t1 = time.perf_counter()
                    s.prepareDevice()
                    t2 = time.perf_counter()
                    create.append((t1 - t0) * 1e3)
                    prepare.append((t2 - t1) * 1e3)
                    del s
                c, p = statistics.median(create), statistics.median(prepare)
                print(f"| {name} | {'training' if training else 'inference'} | {kind} | {c:.1f} | {p:.1f} | "
                      f"{c + p:.1f} |", flush=True)


if __name__ == "__main__":
    main()
