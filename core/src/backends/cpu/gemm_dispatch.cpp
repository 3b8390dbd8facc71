// gemm(): the float GEMM's copy of the instruction set in use (isa.hpp, gemm_isa.hpp), and the
// double GEMM (Eigen).
#include <string>

#include "backends/cpu/gemm_isa.hpp"
#include "backends/cpu/isa.hpp"

// Eigen is normally a -isystem include; keep its own warnings out of -Werror builds that use -I.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wshadow"
#include <Eigen/Core>
#pragma GCC diagnostic pop

namespace popart {
namespace cpu {

POPART_ISA_DECLARE(GemmIsa, kGemm)

namespace {

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
  MMap<T> c(C, M, N, Eigen::OuterStride<>(ldc));
  if (beta == T(0)) {
    c.setZero();  // C unread: it may hold NaN garbage
  } else if (beta != T(1)) {
    c *= beta;
  }
  if (K <= 0 || alpha == T(0)) return;
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
  for (const auto& copy : runnableIsaTables<GemmIsa>(POPART_ISA_ALL(kGemm))) out.push_back(copy.second);
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
