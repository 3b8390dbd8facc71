// Kernels compiled once per instruction set. On x86-64 the files of POPART_ISA_SOURCES
// (core/CMakeLists.txt: the GEMM, depthwise convolution, max pooling) are compiled three times,
// for AVX-512 (-march=x86-64-v4), AVX2 + FMA (x86-64-v3) and baseline x86-64, with
// POPART_ISA_AVX512 / _AVX2 / _GENERIC defined; each copy puts its code in its own namespace,
// POPART_ISA_NS (isa_avx512, isa_avx2, isa_generic), and exports a table of entry points there.
// The code that calls them picks the table of the copy in use (POPART_ISA_PICK): the best this
// CPU runs, or the one the environment variable POPART_CPU_ISA names. WebAssembly and other CPUs
// build one copy (isa_wasm, or the one the compiler targets).
//
// A copy's objects must define only symbols of its namespace (ctest isa_objects_<copy>): no
// standard containers or other out-of-line templates from shared headers in those files.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#if defined(POPART_ISA_AVX512)
#define POPART_ISA_NS isa_avx512
#define POPART_ISA_NAME "avx512"
#elif defined(POPART_ISA_AVX2)
#define POPART_ISA_NS isa_avx2
#define POPART_ISA_NAME "avx2"
#elif defined(POPART_ISA_GENERIC)
#define POPART_ISA_NS isa_generic
#define POPART_ISA_NAME "generic"
#elif defined(__AVX2__) && defined(__FMA__)
#define POPART_ISA_NS isa_avx2
#define POPART_ISA_NAME "avx2"
#elif defined(__wasm_simd128__)
#define POPART_ISA_NS isa_wasm
#define POPART_ISA_NAME "wasm"
#else
#define POPART_ISA_NS isa_generic
#define POPART_ISA_NAME "generic"
#endif

namespace popart {
namespace cpu {

/// The copies this build has, best first ("avx512", "avx2", "generic" on x86-64; one elsewhere).
const std::vector<std::string>& builtIsas();
/// Whether this CPU runs copy `name`.
bool cpuRunsIsa(const std::string& name);
/// The copy in use, an index into builtIsas(): the best this CPU runs, or POPART_CPU_ISA's (a
/// copy the CPU cannot run, or a name the build lacks, is a popart::error). Chosen once.
size_t activeIsaIndex();

/// The active copy's entry of `tables` (one per builtIsas() entry, in that order).
template <typename T>
const T& pickIsa(std::initializer_list<const T*> tables) {
  return **(tables.begin() + activeIsaIndex());
}

/// Each entry of `tables` (one per builtIsas() entry) whose copy this CPU runs, with the copy's
/// name, best first: the tests call every runnable copy directly.
template <typename T>
std::vector<std::pair<std::string, const T*>> runnableIsaTables(std::initializer_list<const T*> tables) {
  std::vector<std::pair<std::string, const T*>> out;
  size_t i = 0;
  for (const T* t : tables) {
    const std::string& name = builtIsas()[i++];
    if (cpuRunsIsa(name)) out.emplace_back(name, t);
  }
  return out;
}

}  // namespace cpu
}  // namespace popart

/// Declares the table `var` of type `Type` that every copy of this build defines in its namespace
/// (at namespace popart::cpu); POPART_ISA_ALL(var) lists every copy's (builtIsas() order) and
/// POPART_ISA_PICK(var) gives the active copy's.
#if defined(POPART_ISA_MULTI)
#define POPART_ISA_DECLARE(Type, var) \
  namespace isa_avx512 {              \
  extern const Type var;              \
  }                                   \
  namespace isa_avx2 {                \
  extern const Type var;              \
  }                                   \
  namespace isa_generic {             \
  extern const Type var;              \
  }
#define POPART_ISA_ALL(var) \
  { &isa_avx512::var, &isa_avx2::var, &isa_generic::var }
#else
#define POPART_ISA_DECLARE(Type, var) \
  namespace POPART_ISA_NS {           \
  extern const Type var;              \
  }
#define POPART_ISA_ALL(var) \
  { &POPART_ISA_NS::var }
#endif
#define POPART_ISA_PICK(var) ::popart::cpu::pickIsa(POPART_ISA_ALL(var))
