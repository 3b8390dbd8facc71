#!/usr/bin/env bash
# Runs the replicated-training benchmark (bench/distributed_bench.py): set-up, the Python module's
# build, then resnet18 at 1 process x 2 threads and 2 processes x 1 thread (mpirun).
#   bench/run_distributed_bench.sh [--build-dir DIR] [--steps N] [--batch B]
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
cmake --build "$BUILD" -j"$(nproc)" --target popart_py popart_py_files
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
PYTHONPATH="$ROOT/$BUILD/python" /usr/bin/python3 bench/distributed_bench.py "$@"
