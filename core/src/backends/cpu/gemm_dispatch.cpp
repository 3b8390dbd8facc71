// The choice of instruction-set copy (isa.hpp) and gemm(): the float GEMM copy in use, and the
// double GEMM (Eigen).
//
// On x86-64 (POPART_ISA_MULTI, set by core/CMakeLists.txt) the copies are AVX-512 (x86-64-v4: F,
// BW, DQ, VL), AVX2 + FMA (x86-64-v3) and baseline x86-64 (SSE2); the best the CPU runs is used,
// or the one POPART_CPU_ISA names, which lets the tests and benchmarks run every copy on a
// machine that has it. Elsewhere (wasm, other CPUs) there is one copy.
#include <cstdlib>
#include <string>

#include "backends/cpu/gemm_isa.hpp"
#include "backends/cpu/isa.hpp"
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

POPART_ISA_DECLARE(GemmIsa, kGemm)

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

size_t activeIsaIndex() {
  static const size_t chosen = chooseIsa();
  return chosen;
}

std::vector<const GemmIsa*> runnableGemms() {
  std::vector<const GemmIsa*> out;
#if defined(POPART_ISA_MULTI)
  const std::vector<const GemmIsa*> all{&isa_avx512::kGemm, &isa_avx2::kGemm, &isa_generic::kGemm};
#else
  const std::vector<const GemmIsa*> all{&POPART_ISA_NS::kGemm};
#endif
  for (size_t i = 0; i < all.size(); ++i)
    if (cpuRunsIsa(builtIsas()[i])) out.push_back(all[i]);
  return out;
}

const GemmIsa& activeGemm() {
  static const GemmIsa& chosen = POPART_ISA_PICK(kGemm);
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
