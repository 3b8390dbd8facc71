// The choice of instruction-set copy (isa.hpp). On x86-64 (POPART_ISA_MULTI, set by
// core/CMakeLists.txt) the copies are AVX-512 (x86-64-v4: F, BW, DQ, VL), AVX2 + FMA (x86-64-v3)
// and baseline x86-64 (SSE2); the best the CPU runs is used, or the one POPART_CPU_ISA names,
// which lets the tests and benchmarks run every copy on a machine that has it. Elsewhere (wasm,
// other CPUs) there is one copy.
#include "backends/cpu/isa.hpp"

#include <cstdlib>

#include "popart/error.hpp"
#include "popart/logging.hpp"

namespace popart {
namespace cpu {

const std::vector<std::string>& builtIsas() {
#if defined(POPART_ISA_MULTI)
  static const std::vector<std::string> names{"avx512", "avx2", "generic"};
#else
  static const std::vector<std::string> names{POPART_ISA_NAME};
#endif
  return names;
}

bool cpuRunsIsa(const std::string& name) {
#if defined(POPART_ISA_MULTI)
  __builtin_cpu_init();
  if (name == "avx512")
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma");
  if (name == "avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return name == "generic";
#else
  return name == POPART_ISA_NAME;
#endif
}

namespace {

size_t chooseIsa() {
  const std::vector<std::string>& built = builtIsas();
  size_t best = 0;
  while (best < built.size() && !cpuRunsIsa(built[best])) ++best;
  if (best == built.size()) throw internal_error("this CPU runs none of the build's kernels");
  const char* env = std::getenv("POPART_CPU_ISA");
  if (!env || !*env) return best;
  const std::string want = env;
  std::string names;
  for (size_t i = 0; i < built.size(); ++i) {
    names += (names.empty() ? "" : ", ") + built[i];
    if (want != built[i]) continue;
    if (!cpuRunsIsa(want))
      throw error("POPART_CPU_ISA={}: this CPU cannot run the {} kernels (it runs {})", want, want, built[best]);
    logging::session::info("POPART_CPU_ISA={}: the {} kernels", want, want);
    return i;
  }
  throw error("POPART_CPU_ISA={} is not an instruction set of this build ({})", want, names);
}

}  // namespace

size_t activeIsaIndex() {
  static const size_t chosen = chooseIsa();
  return chosen;
}

}  // namespace cpu
}  // namespace popart
