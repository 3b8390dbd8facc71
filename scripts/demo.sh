#!/usr/bin/env bash
# The native command-line demo: set-up, native build, two reference models exported with
# PyTorch, then `popart demo`, which builds a graph with the Builder, imports the models, runs
# them on the CPU device and checks them against PyTorch.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
scripts/setup.sh
cmake --preset native >/dev/null
cmake --build build/native -j"$(nproc)" --target popart_cli
/usr/bin/python3 tests/zoo/make_zoo.py build/zoo --only mlp,resnet18
build/native/native/popart demo --zoo build/zoo
