// Architecture seam of the packed single-precision GEMM (gemm.cpp): tile sizes, packing and the
// inner kernels. Each target implements the functions below, selected by #if: AVX-512, AVX2+FMA and
// portable C++ in gemm_kernels.cpp, WebAssembly SIMD128 in gemm_kernels_wasm.cpp. The blocking
// driver depends only on this header.
//
// On x86-64 the GEMM is compiled once per instruction set, each copy in its own namespace
// (backends/cpu/isa.hpp); gemm_dispatch.cpp calls the copy in use.
#pragma once

#include <cstdint>

#include "backends/cpu/isa.hpp"

namespace popart {
namespace cpu {
namespace POPART_ISA_NS {
namespace gemmk {

#if defined(POPART_ISA_AVX512)
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512DQ__) || !defined(__AVX512VL__)
#error "the AVX-512 GEMM is compiled with -march=x86-64-v4"
#endif
#define POPART_GEMM_AVX2 1  // its packing and narrow tails are the AVX2 ones
#define POPART_GEMM_AVX512 1
// 12 rows x 32 columns = 24 zmm accumulators + 2 B vectors + 1 A broadcast: 27 of 32 registers.
constexpr int kMR = 12;
constexpr int kNR = 32;
#elif !defined(POPART_ISA_GENERIC) && defined(__AVX2__) && defined(__FMA__)
#define POPART_GEMM_AVX2 1
// 6 rows x 16 columns = 12 ymm accumulators + 2 B vectors + 1 A broadcast: 15 of 16 registers.
constexpr int kMR = 6;
constexpr int kNR = 16;
#elif defined(__wasm_simd128__)
#define POPART_GEMM_WASM_SIMD 1
// 4 rows x 8 columns = 8 v128 accumulators + 2 B vectors + 1 A broadcast + 1 product (no FMA):
// fits the 15 xmm registers V8 allocates on x86-64 (see gemm_kernels_wasm.cpp).
constexpr int kMR = 4;
constexpr int kNR = 8;
#else
constexpr int kMR = 4;
constexpr int kNR = 16;
#endif

/// How kernelStrip reads its B panel.
enum class BMode {
  kPacked,         // b was filled by packBPanel (ldbp ignored)
  kInPlace,        // b points at the caller's plain (non-transposed) B, row stride ldbp, kNR columns
  kInPlaceAndPack  // as kInPlace, and the first row tile also writes the packed panel to bPackOut,
                   // which the remaining rows then read
};

/// Packs op(B)[k0:k0+kc, j0:j0+cols] (cols <= kNR) into one panel of at most kc * kNR floats,
/// 64-byte aligned, in the layout kernelStrip expects (private to the target).
/// op(B)(k, j) = transB ? B[j * ldb + k] : B[k * ldb + j].
void packBPanel(bool transB, const float* B, int64_t ldb, int64_t k0, int64_t j0, int64_t kc, int cols, float* dst);

/// Packs `panels` consecutive full-width panels of plain B (B[(k0 + k) * ldb + j0 + j]) into
/// dst, panel p at dst + p * kc * kNR, sweeping B row by row: long contiguous reads, for B that
/// has to come from DRAM.
void packBPanelsPlain(const float* B, int64_t ldb, int64_t k0, int64_t j0, int64_t kc, int64_t panels, float* dst);

/// Copies op(A)[i0:i0+mc, k0:k0+kc] row-major into dst[i * kc + k], for transposed A (the
/// kernels read A rows contiguous in k). op(A)(i, k) = transA ? A[k * lda + i] : A[i * lda + k].
/// Shared by the targets (gemm_kernels.cpp), through their transposeBlock.
void packA(bool transA, const float* A, int64_t lda, int64_t i0, int64_t k0, int64_t mc, int64_t kc, float* dst);

/// dst[c * ldd + r] = src[r * lds + c] for r < rows, c < cols (the target's fastest transpose).
void transposeBlock(const float* src, int64_t lds, int64_t rows, int64_t cols, float* dst, int64_t ldd);

/// Plain B rows (B[(k0 + k) * ldb + j0 + j], j < cols) into a kNR-wide panel, zero-padded: the
/// non-transposed case of packBPanel, shared by the targets.
void packBPanelPlainRows(const float* B, int64_t ldb, int64_t k0, int64_t j0, int64_t kc, int cols, float* dst);

/// The micro-kernel loop over one B panel: for i < m, j < cols (<= kNR), k < kc,
///   C[i * ldc + j] = alpha * sum_k A[i * lda + k] * opB(k, j)  +  beta * C[i * ldc + j].
/// A is row-major with row stride lda (the caller's matrix or packA's copy). The in-place modes
/// need cols == kNR. beta == 0 never reads C (it may hold NaN garbage).
void kernelStrip(int64_t m, int cols, int64_t kc, const float* A, int64_t lda, BMode mode, const float* b, int64_t ldbp,
                 float* bPackOut, float* C, int64_t ldc, float alpha, float beta);

/// y = beta * y over n elements; beta == 0 writes zeros without reading y (shared by the targets).
void scaleVector(int64_t n, float beta, float* y);

/// Few-row products, where packing cannot pay off: the matrix Mx streams through once in its
/// storage order against m <= kSmallRows short rows X[r * ldx : r * ldx + k] (contiguous).
/// axpyRows: Y[r * ldy + j] = alpha * sum_kk X[r * ldx + kk] * Mx[kk * ldm + j] + beta * Y[..], j < n.
/// dotRows:  Y[r * ldy + i * incy] = alpha * dot(X[r * ldx : +k], Mx[i * ldm : +k]) + beta * Y[..],
///           i < n (rows of Mx).
/// beta == 0 never reads Y.
constexpr int kSmallRows = 4;
void axpyRows(int64_t m, int64_t n, int64_t k, float alpha, const float* X, int64_t ldx, const float* Mx, int64_t ldm,
              float beta, float* Y, int64_t ldy);
void dotRows(int64_t m, int64_t n, int64_t k, float alpha, const float* X, int64_t ldx, const float* Mx, int64_t ldm,
             float beta, float* Y, int64_t ldy, int64_t incy);

}  // namespace gemmk
}  // namespace POPART_ISA_NS
}  // namespace cpu
}  // namespace popart
