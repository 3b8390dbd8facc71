#!/usr/bin/env bash
# Runs the replicated-training benchmark (bench/distributed_bench.py): set-up, the Python module's
# build, then resnet18 at 1 process x 2 threads and 2 processes x 1 thread (mpirun).
#   bench/run_distributed_bench.sh [--build-dir DIR] [--steps N] [--batch B]
. "$(dirname "${BASH_SOURCE[0]}")/bench_build.sh" "$@"
set -- "${BENCH_ARGS[@]+"${BENCH_ARGS[@]}"}"
bench_build popart_py popart_py_files
PYTHONPATH="$ROOT/$BUILD/python" /usr/bin/python3 bench/distributed_bench.py "$@"
