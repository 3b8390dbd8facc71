#!/usr/bin/env bash
# The zoo's convolutions and GEMMs on our kernels beside Debian's XNNPACK and oneDNN, one thread
# each, in one process (bench/bench_libs.cpp): Markdown tables on stdout.
#   bench/run_lib_bench.sh [--build-dir DIR] [--zoo DIR] [popart_lib_bench options]
# e.g. --models resnet18,mlp --target-ms 500 --rounds 5 --clock cpu. Installs the libraries'
# Debian packages when they are missing (libxnnpack-dev's header includes pthreadpool.h, which
# Debian ships apart in libpthreadpool-dev). The machine should be otherwise idle.
. "$(dirname "${BASH_SOURCE[0]}")/bench_build.sh" "$@"
set -- "${BENCH_ARGS[@]}"
ZOO=build/zoo
if [ "${1:-}" = "--zoo" ]; then
  ZOO="$2"
  shift 2
fi
missing=()
for p in libxnnpack-dev libpthreadpool-dev libdnnl-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# The target is opt-in (POPART_LIB_BENCH); a build directory configured before the libraries were
# installed looks for them again.
[ -f "$BUILD/CMakeCache.txt" ] || cmake --preset native -B "$BUILD" >/dev/null
cmake "$BUILD" -DPOPART_LIB_BENCH=ON >/dev/null
bench_build popart_lib_bench
if [ ! -f "$ZOO/manifest.json" ]; then /usr/bin/python3 tests/zoo/make_zoo.py "$ZOO"; fi
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
dpkg-query -W -f='${Package} ${Version}\n' libxnnpack0 libdnnl2 2>/dev/null || true
"$BUILD/bench/popart_lib_bench" --zoo "$ZOO" "$@"
