// Inner kernels of the packed SGEMM (see gemm_kernels.hpp): packing, the register-blocked
// micro-kernel and the matrix-vector kernels for AVX2+FMA and portable C++ (the wasm SIMD128 ones
// are in gemm_kernels_wasm.cpp).
#include "backends/cpu/gemm_kernels.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#if defined(POPART_GEMM_AVX2)
#include <immintrin.h>

#include "backends/cpu/gemm_simd.hpp"
#endif

namespace popart {
namespace cpu {
namespace POPART_ISA_NS {
namespace gemmk {

void scaleVector(int64_t n, float beta, float* y) {
  if (beta == 0.0f) {
    std::fill(y, y + n, 0.0f);
  } else if (beta != 1.0f) {
    for (int64_t j = 0; j < n; ++j) y[j] *= beta;
  }
}

void packBPanelsPlain(const float* B, int64_t ldb, int64_t k0, int64_t j0, int64_t kc, int64_t panels, float* dst) {
  const float* src = B + k0 * ldb + j0;
  for (int64_t k = 0; k < kc; ++k, src += ldb) {
    for (int64_t p = 0; p < panels; ++p) std::memcpy(dst + (p * kc + k) * kNR, src + p * kNR, sizeof(float) * kNR);
  }
}

void packA(bool transA, const float* A, int64_t lda, int64_t i0, int64_t k0, int64_t mc, int64_t kc, float* dst) {
  if (!transA) {
    for (int64_t i = 0; i < mc; ++i)
      std::memcpy(dst + i * kc, A + (i0 + i) * lda + k0, static_cast<size_t>(kc) * sizeof(float));
    return;
  }
  // Rows of the stored A are k: transpose the kc x mc block.
  transposeBlock(A + k0 * lda + i0, lda, kc, mc, dst, kc);
}

void packBPanelPlainRows(const float* B, int64_t ldb, int64_t k0, int64_t j0, int64_t kc, int cols, float* dst) {
  const float* src = B + k0 * ldb + j0;
  for (int64_t k = 0; k < kc; ++k, src += ldb, dst += kNR) {
    int j = 0;
    for (; j < cols; ++j) dst[j] = src[j];
    for (; j < kNR; ++j) dst[j] = 0.0f;
  }
}

#if defined(POPART_GEMM_AVX2)

namespace {

// Panels of at most this many columns are packed column-major and multiplied by dot products
// along k (A rows are contiguous in k): a 1-4 column tail then costs in proportion to its width,
// where the broadcast kernel would pay for 8 columns.
constexpr int kDotCols = 4;

// Lanes [0, n) set, for masked loads/stores of a partial vector (n in 1..8).
inline __m256i laneMask(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Transposes an 8x8 block held as 8 row vectors.
inline void transpose8x8(__m256 r[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
  r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
  r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
  r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
  r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

// dst[c * ldd + r] = src[r * lds + c] for r < rows, c < cols: 8x8 vector blocks, scalar edges.
// prefetchNext > 0 also prefetches the same columns that many source rows further down.
void transposeCopy(const float* src, int64_t lds, int64_t rows, int64_t cols, float* dst, int64_t ldd,
                   int64_t prefetchNext) {
  int64_t r0 = 0;
  for (; r0 + 8 <= rows; r0 += 8) {
    int64_t c0 = 0;
    for (; c0 + 8 <= cols; c0 += 8) {
      __m256 v[8];
      for (int t = 0; t < 8; ++t) {
        const float* p = src + (r0 + t) * lds + c0;
        v[t] = _mm256_loadu_ps(p);
        if (prefetchNext) _mm_prefetch(reinterpret_cast<const char*>(p + prefetchNext * lds), _MM_HINT_T0);
      }
      transpose8x8(v);
      for (int t = 0; t < 8; ++t) _mm256_storeu_ps(dst + (c0 + t) * ldd + r0, v[t]);
    }
    for (; c0 < cols; ++c0)
      for (int64_t r = r0; r < r0 + 8; ++r) dst[c0 * ldd + r] = src[r * lds + c0];
  }
  for (; r0 < rows; ++r0)
    for (int64_t c = 0; c < cols; ++c) dst[c * ldd + r0] = src[r0 * lds + c];
}

}  // namespace

void transposeBlock(const float* src, int64_t lds, int64_t rows, int64_t cols, float* dst, int64_t ldd) {
  transposeCopy(src, lds, rows, cols, dst, ldd, 0);
}

void packBPanel(bool transB, const float* B, int64_t ldb, int64_t k0, int64_t j0, int64_t kc, int cols, float* dst) {
  if (cols <= kDotCols) {
    // Narrow tail: column-major (dst[j * kc + k]) for the dot-product kernel.
    for (int j = 0; j < cols; ++j) {
      float* d = dst + j * kc;
      if (transB) {
        std::memcpy(d, B + (j0 + j) * ldb + k0, static_cast<size_t>(kc) * sizeof(float));
      } else {
        for (int64_t k = 0; k < kc; ++k) d[k] = B[(k0 + k) * ldb + j0 + j];
      }
    }
    return;
  }
  if (transB) {
    // Panel columns are rows of the stored B. The next panel's rows are prefetched: they are
    // needed after this panel's kernel work, and short rows defeat the hardware prefetcher.
    transposeCopy(B + j0 * ldb + k0, ldb, cols, kc, dst, kNR, kNR);
    for (int64_t k = 0; k < kc; ++k)
      for (int j = cols; j < kNR; ++j) dst[k * kNR + j] = 0.0f;
    return;
  }
  packBPanelPlainRows(B, ldb, k0, j0, kc, cols, dst);
}

namespace {

// The register tile over one vector width: Ymm (AVX2, 16 registers of 8 floats) or, in the
// AVX-512 copy, Zmm (32 registers of 16, mask registers for the ragged last vector).
struct Ymm {
  using V = __m256;
  using Mask = __m256i;
  static constexpr int kLanes = 8, kRegs = 16;
  static V zero() { return _mm256_setzero_ps(); }
  static V loadu(const float* p) { return _mm256_loadu_ps(p); }
  static void storeu(float* p, V v) { _mm256_storeu_ps(p, v); }
  static void storeAligned(float* p, V v) { _mm256_store_ps(p, v); }
  static V broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  static V set1(float x) { return _mm256_set1_ps(x); }
  static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static Mask mask(int n) { return laneMask(n); }
  static V maskLoad(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void maskStore(float* p, Mask m, V v) { _mm256_maskstore_ps(p, m, v); }
  // Keeps a B vector in a register: GCC otherwise folds the load into every FMA, and R loads of
  // each B vector per k step saturate the load ports (the 4-row AVX2 tile ran at 2/3 speed).
  static POPART_INLINE void pin(V& v) { __asm__("" : "+x"(v)); }
};

#if defined(POPART_GEMM_AVX512)
struct Zmm {
  using V = __m512;
  using Mask = __mmask16;
  static constexpr int kLanes = 16, kRegs = 32;
  static V zero() { return _mm512_setzero_ps(); }
  static V loadu(const float* p) { return _mm512_loadu_ps(p); }
  static void storeu(float* p, V v) { _mm512_storeu_ps(p, v); }
  static void storeAligned(float* p, V v) { _mm512_store_ps(p, v); }
  static V broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static V set1(float x) { return _mm512_set1_ps(x); }
  static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static Mask mask(int n) { return static_cast<Mask>((1u << n) - 1u); }
  static V maskLoad(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static void maskStore(float* p, Mask m, V v) { _mm512_mask_storeu_ps(p, m, v); }
  static POPART_INLINE void pin(V& v) { __asm__("" : "+v"(v)); }
};
using Reg = Zmm;
#else
using Reg = Ymm;
#endif
static_assert(kNR == 2 * Reg::kLanes, "the tile is kMR rows x 2 vectors");

// One k step of the R x (kLanes * V) tile: acc[r][v] += broadcast(A[r][k]) * b[k][v-th vector].
template <typename X, int R, int V, BMode S>
POPART_INLINE void step(typename X::V (&acc)[R][V], const float* const (&a)[R], int64_t k, const float*& b,
                        int64_t ldbp, float*& bCopy) {
  typename X::V bv[V];
  POPART_UNROLL for (int v = 0; v < V; ++v) {
    bv[v] = X::loadu(b + X::kLanes * v);
    X::pin(bv[v]);
  }
  if constexpr (S != BMode::kPacked) {
    // In-place B rows are far apart (often a page each), which hardware prefetchers do not
    // follow: fetch the next panel's row now, ahead of its use.
    _mm_prefetch(reinterpret_cast<const char*>(b + 2 * kNR - 1), _MM_HINT_T0);
  }
  if constexpr (S == BMode::kInPlaceAndPack) {
    POPART_UNROLL for (int v = 0; v < V; ++v) X::storeAligned(bCopy + X::kLanes * v, bv[v]);
    bCopy += kNR;
  }
  b += ldbp;
  POPART_UNROLL for (int r = 0; r < R; ++r) {
    const typename X::V ar = X::broadcast(a[r] + k);
    POPART_UNROLL for (int v = 0; v < V; ++v) acc[r][v] = X::fmadd(ar, bv[v], acc[r][v]);
  }
}

// The R x (kLanes * V) register tile: C = alpha * A[0:R, 0:kc] * b + beta * C, columns past
// `cols` masked out of the last vector's loads and stores.
template <typename X, int R, int V, BMode S>
void tile(int64_t kc, const float* A, int64_t lda, const float* b, int64_t ldbp, float* bCopy, float* C, int64_t ldc,
          float alpha, float beta, int cols) {
  // An FMA has 4 cycles of latency and two issue per cycle, so 8+ independent accumulators are
  // needed: short tiles split k over U interleaved accumulator sets, aiming for 12 chains within
  // the registers (V hold B, one the A broadcast).
  constexpr int kChains = 12, kFree = X::kRegs - V - 1;
  constexpr int U = std::max(1, std::min((kChains + R * V - 1) / (R * V), kFree / (R * V)));
  typename X::V acc[U][R][V];
  POPART_UNROLL for (int u = 0; u < U; ++u) {
    POPART_UNROLL for (int r = 0; r < R; ++r) {
      POPART_UNROLL for (int v = 0; v < V; ++v) acc[u][r][v] = X::zero();
    }
  }
  const float* a[R];
  POPART_UNROLL for (int r = 0; r < R; ++r) {
    a[r] = A + r * lda;
    // Start fetching the C tile now so that short k loops do not stall on its cache misses.
    _mm_prefetch(reinterpret_cast<const char*>(C + r * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(C + r * ldc + cols - 1), _MM_HINT_T0);
  }
  int64_t k = 0;
  for (; k + U <= kc; k += U) {
    POPART_UNROLL for (int u = 0; u < U; ++u) step<X, R, V, S>(acc[u], a, k + u, b, ldbp, bCopy);
  }
  for (; k < kc; ++k) step<X, R, V, S>(acc[0], a, k, b, ldbp, bCopy);
  POPART_UNROLL for (int u = 1; u < U; ++u) {
    POPART_UNROLL for (int r = 0; r < R; ++r) {
      POPART_UNROLL for (int v = 0; v < V; ++v) acc[0][r][v] = X::add(acc[0][r][v], acc[u][r][v]);
    }
  }

  const typename X::V va = X::set1(alpha), vb = X::set1(beta);
  const int tail = cols - X::kLanes * (V - 1);  // valid lanes of the last vector, 1..kLanes
  const typename X::Mask mask = X::mask(tail);
  POPART_UNROLL for (int r = 0; r < R; ++r) {
    float* c = C + r * ldc;
    POPART_UNROLL for (int v = 0; v < V; ++v) {
      typename X::V x = X::mul(acc[0][r][v], va);
      const bool masked = v == V - 1 && tail < X::kLanes;
      float* cv = c + X::kLanes * v;
      if (beta != 0.0f) {
        const typename X::V old = masked ? X::maskLoad(cv, mask) : X::loadu(cv);
        x = beta == 1.0f ? X::add(x, old) : X::fmadd(old, vb, x);
      }
      if (masked) {
        X::maskStore(cv, mask, x);
      } else {
        X::storeu(cv, x);
      }
    }
  }
}

// Runtime row count (1..kMR) -> tile instantiation.
template <typename X, int V, BMode S, int R = kMR>
void tileRows(int64_t rows, int64_t kc, const float* A, int64_t lda, const float* b, int64_t ldbp, float* bCopy,
              float* C, int64_t ldc, float alpha, float beta, int cols) {
  if constexpr (R > 1) {
    if (rows < R) return tileRows<X, V, S, R - 1>(rows, kc, A, lda, b, ldbp, bCopy, C, ldc, alpha, beta, cols);
  }
  tile<X, R, V, S>(kc, A, lda, b, ldbp, bCopy, C, ldc, alpha, beta, cols);
}

template <typename X, int V>
void strip(int64_t m, int cols, int64_t kc, const float* A, int64_t lda, BMode mode, const float* b, int64_t ldbp,
           float* bCopy, float* C, int64_t ldc, float alpha, float beta) {
  if (mode == BMode::kPacked) ldbp = kNR;
  for (int64_t i = 0; i < m;) {
    // Tiles of a few rows are the least efficient: end on two middling tiles (6 x 16: 4+3, 4+4
    // or 5+4 rows rather than 6+1, 6+2 or 6+3) rather than a full one and a sliver.
    const int64_t left = m - i;
    const int64_t rows = left > kMR && left < kMR + kMR / 2 + 1 ? (left + 1) / 2 : std::min<int64_t>(left, kMR);
    const float* a = A + i * lda;
    float* c = C + i * ldc;
    switch (mode) {
      case BMode::kPacked:
        tileRows<X, V, BMode::kPacked>(rows, kc, a, lda, b, ldbp, nullptr, c, ldc, alpha, beta, cols);
        break;
      case BMode::kInPlace:
        tileRows<X, V, BMode::kInPlace>(rows, kc, a, lda, b, ldbp, nullptr, c, ldc, alpha, beta, cols);
        break;
      case BMode::kInPlaceAndPack:
        tileRows<X, V, BMode::kInPlaceAndPack>(rows, kc, a, lda, b, ldbp, bCopy, c, ldc, alpha, beta, cols);
        mode = BMode::kPacked;  // the remaining tiles read the packed copy
        b = bCopy;
        ldbp = kNR;
        break;
    }
    i += rows;
  }
}

// Horizontal sum of the 8 lanes.
inline float hsum(__m256 x) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// R rows x T columns by dot products along k: acc[r][j] += A[r][k:k+8] * bt[j][k:k+8], reduced
// at the end; C[r * ldc + j * incc] = alpha * acc + beta * C. The k tail is masked on both sides so
// nothing past kc is read.
template <int R, int T>
void dotTile(int64_t kc, const float* A, int64_t lda, const float* bt, int64_t ldbt, float* C, int64_t ldc,
             int64_t incc, float alpha, float beta) {
  __m256 acc[R][T];
  POPART_UNROLL for (int r = 0; r < R; ++r) {
    POPART_UNROLL for (int j = 0; j < T; ++j) acc[r][j] = _mm256_setzero_ps();
  }
  int64_t k = 0;
  for (; k + 8 <= kc; k += 8) {
    __m256 bv[T];
    POPART_UNROLL for (int j = 0; j < T; ++j) bv[j] = _mm256_loadu_ps(bt + j * ldbt + k);
    POPART_UNROLL for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_loadu_ps(A + r * lda + k);
      POPART_UNROLL for (int j = 0; j < T; ++j) acc[r][j] = _mm256_fmadd_ps(av, bv[j], acc[r][j]);
    }
  }
  if (k < kc) {
    const __m256i mask = laneMask(kc - k);
    __m256 bv[T];
    POPART_UNROLL for (int j = 0; j < T; ++j) bv[j] = _mm256_maskload_ps(bt + j * ldbt + k, mask);
    POPART_UNROLL for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_maskload_ps(A + r * lda + k, mask);
      POPART_UNROLL for (int j = 0; j < T; ++j) acc[r][j] = _mm256_fmadd_ps(av, bv[j], acc[r][j]);
    }
  }
  POPART_UNROLL for (int r = 0; r < R; ++r) {
    POPART_UNROLL for (int j = 0; j < T; ++j) {
      float* c = C + r * ldc + j * incc;
      const float x = alpha * hsum(acc[r][j]);
      *c = beta == 0.0f ? x : x + beta * *c;
    }
  }
}

// Rows per dot tile: T * R accumulators and T B vectors fit the 16 registers.
constexpr int dotTileRows(int t) {
  return t == 1 ? 8 : t == 2 ? 6 : t == 3 ? 4 : 3;
}

template <int T>
void dotStrip(int64_t m, int64_t kc, const float* A, int64_t lda, const float* bt, int64_t ldbt, float* C, int64_t ldc,
              int64_t incc, float alpha, float beta) {
  constexpr int R = dotTileRows(T);
  int64_t i = 0;
  for (; i + R <= m; i += R) dotTile<R, T>(kc, A + i * lda, lda, bt, ldbt, C + i * ldc, ldc, incc, alpha, beta);
  for (; i < m; ++i) dotTile<1, T>(kc, A + i * lda, lda, bt, ldbt, C + i * ldc, ldc, incc, alpha, beta);
}

/// The few-row kernels' vector operations (gemm_simd.hpp) on the tile's registers.
struct RegOps {
  using V = Reg::V;
  static constexpr int kLanes = Reg::kLanes;
  static V load(const float* p) { return Reg::loadu(p); }
  static void store(float* p, V v) { Reg::storeu(p, v); }
  static V splat(float x) { return Reg::set1(x); }
  static V madd(V acc, V a, V b) { return Reg::fmadd(a, b, acc); }
  static constexpr int axpyPasses(int rows) { return rows <= 2 ? 4 : rows <= 4 ? 3 : 2; }  // rows * passes broadcasts
};

}  // namespace

void kernelStrip(int64_t m, int cols, int64_t kc, const float* A, int64_t lda, BMode mode, const float* b, int64_t ldbp,
                 float* bPackOut, float* C, int64_t ldc, float alpha, float beta) {
  switch (cols) {  // narrow tails were packed column-major by packBPanel (never in place)
    case 1:
      return dotStrip<1>(m, kc, A, lda, b, kc, C, ldc, 1, alpha, beta);
    case 2:
      return dotStrip<2>(m, kc, A, lda, b, kc, C, ldc, 1, alpha, beta);
    case 3:
      return dotStrip<3>(m, kc, A, lda, b, kc, C, ldc, 1, alpha, beta);
    case 4:
      return dotStrip<4>(m, kc, A, lda, b, kc, C, ldc, 1, alpha, beta);
    default:
      break;
  }
  // A ragged panel of at most one vector's columns needs one vector per row.
  if (cols > Reg::kLanes) {
    strip<Reg, 2>(m, cols, kc, A, lda, mode, b, ldbp, bPackOut, C, ldc, alpha, beta);
  } else {
    strip<Reg, 1>(m, cols, kc, A, lda, mode, b, ldbp, bPackOut, C, ldc, alpha, beta);
  }
}

void axpyRows(int64_t m, int64_t n, int64_t k, float alpha, const float* X, int64_t ldx, const float* Mx, int64_t ldm,
              float beta, float* Y, int64_t ldy) {
  axpyRowsSimd<RegOps>(m, n, k, alpha, X, ldx, Mx, ldm, beta, Y, ldy);
}

void dotRows(int64_t m, int64_t n, int64_t k, float alpha, const float* X, int64_t ldx, const float* Mx, int64_t ldm,
             float beta, float* Y, int64_t ldy, int64_t incy) {
  // Rows of Mx stream side by side (the dot tile's rows) against the m rows of X (its columns).
  forSmallRows(m,
               [&](auto rows) { dotStrip<decltype(rows)::value>(n, k, Mx, ldm, X, ldx, Y, incy, ldy, alpha, beta); });
}

#elif !defined(POPART_GEMM_WASM_SIMD)  // portable C++: straightforward loops over the same layouts

void transposeBlock(const float* src, int64_t lds, int64_t rows, int64_t cols, float* dst, int64_t ldd) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) dst[c * ldd + r] = src[r * lds + c];
}

void packBPanel(bool transB, const float* B, int64_t ldb, int64_t k0, int64_t j0, int64_t kc, int cols, float* dst) {
  if (!transB) return packBPanelPlainRows(B, ldb, k0, j0, kc, cols, dst);
  for (int64_t k = 0; k < kc; ++k, dst += kNR) {
    int j = 0;
    for (; j < cols; ++j) dst[j] = B[(j0 + j) * ldb + k0 + k];
    for (; j < kNR; ++j) dst[j] = 0.0f;
  }
}

namespace {

// R x kNR tile accumulated in a local array; simple enough for auto-vectorisers.
template <int R>
void tile(int64_t kc, const float* A, int64_t lda, const float* b, int64_t ldbp, float* C, int64_t ldc, float alpha,
          float beta, int cols) {
  float acc[R][kNR] = {};
  for (int64_t k = 0; k < kc; ++k, b += ldbp) {
    for (int r = 0; r < R; ++r) {
      const float ar = A[r * lda + k];
      for (int j = 0; j < kNR; ++j) acc[r][j] += ar * b[j];
    }
  }
  for (int r = 0; r < R; ++r) {
    float* c = C + r * ldc;
    for (int j = 0; j < cols; ++j) c[j] = beta == 0.0f ? alpha * acc[r][j] : alpha * acc[r][j] + beta * c[j];
  }
}

}  // namespace

void kernelStrip(int64_t m, int cols, int64_t kc, const float* A, int64_t lda, BMode mode, const float* b, int64_t ldbp,
                 float* bPackOut, float* C, int64_t ldc, float alpha, float beta) {
  if (mode == BMode::kPacked) ldbp = kNR;
  if (mode == BMode::kInPlaceAndPack) {
    for (int64_t k = 0; k < kc; ++k) std::memcpy(bPackOut + k * kNR, b + k * ldbp, sizeof(float) * kNR);
    b = bPackOut;
    ldbp = kNR;
  }
  int64_t i = 0;
  for (; i + kMR <= m; i += kMR) tile<kMR>(kc, A + i * lda, lda, b, ldbp, C + i * ldc, ldc, alpha, beta, cols);
  for (; i < m; ++i) tile<1>(kc, A + i * lda, lda, b, ldbp, C + i * ldc, ldc, alpha, beta, cols);
}

void axpyRows(int64_t m, int64_t n, int64_t k, float alpha, const float* X, int64_t ldx, const float* Mx, int64_t ldm,
              float beta, float* Y, int64_t ldy) {
  for (int64_t r = 0; r < m; ++r) {
    float* y = Y + r * ldy;
    scaleVector(n, beta, y);
    for (int64_t kk = 0; kk < k; ++kk) {
      const float s = alpha * X[r * ldx + kk];
      const float* row = Mx + kk * ldm;
      for (int64_t j = 0; j < n; ++j) y[j] += s * row[j];
    }
  }
}

void dotRows(int64_t m, int64_t n, int64_t k, float alpha, const float* X, int64_t ldx, const float* Mx, int64_t ldm,
             float beta, float* Y, int64_t ldy, int64_t incy) {
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t i = 0; i < n; ++i) {
      const float* row = Mx + i * ldm;
      float acc = 0.0f;
      for (int64_t kk = 0; kk < k; ++kk) acc += row[kk] * X[r * ldx + kk];
      float* y = Y + r * ldy + i * incy;
      *y = beta == 0.0f ? alpha * acc : alpha * acc + beta * *y;
    }
  }
}

#endif

}  // namespace gemmk
}  // namespace POPART_ISA_NS
}  // namespace cpu
}  // namespace popart
