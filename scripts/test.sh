#!/usr/bin/env bash
# Every test: set-up, format check, warnings-as-errors native build, unit + zoo + ONNX conformance
# tests, the WebAssembly build with the JS test suites (Node), the page's browser tests (headless
# Chromium), then the native tests again under
# AddressSanitizer + UndefinedBehaviorSanitizer (clang), and a short run of the libFuzzer harnesses
# from that same build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
JOBS="$(nproc)"
step() { printf '\n== %s (%ss)\n' "$1" "$SECONDS"; }

step "set-up"
scripts/setup.sh

step "format (clang-format 14)"
scripts/check_format.sh

step "native build (-Werror)"
cmake --preset ci >/dev/null  # build/ci: its own tree, so -Werror never sticks in a developer's build/native
cmake --build build/ci -j"$JOBS"

step "reference zoo (PyTorch exports)"
/usr/bin/python3 tests/zoo/make_zoo.py build/zoo
/usr/bin/python3 tests/zoo/make_describe_refs.py build/zoo  # describeModel's references (onnx + NumPy)

step "training references (PyTorch: 10 SGD / Adam / AdamW steps on mlp and cnn_small)"
/usr/bin/python3 tests/training/make_training_refs.py build/training_refs

step "native tests"
mkdir -p build/ci/tests/tmp
POPART_ZOO_DIR="$ROOT/build/zoo" ctest --test-dir build/ci --output-on-failure -j"$JOBS"

step "Python package: pip install, offline, into a venv (from the -Werror build tree), then its README example"
rm -rf build/venv
/usr/bin/python3 -m venv --system-site-packages build/venv
POPART_PIP_BUILD_DIR="$ROOT/build/ci" build/venv/bin/pip install --no-index --quiet .
sed -n '/^```python/,/^```$/p' README.md | sed '1d;$d' >build/venv/readme_example.py
(cd build/venv && bin/python -c "import popart, sys; assert popart.__file__.startswith(sys.prefix), popart.__file__" &&
  bin/python readme_example.py >/dev/null)

step "wasm builds (-Werror; single-threaded and pthreads)"
scripts/build_wasm.sh -DPOPART_WERROR=ON

step "JS tests (node:test against the wasm package)"
# tests/browser's packages: Playwright for the browser tests, cborg (CBOR) for the JS report tests.
(cd tests/browser && npm ci --no-audit --no-fund --silent)
POPART_ZOO_DIR="$ROOT/build/zoo" node --test --test-concurrency="$JOBS" tests/js/

step "JS reliability tests again on modules with a 512 MiB maximum memory (the out-of-memory paths)"
POPART_TEST_MAXIMUM_MEMORY=536870912 POPART_ZOO_DIR="$ROOT/build/zoo" node --test tests/js/reliability.test.mjs

step "GEMM unit test under wasm (Node; the SIMD128 micro-kernels)"
node build/wasm/tests/popart_gemm_test_wasm.cjs --gtest_brief=1

step "ONNX conformance under wasm (Node; same runner and both lists as native)"
node build/wasm/tests/popart_conformance_wasm.cjs --data /usr/share/libonnx-testdata/data \
  --expected tests/conformance/expected_pass.txt --failures tests/conformance/known_failures.txt | tail -8

# One clang build with ASan + UBSan (and libFuzzer's coverage hooks) serves both the sanitizer
# run of the native tests and the fuzzers: building the core twice cost ten minutes of CI. It
# starts here, at the lowest priority, to use what the browser tests leave of the CPU (they wait on
# Chromium and the page), and is waited for below. (The gcc preset native-asan is for local runs.)
step "ASan + UBSan build started in the background (clang, preset fuzz: the tests and the libFuzzer harnesses; log: build/fuzz_build.log)"
cmake --preset fuzz >/dev/null
setsid -w nice -n 19 cmake --build build/fuzz -j"$JOBS" --target popart_unit_tests popart_zoo_tests popart_zoo_ir_tests \
  popart_zoo_describe_tests popart_seed_tests popart_conformance popart_cli popart_cli_tests popart_training_ref_tests \
  example_train_digits popart_fuzz_model popart_fuzz_builder >build/fuzz_build.log 2>&1 &
FUZZ_BUILD=$!
trap 'kill -- -"$FUZZ_BUILD" 2>/dev/null || true' EXIT  # a failing step below stops it too

step "browser tests (headless Chromium: page + module Web Worker)"
POPART_ZOO_DIR="$ROOT/build/zoo" node tests/browser/check.mjs

step "the page (web/): bundled with esbuild into build/web, then its browser tests (server, graph and reports views, every feature end to end)"
(cd web && npm ci --no-audit --no-fund --silent)
node web/build.mjs --zoo build/zoo
POPART_ZOO_DIR="$ROOT/build/zoo" node --test --test-concurrency=1 tests/browser/web/

step "ASan + UBSan build: waiting for the background build to finish"
if ! wait "$FUZZ_BUILD"; then
  tail -60 build/fuzz_build.log
  echo "the ASan + UBSan build failed (build/fuzz_build.log)" >&2
  exit 1
fi
trap - EXIT
tail -1 build/fuzz_build.log

step "ASan + UBSan tests"
mkdir -p build/fuzz/tests/tmp
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  POPART_ZOO_DIR="$ROOT/build/zoo" ctest --test-dir build/fuzz --output-on-failure -j"$JOBS"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  build/fuzz/native/popart demo --zoo build/zoo >/dev/null

step "fuzzing (libFuzzer, clang ASan + UBSan: model importer and Builder side by side, 60 s each)"
# A fixed libFuzzer seed: the same mutations on every run, so a report here is reproducible.
POPART_ZOO_DIR="$ROOT/build/zoo" scripts/fuzz.sh --no-build --time 60 -- -seed=1

step "all tests passed"
