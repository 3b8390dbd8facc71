#!/usr/bin/env bash
# Runs the native benchmark: set-up, build, zoo, then bench/run_bench.mjs (ours vs onnxruntime-node).
#   bench/run.sh [--quick] [--models a,b] [--rounds R]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
scripts/setup.sh
cmake --preset native >/dev/null
cmake --build build/native -j"$(nproc)" --target popart_bench
/usr/bin/python3 tests/zoo/make_zoo.py build/zoo
if [ ! -d bench/node_modules/onnxruntime-node ]; then
  (cd bench && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund)
fi
unset OPENBLAS_CORETYPE
node bench/run_bench.mjs --zoo build/zoo --popart-bench build/native/bench/popart_bench "$@"
