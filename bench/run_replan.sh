#!/usr/bin/env bash
# Run-time planning's cost (bench/run_replan_bench.mjs): set-up, build, zoo, a dynamic-shape copy of
# a zoo model, then ours vs onnxruntime-node at several input shapes.
#   bench/run_replan.sh [--model mobilenet_v2] [--shapes 1x3x224x224,...] [--runs N]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
MODEL=mobilenet_v2
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --model) MODEL="$2"; shift 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
scripts/setup.sh
cmake --preset native >/dev/null
cmake --build build/native -j"$(nproc)" --target popart_bench
/usr/bin/python3 tests/zoo/make_zoo.py build/zoo
/usr/bin/python3 bench/make_dynamic.py "build/zoo/$MODEL.onnx" "build/zoo/$MODEL.dynamic.onnx"
if [ ! -d bench/node_modules/onnxruntime-node ]; then
  (cd bench && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund)
fi
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
node bench/run_replan_bench.mjs --model "build/zoo/$MODEL.dynamic.onnx" --popart-bench build/native/bench/popart_bench \
  --shapes 1x3x224x224,1x3x320x320,1x3x160x256,1x3x480x640 "${ARGS[@]}"
