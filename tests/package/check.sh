#!/usr/bin/env bash
# Packaging checks (ctest label `package`):
#   check.sh installed BUILD_DIR WORK_DIR  install BUILD_DIR's library into WORK_DIR/prefix, build
#       native/examples out of tree with find_package(popart) (Unix Makefiles), run builder_add
#   check.sh subproject WORK_DIR           configure a parent project that add_subdirectory()s the
#       runtime, with CMake's default generator (Unix Makefiles), and build the generated Builder
#       header, the ONNX classes and the lowest layer: the paths and generated folders a parent
#       project and Make need (the full library is built by the other check)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mode="$1"
case "$mode" in
  installed)
    build="$2" work="$3"
    rm -rf "$work" && mkdir -p "$work"
    cmake --install "$build" --prefix "$work/prefix" >/dev/null
    test -f "$work/prefix/include/popart/builder.gen.hpp"
    test -f "$work/prefix/lib/cmake/popart/popartConfig.cmake"
    cmake -S "$ROOT/tests/package/installed" -B "$work/build" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$work/prefix" -DPOPART_EXAMPLES_DIR="$ROOT/native/examples" >/dev/null
    cmake --build "$work/build" -j"$(nproc)" >/dev/null
    "$work/build/builder_add"
    ;;
  subproject)
    work="$2"
    rm -rf "$work" && mkdir -p "$work"
    cmake -S "$ROOT/tests/package/subproject" -B "$work" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release \
      -DPOPART_ROOT="$ROOT" >/dev/null
    cmake --build "$work" -j"$(nproc)" --target popart_builder_gen popart_onnx_proto popart_common >/dev/null
    test -f "$work/popart/gen/popart/builder.gen.hpp"
    echo "sub-project: configured and built popart_builder_gen, popart_onnx_proto, popart_common"
    ;;
  *) echo "usage: check.sh installed BUILD_DIR WORK_DIR | subproject WORK_DIR" >&2; exit 2 ;;
esac
