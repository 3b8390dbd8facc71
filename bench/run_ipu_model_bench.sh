#!/usr/bin/env bash
# The IPU model vs the CPU device on the reference zoo (prepare and run times, in one process) and
# the IPU model's estimates on ipu1 and ipu2 (cycles, time, memory): a Markdown table on stdout.
#   bench/run_ipu_model_bench.sh [--build-dir DIR] [--zoo DIR] [popart_bench ipu-model options]
# e.g. --models mlp,resnet18 --prepare-ms 2000 --target-ms 1000 (bench/bench_ipu_model.cpp).
. "$(dirname "${BASH_SOURCE[0]}")/bench_build.sh"
ZOO=build/zoo
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD="$2"; shift 2 ;;
    --zoo) ZOO="$2"; shift 2 ;;
    *) break ;;
  esac
done
. bench/bench_build.sh
bench_build popart_bench
if [ ! -f "$ZOO/manifest.json" ]; then /usr/bin/python3 tests/zoo/make_zoo.py "$ZOO"; fi
"$BUILD/bench/popart_bench" ipu-model --zoo "$ZOO" "$@"
