#!/usr/bin/env bash
# Builds the libFuzzer harnesses (preset 'fuzz': clang, ASan + UBSan), gathers their seeds and
# runs each for a given time under the allocation budget. Fails on any crash, sanitizer report,
# exception other than popart::error, time-out, leak or allocation over the budget; the input that
# caused it is left in build/fuzz/artifacts/<harness>/ and the command to replay it is printed.
#
# Usage: scripts/fuzz.sh [--time SECONDS] [--harness model|builder|all] [--no-build] [-- LIBFUZZER_ARGS...]
#   --time      seconds per harness (default 60)
#   --harness   which harness to run (default all)
#   --no-build  use the harnesses already built in build/fuzz
# The corpus each run grows is kept in build/fuzz/corpus/<harness>/ (never committed): a later
# run starts from it. Replay one input: build/fuzz/tests/fuzz/popart_fuzz_<harness> FILE
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

TIME=60
HARNESSES=(model builder)
BUILD=1
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) TIME="$2"; shift 2 ;;
    --harness)
      if [ "$2" = all ]; then HARNESSES=(model builder); else HARNESSES=("$2"); fi
      shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "fuzz.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

# The harnesses set popart::setMemoryLimit(256 MiB) (tests/fuzz/fuzz_common.hpp). One allocation
# over the budget (plus slack for what is not sized from the model) is a check that was missed;
# the RSS limit leaves room for ASan's shadow memory and quarantine.
MALLOC_LIMIT_MB=300
RSS_LIMIT_MB=3072
UNIT_TIMEOUT_S=60

OUT=build/fuzz
if [ "$BUILD" = 1 ]; then
  cmake --preset fuzz >/dev/null
  cmake --build "$OUT" -j"$(nproc)" --target popart_fuzz_model popart_fuzz_builder
fi

ZOO="${POPART_ZOO_DIR:-$ROOT/build/zoo}"
if [ ! -f "$ZOO/manifest.json" ]; then
  /usr/bin/python3 tests/zoo/make_zoo.py "$ZOO"
fi
/usr/bin/python3 tests/fuzz/make_fuzz_inputs.py "$OUT/inputs" --zoo "$ZOO"

export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"

# One harness: libFuzzer for TIME seconds, then its statistics (or, on a finding, the log's end
# and how to replay it). The harnesses run side by side, one per core.
fuzz_one() {
  local h="$1"
  local bin="$OUT/tests/fuzz/popart_fuzz_$h"
  local corpus="$OUT/corpus/$h"
  local artifacts="$OUT/artifacts/$h"
  local log="$OUT/fuzz_$h.log"
  mkdir -p "$corpus" "$artifacts"
  local args=(-max_total_time="$TIME" -timeout="$UNIT_TIMEOUT_S" -rss_limit_mb="$RSS_LIMIT_MB"
              -malloc_limit_mb="$MALLOC_LIMIT_MB" -artifact_prefix="$artifacts/" -print_final_stats=1)
  if [ "$h" = model ]; then
    args+=(-dict="$OUT/inputs/model.dict" -max_len=262144)
  else
    args+=(-max_len=4096)
  fi
  echo "fuzz: $h for ${TIME}s (log: $log)"
  local rc=0
  "$bin" "${args[@]}" "${EXTRA[@]}" "$corpus" "$OUT/inputs/seeds/$h" >"$log" 2>&1 || rc=$?
  # The last status line (runs, coverage, corpus) and libFuzzer's final statistics.
  local last runs speed
  last="$(grep -E '^#[0-9]+' "$log" | tail -1 || true)"
  runs="$(sed -n 's/^stat::number_of_executed_units: //p' "$log")"
  speed="$(sed -n 's/^stat::average_exec_per_sec: //p' "$log")"
  echo "fuzz: $h: ${runs:-?} runs, ${speed:-?} exec/s; $last"
  if [ "$rc" -ne 0 ]; then
    echo "fuzz: $h FAILED (libFuzzer exit $rc); the end of its log:" >&2
    tail -60 "$log" >&2
    for f in "$artifacts"/*; do
      [ -e "$f" ] && echo "fuzz: replay with: $bin $f" >&2
    done
    return 1
  fi
}

status=0
pids=()
for h in "${HARNESSES[@]}"; do
  fuzz_one "$h" &
  pids+=($!)
done
for p in "${pids[@]}"; do
  wait "$p" || status=1
done
exit "$status"
