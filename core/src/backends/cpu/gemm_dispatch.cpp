// gemm(): the float GEMM copy for this CPU (gemm_isa.hpp), and the double GEMM (Eigen).
//
// On x86-64 (POPART_GEMM_MULTI_ISA, set by core/CMakeLists.txt) gemm.cpp is compiled for AVX-512
// (x86-64-v4: F, BW, DQ, VL), AVX2 + FMA (x86-64-v3) and baseline x86-64 (SSE2); the best the CPU
// runs is used, or the one POPART_CPU_ISA names, which lets the tests and benchmarks run every copy
// on a machine that has it. Elsewhere (wasm, other CPUs) there is one copy.
#include <cstdlib>
#include <string>

#include "backends/cpu/gemm_isa.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"

// Eigen is normally a -isystem include; keep its own warnings out of -Werror builds that use -I.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wshadow"
#include <Eigen/Core>
#pragma GCC diagnostic pop

namespace popart {
namespace cpu {

#if defined(POPART_GEMM_MULTI_ISA)
namespace isa_avx512 {
extern const GemmIsa kGemm;
}
namespace isa_avx2 {
extern const GemmIsa kGemm;
}
namespace isa_generic {
extern const GemmIsa kGemm;
}
#elif defined(__wasm_simd128__)
namespace isa_wasm {
extern const GemmIsa kGemm;
}
#elif defined(__AVX2__) && defined(__FMA__)
namespace isa_avx2 {
extern const GemmIsa kGemm;
}
#else
namespace isa_generic {
extern const GemmIsa kGemm;
}
#endif

namespace {

/// Whether this CPU runs `isa`'s copy.
bool cpuRuns(const GemmIsa& isa) {
#if defined(POPART_GEMM_MULTI_ISA)
  const std::string n = isa.name;
  __builtin_cpu_init();
  if (n == "avx512")
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma");
  if (n == "avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  (void)isa;
  return true;
}

/// Every copy of this build, best first.
std::vector<const GemmIsa*> builtGemms() {
#if defined(POPART_GEMM_MULTI_ISA)
  return {&isa_avx512::kGemm, &isa_avx2::kGemm, &isa_generic::kGemm};
#elif defined(__wasm_simd128__)
  return {&isa_wasm::kGemm};
#elif defined(__AVX2__) && defined(__FMA__)
  return {&isa_avx2::kGemm};
#else
  return {&isa_generic::kGemm};
#endif
}

const GemmIsa& chooseGemm() {
  const std::vector<const GemmIsa*> runnable = runnableGemms();
  const char* env = std::getenv("POPART_CPU_ISA");
  if (!env || !*env) return *runnable.front();
  const std::string want = env;
  std::string names;
  for (const GemmIsa* g : builtGemms()) {
    names += (names.empty() ? "" : ", ") + std::string(g->name);
    if (want != g->name) continue;
    if (!cpuRuns(*g))
      throw error("POPART_CPU_ISA={}: this CPU cannot run the {} kernels (it runs {})", want, want,
                  runnable.front()->name);
    logging::session::info("POPART_CPU_ISA={}: the {} GEMM kernels", want, want);
    return *g;
  }
  throw error("POPART_CPU_ISA={} is not an instruction set of this build ({})", want, names);
}

template <typename T>
void scaleC(int64_t M, int64_t N, T beta, T* C, int64_t ldc) {
  if (beta == T(1)) return;
  for (int64_t i = 0; i < M; ++i) {
    T* c = C + i * ldc;
    for (int64_t j = 0; j < N; ++j) c[j] = beta == T(0) ? T(0) : c[j] * beta;
  }
}

template <typename T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using CMap = Eigen::Map<const RowMat<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using MMap = Eigen::Map<RowMat<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

template <typename T>
void eigenGemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B,
               int64_t ldb, T beta, T* C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  scaleC(M, N, beta, C, ldc);
  if (K <= 0 || alpha == T(0)) return;
  MMap<T> c(C, M, N, Eigen::OuterStride<>(ldc));
  const CMap<T> a(A, ta ? K : M, ta ? M : K, Eigen::OuterStride<>(lda));
  const CMap<T> b(B, tb ? N : K, tb ? K : N, Eigen::OuterStride<>(ldb));
  if (!ta && !tb) {
    c.noalias() += alpha * a * b;
  } else if (!ta && tb) {
    c.noalias() += alpha * a * b.transpose();
  } else if (ta && !tb) {
    c.noalias() += alpha * a.transpose() * b;
  } else {
    c.noalias() += alpha * a.transpose() * b.transpose();
  }
}

}  // namespace

std::vector<const GemmIsa*> runnableGemms() {
  std::vector<const GemmIsa*> out;
  for (const GemmIsa* g : builtGemms())
    if (cpuRuns(*g)) out.push_back(g);
  return out;
}

const GemmIsa& activeGemm() {
  static const GemmIsa& chosen = chooseGemm();
  return chosen;
}

void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda, const float* B,
          int64_t ldb, float beta, float* C, int64_t ldc) {
  activeGemm().sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, nullptr);
}

void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda, const float* B,
          int64_t ldb, float beta, float* C, int64_t ldc, const GemmEpilogue& epilogue) {
  activeGemm().sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, &epilogue);
}

void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
          const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  eigenGemm<double>(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace cpu
}  // namespace popart
