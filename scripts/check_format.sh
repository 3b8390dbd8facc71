#!/usr/bin/env bash
# Fails if a C++ source differs from clang-format 14's output (.clang-format at the root).
# scripts/check_format.sh --fix rewrites the files instead.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CF=clang-format-14
command -v "$CF" >/dev/null || CF=clang-format
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cc')
if [ "${1:-}" = "--fix" ]; then
  "$CF" -i "${files[@]}"
  exit 0
fi
"$CF" --dry-run -Werror "${files[@]}"
echo "format: ${#files[@]} files OK"
