#!/usr/bin/env bash
# The main job: set-up, the WebAssembly package (single-threaded and pthreads), the reference
# zoo exports the page offers as examples, the page itself (web/, bundled with esbuild into
# build/web), then the local server on http://127.0.0.1:${PORT:-8080}/ until interrupted. The page
# opens on the digits CNN built in the page; everything runs in the browser.
#
# `popart demo` (the native command-line demo: the Builder and PyTorch-exported models checked
# against PyTorch) is `scripts/demo.sh`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
scripts/setup.sh
scripts/build_wasm.sh
/usr/bin/python3 tests/zoo/make_zoo.py build/zoo --only mlp,cnn_small,resnet18,mobilenet_v2,transformer_layer
(cd web && npm ci --no-audit --no-fund --silent)
node web/build.mjs --zoo build/zoo
exec node web/server.mjs build/web
