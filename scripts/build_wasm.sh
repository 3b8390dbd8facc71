#!/usr/bin/env bash
# Builds the WebAssembly module and the npm package (build/wasm/pkg): fetches protobuf's Debian
# source package once (scripts/wasm_deps.sh), configures the `wasm` preset through emcmake and
# builds. Incremental: a second run only rebuilds what changed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"  # Emscripten's JS optimizer needs acorn
export EMSDK_PYTHON="${EMSDK_PYTHON:-/usr/bin/python3}"
PB_SRC="$(scripts/wasm_deps.sh)"
if [ ! -f build/wasm/build.ninja ] || [ $# -gt 0 ]; then
  emcmake cmake --preset wasm -DWASM_PROTOBUF_SOURCE_DIR="$PB_SRC" "$@" >/dev/null
fi
cmake --build build/wasm -j"$(nproc)"
echo "[wasm] package: build/wasm/pkg"
