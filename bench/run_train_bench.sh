#!/usr/bin/env bash
# Runs the training-step benchmark: set-up, build popart_bench, then bench/run_train_bench.py
# (ours vs PyTorch, one thread each; it exports the models itself).
#   bench/run_train_bench.sh [--build-dir DIR] [--models a,b] [--rounds R] [--target-ms T] [--json F]
. "$(dirname "${BASH_SOURCE[0]}")/bench_build.sh" "$@"
set -- "${BENCH_ARGS[@]+"${BENCH_ARGS[@]}"}"
bench_build popart_bench
/usr/bin/python3 bench/run_train_bench.py --popart-bench "$BUILD/bench/popart_bench" "$@"
