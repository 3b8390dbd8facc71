#include "backends/cpu/gemm.hpp"

#include <Eigen/Core>

namespace popart {
namespace cpu {
namespace {

template <typename T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using CMap = Eigen::Map<const RowMat<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using MMap = Eigen::Map<RowMat<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

template <typename T>
void gemmImpl(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda, const T* B,
              int64_t ldb, T beta, T* C, int64_t ldc) {
  MMap<T> c(C, M, N, Eigen::OuterStride<>(ldc));
  if (beta == T(0)) {
    c.setZero();
  } else if (beta != T(1)) {
    c *= beta;
  }
  if (M == 0 || N == 0 || K == 0) return;
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

void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
          const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  gemmImpl<float>(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
          const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
  gemmImpl<double>(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace cpu
}  // namespace popart
