// The GEMM's instruction-set copies (gemm.cpp compiled once per instruction set on x86-64, see
// gemm_kernels.hpp) and the one in use (gemm_dispatch.cpp; the choice: isa.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/cpu/gemm.hpp"

namespace popart {
namespace cpu {

/// One compiled copy of the float GEMM.
struct GemmIsa {
  const char* name;  ///< "avx512", "avx2", "generic" (x86-64), "wasm"
  int mr, nr;        ///< its register tile (rows x columns)
  void (*sgemm)(bool transA, bool transB, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                const float* B, int64_t ldb, float beta, float* C, int64_t ldc, const GemmEpilogue* ep);
};

/// The copy gemm() uses (the active instruction-set copy, isa.hpp).
const GemmIsa& activeGemm();
/// The copies this build has that this CPU can run, best first.
std::vector<const GemmIsa*> runnableGemms();

}  // namespace cpu
}  // namespace popart
