// Single-precision and double GEMM on row-major matrices (Eigen underneath, one thread).
#pragma once

#include <cstdint>

namespace popart {
namespace cpu {

/// C[M,N] = alpha * op(A) op(B) + beta * C, row-major with leading dimensions lda/ldb/ldc.
/// op(X) = X^T when the trans flag is set. beta = 0 ignores C's previous contents.
void gemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
          const float* B, int64_t ldb, float beta, float* C, int64_t ldc);
void gemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, double alpha, const double* A,
          int64_t lda, const double* B, int64_t ldb, double beta, double* C, int64_t ldc);

}  // namespace cpu
}  // namespace popart
