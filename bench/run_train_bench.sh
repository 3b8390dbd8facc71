#!/usr/bin/env bash
# Runs the training-step benchmark: set-up, build popart_bench, then bench/run_train_bench.py
# (ours vs PyTorch, one thread each; it exports the models itself).
#   bench/run_train_bench.sh [--build-dir DIR] [--models a,b] [--rounds R] [--target-ms T] [--json F]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD=build/native
if [ "${1:-}" = "--build-dir" ]; then
  BUILD="$2"
  shift 2
fi
scripts/setup.sh
[ -f "$BUILD/CMakeCache.txt" ] || cmake --preset native -B "$BUILD" >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target popart_bench
unset OPENBLAS_CORETYPE
/usr/bin/python3 bench/run_train_bench.py --popart-bench "$BUILD/bench/popart_bench" "$@"
