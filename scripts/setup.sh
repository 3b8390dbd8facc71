#!/usr/bin/env bash
# Installs every Debian package the build, the tests and the benchmarks need.
# Idempotent: packages already present are skipped; `apt-get update` runs at most once.
# Usage: scripts/setup.sh
set -euo pipefail

pkgs=(
  # build
  cmake ninja-build g++ pkg-config
  libprotobuf-dev protobuf-compiler libeigen3-dev libonnx-dev zlib1g-dev
  nlohmann-json3-dev  # the profiling reports (JSON, CBOR), native and wasm
  libgtest-dev libgmock-dev
  # tests: references and conformance data
  python3 python3-numpy python3-onnx python3-torch python3-torchvision python3-sklearn
  libopenblas0-openmp libonnx-testdata
  # the Python module (python/): pybind11, the Python headers, pytest, and pip + setuptools for
  # `pip install .` (offline: no build isolation is needed, as there is no pyproject.toml)
  pybind11-dev python3-dev python3-pytest python3-setuptools python3-pip python3-numpy python3-venv
  # distribution across processes and hosts (docs/distributed.md): Open MPI, and mpi4py for
  # Python scripts that use MPI themselves; iproute2 simulates two hosts in the tests
  libopenmpi-dev openmpi-bin python3-mpi4py iproute2
  # sanitizers (clang runtime for LeakSanitizer is part of gcc's libasan here)
  clang-format
  # fuzzing (scripts/fuzz.sh): clang with libFuzzer and its sanitizer runtimes (-fsanitize=fuzzer)
  clang libclang-rt-14-dev
  # WebAssembly: Emscripten 3.1.6 (its optimizer needs node-acorn), dpkg-source for protobuf's
  # Debian source package (scripts/wasm_deps.sh), GoogleTest's sources for the GEMM test in wasm
  emscripten node-acorn dpkg-dev googletest
  # browser tests: headless Chromium driven by playwright-core (npm, tests/browser)
  chromium
)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "[setup] installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "[setup] all Debian packages present"
fi

# Node.js >= 20.16 runs the JS tests and the package (the Emscripten loader uses
# process.getBuiltinModule); Debian 12's own nodejs is 18, so Node 20 comes with the machine.
if ! command -v node >/dev/null; then
  echo "[setup] Node.js >= 20.16 is required (node not found)" >&2
  exit 1
fi
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a==20&&b>=16)?0:1)' || {
  echo "[setup] Node.js >= 20.16 is required, found $(node --version)" >&2
  exit 1
}
