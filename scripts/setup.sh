#!/usr/bin/env bash
# Installs every Debian package the build, the tests and the benchmarks need.
# Idempotent: packages already present are skipped; `apt-get update` runs at most once.
# Usage: scripts/setup.sh [--with-wasm] [--with-bench]
set -euo pipefail

pkgs=(
  # build
  cmake ninja-build g++ pkg-config
  libprotobuf-dev protobuf-compiler libeigen3-dev libonnx-dev
  libgtest-dev libgmock-dev
  # tests: references and conformance data
  python3 python3-numpy python3-onnx python3-torch python3-torchvision python3-sklearn
  libopenblas0-openmp libonnx-testdata
  # sanitizers (clang runtime for LeakSanitizer is part of gcc's libasan here)
  clang-format
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
