# Sourced by the bench/run_*.sh scripts with their arguments:
#   . "$(dirname "${BASH_SOURCE[0]}")/bench_build.sh" "$@"; set -- "${BENCH_ARGS[@]}"
# It moves to the project root, takes an optional leading `--build-dir DIR` (BUILD, default
# build/native) and leaves the other arguments in BENCH_ARGS. Then `bench_build TARGET...` installs
# what the project needs (scripts/setup.sh), configures BUILD with the native preset if it is not
# yet, builds the targets, and unsets the OpenBLAS variables that slow PyTorch references.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD=build/native
if [ "${1:-}" = "--build-dir" ]; then
  BUILD="$2"
  shift 2
fi
BENCH_ARGS=("$@")

bench_build() {
  scripts/setup.sh
  [ -f "$BUILD/CMakeCache.txt" ] || cmake --preset native -B "$BUILD" >/dev/null
  cmake --build "$BUILD" -j"$(nproc)" --target "$@"
  unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
}
