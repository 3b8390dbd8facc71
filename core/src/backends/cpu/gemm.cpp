// Single-precision GEMM: a GotoBLAS/BLIS-style blocked driver around the register-blocked
// micro-kernel of gemm_kernels.cpp. Double precision stays on Eigen (correctness only).
//
// Loop nest (float): for each NC-wide column block of C, for each KC-deep slice of K, for each
// MC-tall row block: for each kNR-wide B panel, the micro-kernel sweeps the row block in kMR-row
// tiles. The B panel (KC x kNR, 32 KiB) is reused from L1 by every row tile, the A rows
// (MC x KC, read in place unless transposed) stream from L2, and the packed KC x NC block of B
// stays in L2/L3 for the later row blocks. B panels are packed on first use - for plain B the
// first row tile reads B in place and writes the packed copy as it goes - so packing overlaps
// compute and the packed data is cache-hot. Exceptions: B too big for the last-level cache is
// packed a few panels at a time in row order (DRAM-friendly); products with few rows or a
// single column skip packing and stream the big operand once (smallGemm).
//
// Compiled once per instruction set (gemm_kernels.hpp); gemm_dispatch.cpp calls the copy the CPU
// runs best through its GemmIsa entry (kGemm below).
#include "backends/cpu/gemm.hpp"

#include <algorithm>
#include <cstddef>
#include <new>

#include "backends/cpu/gemm_isa.hpp"
#include "backends/cpu/gemm_kernels.hpp"
#include "common/thread_pool.hpp"

namespace popart {
namespace cpu {
namespace POPART_ISA_NS {
namespace {

using gemmk::BMode;
using gemmk::kMR;
using gemmk::kNR;

// Cache blocking, tuned on Zen 3 (32 KiB L1d, 512 KiB L2): flat within a few % for KC 384-768
// and MC 72-288; NC only bounds the packing buffer (KC x NC floats = 4 MiB).
constexpr int64_t kKC = 512;
constexpr int64_t kMC = 72;
constexpr int64_t kNC = 2048;
// Plain B beyond this many floats (16 MiB) is assumed to come from DRAM, not the last-level
// cache, and is packed kStreamPanels panels at a time (see streamB below).
constexpr int64_t kStreamBFloats = int64_t{1} << 22;
constexpr int64_t kStreamPanels = 8;

// Splits n into ceil(n / maxBlock) near-equal blocks, rounded up to `align`, so that e.g.
// K = 600 becomes 2 x 304 rather than 512 + 88.
int64_t balancedBlock(int64_t n, int64_t maxBlock, int64_t align) {
  const int64_t blocks = (n + maxBlock - 1) / maxBlock;
  const int64_t b = (n + blocks - 1) / blocks;
  return std::min(maxBlock, (b + align - 1) / align * align);
}

// Per-thread scratch, 64-byte aligned, grown on demand and kept: no heap traffic in steady state.
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() { release(); }
  float* get(int64_t floats) {
    const size_t n = static_cast<size_t>(floats);
    if (n > cap_) {
      release();
      ptr_ = static_cast<float*>(::operator new[](n * sizeof(float), std::align_val_t(64)));
      cap_ = n;
    }
    return ptr_;
  }

 private:
  void release() {
    if (ptr_) ::operator delete[](ptr_, std::align_val_t(64));
    ptr_ = nullptr;
    cap_ = 0;
  }
  float* ptr_ = nullptr;
  size_t cap_ = 0;
};

// C = beta * C for the degenerate cases (K == 0 or alpha == 0); beta == 0 writes zeros unread.
template <typename T>
void scaleC(int64_t M, int64_t N, T beta, T* C, int64_t ldc) {
  if (beta == T(1)) return;
  for (int64_t i = 0; i < M; ++i) {
    T* c = C + i * ldc;
    if (beta == T(0)) {
      std::fill(c, c + N, T(0));
    } else {
      for (int64_t j = 0; j < N; ++j) c[j] *= beta;
    }
  }
}

// Few rows or a single column: matrix-vector style products that stream the big operand once
// in its storage order. Packing would cost as much as the arithmetic here, and B read panel by
// panel (strided) gets a fraction of the DRAM bandwidth when it is large.
void smallGemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
               const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  thread_local Scratch scratch;
  if (N == 1) {
    // C[:, 0] = alpha * op(A) x + beta * C[:, 0] with x = op(B)[:, 0].
    float* tmp = scratch.get(K + M);
    const float* x = B;
    if (!transB && ldb != 1) {
      for (int64_t k = 0; k < K; ++k) tmp[k] = B[k * ldb];
      x = tmp;
    }
    if (!transA) {
      gemmk::dotRows(1, M, K, alpha, x, 0, A, lda, beta, C, 0, ldc);
    } else if (ldc == 1) {
      gemmk::axpyRows(1, M, K, alpha, x, 0, A, lda, beta, C, 0);
    } else {
      // Strided output column: accumulate contiguously, then scatter.
      float* y = tmp + K;
      if (beta != 0.0f) {
        for (int64_t i = 0; i < M; ++i) y[i] = C[i * ldc];
      }
      gemmk::axpyRows(1, M, K, alpha, x, 0, A, lda, beta, y, 0);
      for (int64_t i = 0; i < M; ++i) C[i * ldc] = y[i];
    }
    return;
  }
  // C = alpha * X op(B) + beta * C with the M rows X of op(A), made contiguous if transposed.
  const float* X = A;
  int64_t ldx = lda;
  if (transA) {
    float* tmp = scratch.get(M * K);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t i = 0; i < M; ++i) tmp[i * K + k] = A[k * lda + i];
    X = tmp;
    ldx = K;
  }
  if (transB) {
    // Up to 2 * kSmallRows rows in balanced passes (e.g. 7 = 4 + 3): each pass streams B once.
    const int64_t passes = (M + gemmk::kSmallRows - 1) / gemmk::kSmallRows;
    for (int64_t i = 0, p = 0; p < passes; ++p) {
      const int64_t rows = (M - i) / (passes - p);
      gemmk::dotRows(rows, N, K, alpha, X + i * ldx, ldx, B, ldb, beta, C + i * ldc, ldc, 1);
      i += rows;
    }
  } else {
    gemmk::axpyRows(M, N, K, alpha, X, ldx, B, ldb, beta, C, ldc);
  }
}

void sgemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
           const float* B, int64_t ldb, float beta, float* C, int64_t ldc, const GemmEpilogue* ep) {
  if (M <= 0 || N <= 0) return;
  const bool hook = ep != nullptr && ep->fn != nullptr;
  // Transposed B is also cheap to stream (rows contiguous in k) for a few more rows.
  const bool fewRows = M <= gemmk::kSmallRows || (transB && M <= 2 * gemmk::kSmallRows);
  if (K <= 0 || alpha == 0.0f || fewRows || N == 1) {
    if (K <= 0 || alpha == 0.0f) {
      scaleC(M, N, beta, C, ldc);
    } else {
      smallGemm(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    }
    if (hook) ep->fn(ep->ctx, C, ldc, M, N, 0, 0);
    return;
  }

  const int64_t kcMax = balancedBlock(K, kKC, 8);
  const int64_t mcMax = balancedBlock(M, kMC, kMR);
  const int64_t ncMax = balancedBlock(N, kNC, kNR);  // a multiple of kNR: whole panels
  thread_local Scratch bScratch, aScratch;
  float* bPack = bScratch.get(kcMax * ncMax);
  float* aPack = transA ? aScratch.get(mcMax * kcMax) : nullptr;
  // Plain B is read in place by the first row tile; it also leaves a packed copy when more row
  // tiles will need the panel.
  const BMode inPlaceMode = M > kMR ? BMode::kInPlaceAndPack : BMode::kInPlace;
  // That panel-by-panel read jumps a row of B per k step, which gets only a fraction of the DRAM
  // bandwidth: B too large to stay in the last-level cache is packed a few panels at a time,
  // row by row, instead.
  const bool streamB = !transB && K * N > kStreamBFloats;

  for (int64_t jc = 0; jc < N; jc += ncMax) {
    const int64_t nc = std::min(ncMax, N - jc);
    for (int64_t pc = 0; pc < K; pc += kcMax) {
      const int64_t kc = std::min(kcMax, K - pc);
      const float betaK = pc == 0 ? beta : 1.0f;  // later K slices accumulate onto the first
      const bool lastK = pc + kc == K;
      for (int64_t ic = 0; ic < M; ic += mcMax) {
        const int64_t mc = std::min(mcMax, M - ic);
        // The kernels read A rows contiguous in k: transposed A is repacked row-major.
        const float* aBlk = A + ic * lda + pc;
        int64_t aStride = lda;
        if (transA) {
          gemmk::packA(true, A, lda, ic, pc, mc, kc, aPack);
          aBlk = aPack;
          aStride = kc;
        }
        for (int64_t jr = 0; jr < nc; jr += kNR) {
          const int cols = static_cast<int>(std::min<int64_t>(kNR, nc - jr));
          float* panel = bPack + jr * kc;
          float* cBlk = C + ic * ldc + jc + jr;
          if (ic == 0 && streamB && cols == kNR) {
            if (jr % (kStreamPanels * kNR) == 0) {
              const int64_t panels = std::min<int64_t>(kStreamPanels, (nc - jr) / kNR);
              gemmk::packBPanelsPlain(B, ldb, pc, jc + jr, kc, panels, panel);
            }
            gemmk::kernelStrip(mc, cols, kc, aBlk, aStride, BMode::kPacked, panel, kNR, nullptr, cBlk, ldc, alpha,
                               betaK);
            continue;
          }
          if (ic == 0 && !transB && cols == kNR) {
            gemmk::kernelStrip(mc, cols, kc, aBlk, aStride, inPlaceMode, B + pc * ldb + jc + jr, ldb, panel, cBlk, ldc,
                               alpha, betaK);
            continue;
          }
          if (ic == 0) gemmk::packBPanel(transB, B, ldb, pc, jc + jr, kc, cols, panel);
          gemmk::kernelStrip(mc, cols, kc, aBlk, aStride, BMode::kPacked, panel, kNR, nullptr, cBlk, ldc, alpha, betaK);
        }
        if (hook && lastK) ep->fn(ep->ctx, C + ic * ldc + jc, ldc, mc, nc, ic, jc);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Threads: C is split into column blocks (whole kNR panels), or into row blocks when it has too
// few columns, one sgemm per block on the pool (each with its own thread_local packing scratch);
// each C element sees the same k order as single-threaded. The epilogue gets the blocks'
// coordinates in the whole C.

// Below this many flops a product stays on one thread: it takes well under 100 us, and a region
// costs ~1 us while the pool threads spin but ~60 us once they have gone to sleep.
constexpr double kParallelFlops = double(1 << 22);

struct ShiftedEpilogue {
  const GemmEpilogue* ep;
  int64_t row0, col0;
  static void apply(void* ctx, float* c, int64_t ldc, int64_t rows, int64_t cols, int64_t row0, int64_t col0) {
    const auto* s = static_cast<const ShiftedEpilogue*>(ctx);
    s->ep->fn(s->ep->ctx, c, ldc, rows, cols, row0 + s->row0, col0 + s->col0);
  }
};

void sgemmThreaded(bool transA, bool transB, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
                   const float* B, int64_t ldb, float beta, float* C, int64_t ldc, const GemmEpilogue* ep) {
  const int64_t threads = getNumThreads();
  if (threads <= 1 || K <= 0 || alpha == 0.0f || 2.0 * double(M) * double(N) * double(K) < kParallelFlops)
    return sgemm(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, ep);
  const bool hook = ep != nullptr && ep->fn != nullptr;
  // C[i0:i1, j0:j1] as one sgemm, its epilogue blocks shifted to whole-C coordinates.
  auto block = [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
    if (i1 <= i0 || j1 <= j0) return;
    ShiftedEpilogue sh{ep, i0, j0};
    const GemmEpilogue sub{&ShiftedEpilogue::apply, &sh};
    sgemm(transA, transB, i1 - i0, j1 - j0, K, alpha, transA ? A + i0 : A + i0 * lda, lda,
          transB ? B + j0 * ldb : B + j0, ldb, beta, C + i0 * ldc + j0, ldc, hook ? &sub : nullptr);
  };
  const int64_t panels = (N + kNR - 1) / kNR;
  if (panels >= 2 * threads) {
    // Column blocks of whole panels, as even as possible.
    parallelFor(threads, [&](int64_t p) {
      block(0, M, std::min(N, panels * p / threads * kNR), std::min(N, panels * (p + 1) / threads * kNR));
    });
    return;
  }
  if (M >= 2 * kMR * threads) {
    parallelFor(threads, [&](int64_t p) { block(M * p / threads, M * (p + 1) / threads, 0, N); });
    return;
  }
  sgemm(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, ep);
}

}  // namespace

extern const GemmIsa kGemm{POPART_ISA_NAME, kMR, kNR, &sgemmThreaded};

}  // namespace POPART_ISA_NS
}  // namespace cpu
}  // namespace popart
