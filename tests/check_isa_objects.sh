#!/usr/bin/env bash
# The objects of one instruction-set copy of the kernels (core/CMakeLists.txt, POPART_ISAS)
# may define symbols only in their own namespace (popart::cpu::isa_<name>): an inline function or
# template from a shared header emitted there as a weak symbol, compiled for AVX-512, could be the
# copy the linker keeps for the whole program, and then run on a CPU without AVX-512.
#   tests/check_isa_objects.sh <name> <object>...
set -euo pipefail
name="$1"
shift
bad=$(nm -C --defined-only "$@" | awk -v ns="isa_${name}::" '
  NF >= 3 && $2 ~ /^[TWi]$/ {
    sym = $0; sub(/^[^ ]+ [^ ]+ /, "", sym)
    # Code: C++ functions (not type information, nor the compiler'\''s or sanitizers'\'' own symbols).
    if (sym ~ /^(typeinfo|vtable|guard variable|VTT)/) next
    if ((index(sym, "::") > 0 || index(sym, "(") > 0) && index(sym, ns) == 0) print sym
  }')
if [ -n "$bad" ]; then
  echo "the ${name} kernels' objects define symbols outside popart::cpu::isa_${name}:" >&2
  echo "$bad" >&2
  exit 1
fi
echo "the ${name} kernels' objects define only popart::cpu::isa_${name} symbols"
