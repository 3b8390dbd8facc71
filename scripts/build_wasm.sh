#!/usr/bin/env bash
# Builds the WebAssembly modules and the npm package (build/wasm/pkg): fetches protobuf's Debian
# source package once (scripts/wasm_deps.sh), configures the `wasm` and `wasm-mt` (pthreads)
# presets through emcmake and builds both. Incremental: a second run only rebuilds what changed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"  # Emscripten's JS optimizer needs acorn
export EMSDK_PYTHON="${EMSDK_PYTHON:-/usr/bin/python3}"
PB_SRC="$(scripts/wasm_deps.sh)"
for preset in wasm wasm-mt; do  # single-threaded, and with pthreads (popart_wasm_mt)
  if [ ! -f "build/$preset/build.ninja" ] || [ $# -gt 0 ]; then
    emcmake cmake --preset "$preset" -DWASM_PROTOBUF_SOURCE_DIR="$PB_SRC" "$@" >/dev/null
  fi
  cmake --build "build/$preset" -j"$(nproc)"
done
cp build/wasm-mt/pkg/popart_wasm_mt.mjs build/wasm-mt/pkg/popart_wasm_mt.wasm build/wasm-mt/pkg/popart_wasm_mt.worker.cjs \
  build/wasm/pkg/
echo "[wasm] package: build/wasm/pkg"
