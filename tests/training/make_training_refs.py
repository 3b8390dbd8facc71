#!/usr/bin/python3
"""PyTorch training references for the TrainingSession tests (tests/training/training_ref_test.cpp).

Usage: /usr/bin/python3 tests/training/make_training_refs.py OUT_DIR

For the zoo's mlp (ends in Softmax) and cnn_small (ends in logits), both built by
tests/zoo/make_zoo.py's model definitions, this writes OUT_DIR/MODEL/:

  model.onnx          the forward graph with the initial weights (initializers named as PyTorch's
                      parameters, output "output")
  x.bin, labels.bin   STEPS batches: float32 [STEPS, *input shape], int32 [STEPS, BATCH]
  model.txt           key=value lines: steps, batch, head (probs: the output is Softmax
                      probabilities; logits: the test adds Softmax)
  OPT.txt             the optimizer (type and hyper-parameters, key=value lines)
  OPT.loss.bin        float32 [STEPS]: PyTorch's loss at each step (before that step's update)
  OPT.final.onnx      model.onnx with the weights after STEPS updates

The loss is PopART's nllloss over softmax probabilities with Mean reduction, written in PyTorch
as nll_loss(log(probs)). Optimizers: SGD with momentum 0.9 and dampening 0 (PopART's SGD equals
torch.optim.SGD there: its velocity starts at 0 and the first step adds (1-dm)·g = g), Adam
(torch's weight decay is L2: PopART's WeightDecayMode::L2Regularization) and AdamW (PopART's
Decay mode). Everything is seeded; one thread; runs in a few seconds.

Needs Debian's python3-torch, python3-onnx and python3-numpy.
"""
import os
import sys

import numpy as np

# onnx 1.12 still uses numpy aliases that numpy 1.24 removed.
for _name, _typ in (("float", float), ("int", int), ("bool", bool), ("object", object)):
    if _name not in np.__dict__:
        setattr(np, _name, _typ)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zoo"))
import make_zoo  # noqa: E402  (the zoo's model definitions)

STEPS = 10
SEED = 20261123

# name -> (model builder, input shape, head)
MODELS = {
    "mlp": (make_zoo.mlp, [32, 784], "probs"),
    "cnn_small": (make_zoo.cnn_small, [32, 1, 28, 28], "logits"),
}

# name -> hyper-parameters (written to OPT.txt for the C++ side)
OPTIMIZERS = {
    "sgd": {"type": "sgd", "lr": 0.05, "momentum": 0.9, "dampening": 0.0, "weight_decay": 1e-4},
    "adam": {"type": "adam", "lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 1e-4,
             "weight_decay_mode": "L2"},
    "adamw": {"type": "adam", "lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 1e-2,
              "weight_decay_mode": "Decay"},
}


def make_data(name, shape):
    """Seeded, learnable data: random labels, inputs = the label's random prototype + noise."""
    rng = np.random.default_rng(SEED + sum(map(ord, name)))
    labels = rng.integers(0, 10, size=(STEPS, shape[0])).astype(np.int32)
    prototypes = rng.uniform(-1.0, 1.0, size=[10] + shape[1:])
    x = prototypes[labels] + 0.5 * rng.standard_normal([STEPS] + shape)
    return x.astype(np.float32), labels


def torch_optimizer(torch, params, cfg):
    if cfg["type"] == "sgd":
        return torch.optim.SGD(params, lr=cfg["lr"], momentum=cfg["momentum"], dampening=cfg["dampening"],
                               weight_decay=cfg["weight_decay"])
    cls = torch.optim.Adam if cfg["weight_decay_mode"] == "L2" else torch.optim.AdamW
    return cls(params, lr=cfg["lr"], betas=(cfg["beta1"], cfg["beta2"]), eps=cfg["eps"],
               weight_decay=cfg["weight_decay"])


def with_weights(model_proto, state):
    """A copy of the ONNX model with each initializer replaced by the state_dict entry of its name."""
    import onnx
    from onnx import numpy_helper
    m = onnx.ModelProto()
    m.CopyFrom(model_proto)
    for init in m.graph.initializer:
        init.CopyFrom(numpy_helper.from_array(state[init.name].detach().numpy().astype(np.float32), init.name))
    return m


def write_kv(path, d):
    with open(path, "w") as f:
        for k, v in d.items():
            f.write("%s=%s\n" % (k, repr(v) if isinstance(v, float) else v))


def make_model(name, out_dir):
    import onnx
    import torch
    build, shape, head = MODELS[name]
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    x, labels = make_data(name, shape)
    x.astype("<f4").tofile(os.path.join(d, "x.bin"))
    labels.astype("<i4").tofile(os.path.join(d, "labels.bin"))
    write_kv(os.path.join(d, "model.txt"), {"steps": STEPS, "batch": shape[0], "head": head})

    model = build()
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    onnx_path = os.path.join(d, "model.onnx")
    torch.onnx.export(model, (torch.from_numpy(x[0]),), onnx_path + ".tmp", opset_version=13,
                      do_constant_folding=False, input_names=["input"], output_names=["output"],
                      training=torch.onnx.TrainingMode.PRESERVE)
    proto = onnx.load(onnx_path + ".tmp")
    names = {i.name for i in proto.graph.initializer}
    if names != set(initial):
        raise RuntimeError("%s: initializers %s are not the parameters %s" % (name, sorted(names), sorted(initial)))
    os.replace(onnx_path + ".tmp", onnx_path)

    for opt_name, cfg in OPTIMIZERS.items():
        model.load_state_dict(initial)
        model.train()
        opt = torch_optimizer(torch, model.parameters(), cfg)
        losses = []
        for s in range(STEPS):
            opt.zero_grad()
            y = model(torch.from_numpy(x[s]))
            probs = y if head == "probs" else torch.softmax(y, dim=1)
            loss = torch.nn.functional.nll_loss(torch.log(probs), torch.from_numpy(labels[s]).long())
            loss.backward()
            opt.step()
            losses.append(loss.item())
        np.array(losses, dtype="<f4").tofile(os.path.join(d, opt_name + ".loss.bin"))
        onnx.save(with_weights(proto, model.state_dict()), os.path.join(d, opt_name + ".final.onnx"))
        write_kv(os.path.join(d, opt_name + ".txt"), cfg)
        print("%-10s %-6s loss %.4f -> %.4f" % (name, opt_name, losses[0], losses[-1]), flush=True)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    import warnings
    warnings.filterwarnings("ignore")
    import torch
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    for name in MODELS:
        make_model(name, sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
