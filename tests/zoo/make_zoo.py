#!/usr/bin/python3
"""Exports the reference model zoo with PyTorch and records PyTorch's outputs.

Usage: /usr/bin/python3 tests/zoo/make_zoo.py OUT_DIR [--only a,b] [--force]

Every model NAME gets OUT_DIR/NAME.onnx, NAME.input.bin and NAME.output.bin (raw little-endian
float32) and an entry in OUT_DIR/manifest.json (shapes, opset, op types, torch version). The seed
documents' own AlexNet exports (SEED_MODELS: torch.onnx.export called as the seeds call it, so the
input is torch's "input.1") are listed under manifest["seed_models"], apart from the models every
zoo user runs. Weights
come from fixed seeds (`weights=None`: nobody's pretrained weights); BatchNorm running statistics
are calibrated on seeded random batches before export so that eval-mode outputs have realistic
magnitudes. Models already present (same recipe hash) are skipped unless --force.

Needs Debian's python3-torch, python3-torchvision, python3-onnx and python3-numpy.
"""
import argparse
import hashlib
import json
import os
import sys
import time

import numpy as np

# onnx 1.12 still uses numpy aliases that numpy 1.24 removed.
for _name, _typ in (("float", float), ("int", int), ("bool", bool), ("object", object)):
    if _name not in np.__dict__:
        setattr(np, _name, _typ)

SEED = 20261122
RECIPE_VERSION = 1


def torch_mod():
    import torch
    return torch


def mlp():
    torch = torch_mod()
    torch.manual_seed(SEED + 1)
    nn = torch.nn
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                         nn.Linear(512, 10), nn.Softmax(dim=1))


def cnn_small():
    torch = torch_mod()
    torch.manual_seed(SEED + 2)
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def calibrate_batchnorm(model, shape):
    """Running statistics from seeded random batches (cumulative average), then eval mode."""
    torch = torch_mod()
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if bns:
        gen = torch.Generator().manual_seed(SEED + 7)
        for m in bns:
            m.reset_running_stats()
            m.momentum = None
        model.train()
        with torch.no_grad():
            for _ in range(4):
                model(torch.rand([8] + list(shape[1:]), generator=gen) * 2 - 1)
        for m in bns:
            m.momentum = 0.1
    return model.eval()


def vision(name):
    def build():
        torch = torch_mod()
        import torchvision
        torch.manual_seed(SEED + 3)
        model = getattr(torchvision.models, name)(weights=None)
        return calibrate_batchnorm(model, [1, 3, 224, 224])
    return build


def transformer_layer():
    torch = torch_mod()
    torch.manual_seed(SEED + 4)
    return torch.nn.TransformerEncoderLayer(d_model=256, nhead=4)  # input [seq, batch, 256]


# name -> (builder, input shape, opset)
MODELS = {
    "mlp": (mlp, [32, 784], 13),
    "cnn_small": (cnn_small, [32, 1, 28, 28], 13),
    "alexnet": (vision("alexnet"), [1, 3, 224, 224], 13),
    "resnet18": (vision("resnet18"), [1, 3, 224, 224], 13),
    "mobilenet_v2": (vision("mobilenet_v2"), [1, 3, 224, 224], 13),
    "squeezenet1_0": (vision("squeezenet1_0"), [1, 3, 224, 224], 13),
    "transformer_layer": (transformer_layer, [64, 1, 256], 13),
    "transformer_layer_opset17": (transformer_layer, [64, 1, 256], 17),
}


# The seed documents' AlexNet exports, for tests/unit/seed_examples_test.cpp and
# tests/js/seeds.test.mjs: name -> (batch, the keyword arguments the seed gives torch.onnx.export).
SEED_MODELS = {
    # docs 000-002 (PopART 1.x-3.x): torch.randn(4, 3, 224, 224), output_names=["output"]
    "alexnet_seed": (4, {"output_names": ["output"]}),
    # doc 003 (poponnx): a batch of 10, and the output its text calls "out"
    "alexnet_seed_out": (10, {"output_names": ["out"]}),
}


def export_seed(name, out_dir):
    """torch.onnx.export(model, input_, path, **kwargs) as the seed writes it (weights=None for
    pretrained=...), plus PyTorch's output for the exported input."""
    torch = torch_mod()
    import onnx
    import torchvision
    batch, kwargs = SEED_MODELS[name]
    torch.manual_seed(SEED + 5)
    model = torchvision.models.alexnet(weights=None).eval()
    x = seeded_input(name, [batch, 3, 224, 224])
    with torch.no_grad():
        ref = model(torch.from_numpy(x)).numpy()
    path = os.path.join(out_dir, name + ".onnx")
    tmp = path + ".tmp"
    torch.onnx.export(model, torch.from_numpy(x), tmp, **kwargs)
    m = onnx.load(tmp)
    onnx.checker.check_model(m)
    os.replace(tmp, path)
    x.astype("<f4").tofile(os.path.join(out_dir, name + ".input.bin"))
    ref.astype("<f4").tofile(os.path.join(out_dir, name + ".output.bin"))
    inits = {i.name for i in m.graph.initializer}
    return {
        "file": name + ".onnx",
        "opset": int(m.opset_import[0].version),
        "inputs": [{"name": i.name, "shape": list(x.shape), "dtype": "float32", "file": name + ".input.bin"}
                   for i in m.graph.input if i.name not in inits],
        "outputs": [{"name": o.name, "shape": list(ref.shape), "dtype": "float32", "file": name + ".output.bin"}
                    for o in m.graph.output],
        "recipe": RECIPE_VERSION,
    }


def seeded_input(name, shape):
    h = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)
    return np.random.default_rng(h).uniform(-1.0, 1.0, size=shape).astype(np.float32)


def export(name, out_dir):
    torch = torch_mod()
    import onnx
    build, shape, opset = MODELS[name]
    model = build().eval()
    x = seeded_input(name.replace("_opset17", ""), shape)
    with torch.no_grad():
        ref = model(torch.from_numpy(x)).numpy()
    path = os.path.join(out_dir, name + ".onnx")
    tmp = path + ".tmp"
    torch.onnx.export(model, (torch.from_numpy(x),), tmp, opset_version=opset, do_constant_folding=True,
                      input_names=["input"], output_names=["output"],
                      training=torch.onnx.TrainingMode.EVAL)
    m = onnx.load(tmp)
    onnx.checker.check_model(m)
    os.replace(tmp, path)
    x.astype("<f4").tofile(os.path.join(out_dir, name + ".input.bin"))
    ref.astype("<f4").tofile(os.path.join(out_dir, name + ".output.bin"))
    ops = {}
    for n in m.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    return {
        "file": name + ".onnx",
        "opset": opset,
        "inputs": [{"name": "input", "shape": list(x.shape), "dtype": "float32", "file": name + ".input.bin"}],
        "outputs": [{"name": "output", "shape": list(ref.shape), "dtype": "float32", "file": name + ".output.bin"}],
        "op_types": dict(sorted(ops.items())),
        "params": int(sum(int(np.prod(i.dims)) for i in m.graph.initializer)),
        "recipe": RECIPE_VERSION,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--only", default="")
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()
    import warnings
    warnings.filterwarnings("ignore")
    torch = torch_mod()
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    os.makedirs(args.out_dir, exist_ok=True)
    man_path = os.path.join(args.out_dir, "manifest.json")
    manifest = {"models": {}}
    if os.path.exists(man_path):
        manifest = json.load(open(man_path))
    names = [n for n in args.only.split(",") if n] or list(MODELS) + list(SEED_MODELS)
    for n in names:
        if n not in MODELS and n not in SEED_MODELS:
            print("unknown model " + n, file=sys.stderr)
            return 2
    import onnx
    import torchvision
    manifest["versions"] = {"torch": torch.__version__, "torchvision": torchvision.__version__,
                            "onnx": onnx.__version__, "numpy": np.__version__}
    manifest.setdefault("seed_models", {})
    for n in names:
        section = "models" if n in MODELS else "seed_models"
        have = manifest[section].get(n)
        if (not args.force and have and have.get("recipe") == RECIPE_VERSION
                and os.path.exists(os.path.join(args.out_dir, have["file"]))):
            continue
        t0 = time.time()
        manifest[section][n] = export(n, args.out_dir) if n in MODELS else export_seed(n, args.out_dir)
        print("exported %-26s %.1fs" % (n, time.time() - t0), flush=True)
        with open(man_path + ".tmp", "w") as f:
            json.dump(manifest, f, indent=1)
        os.replace(man_path + ".tmp", man_path)
    with open(man_path + ".tmp", "w") as f:
        json.dump(manifest, f, indent=1)
    os.replace(man_path + ".tmp", man_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
