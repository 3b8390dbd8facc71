// Single- and double-precision GEMM on row-major matrices (one thread). float runs a packed,
// cache-blocked kernel (gemm.cpp, gemm_kernels.cpp); double uses Eigen.
#pragma once

#include <cstdint>

namespace popart {
namespace cpu {

/// Optional fused epilogue of the float GEMM: called once for every finished block of C (the
/// `rows` x `cols` block at c = C + row0 * ldc + col0, alpha and beta already applied) while it
/// is still in cache; the blocks tile C exactly once. With several threads (popart/threads.hpp)
/// it runs concurrently for different blocks, so it may only write its own block's outputs. The
/// callback must not call gemm itself (the packing scratch is per thread).
struct GemmEpilogue {
  void (*fn)(void* ctx, float* c, int64_t ldc, int64_t rows, int64_t cols, int64_t row0, int64_t col0) = nullptr;
  void* ctx = nullptr;
};

/// C[M,N] = alpha * op(A) op(B) + beta * C, row-major with leading dimensions lda/ldb/ldc.
/// op(X) = X^T when the trans flag is set. beta = 0 ignores C's previous contents (C may be
/// uninitialised); alpha = 0 or K = 0 reads neither A nor B.
void gemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
          const float* B, int64_t ldb, float beta, float* C, int64_t ldc);
void gemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
          const float* B, int64_t ldb, float beta, float* C, int64_t ldc, const GemmEpilogue& epilogue);
void gemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, double alpha, const double* A, int64_t lda,
          const double* B, int64_t ldb, double beta, double* C, int64_t ldc);

}  // namespace cpu
}  // namespace popart
