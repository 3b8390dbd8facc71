// WebAssembly SIMD128 kernels of the packed SGEMM (see gemm_kernels.hpp), built with -msimd128.
//
// Plain SIMD128 has no fused multiply-add (relaxed SIMD is not on by default in Emscripten 3.1.6 or
// Node 20), so every multiply-accumulate is an f32x4 mul followed by an add. Engines map v128
// values onto the 16 xmm registers of x86-64 (V8 keeps one as scratch) or the 32 of arm64: the
// kMR x 8 tile (kMR * 2 accumulators, 2 B vectors, one A broadcast and the product) is sized to
// stay in registers on x86-64, where a spill in the k loop would halve the speed.
#include "backends/cpu/gemm_kernels.hpp"

#if defined(POPART_GEMM_WASM_SIMD)

#include <wasm_simd128.h>

#include <algorithm>

#include "backends/cpu/gemm_simd.hpp"

namespace popart {
namespace cpu {
namespace POPART_ISA_NS {
namespace gemmk {
namespace {

static_assert(kNR == 8, "the wasm tile is kMR x 2 vectors of 4 floats");

inline v128_t madd(v128_t acc, v128_t a, v128_t b) {
  return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b));
}

// Sum of the 4 lanes.
inline float hsum(v128_t x) {
  x = wasm_f32x4_add(x, wasm_i32x4_shuffle(x, x, 2, 3, 0, 1));
  x = wasm_f32x4_add(x, wasm_i32x4_shuffle(x, x, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(x, 0);
}

// The R x (4 * V) register tile: C = alpha * A[0:R, 0:kc] * b + beta * C, columns past `cols`
// left alone. Short tiles split k over U interleaved accumulator sets, so that at least 8
// independent add chains hide the add latency, within the register budget above.
template <int R, int V, BMode S>
void tile(int64_t kc, const float* A, int64_t lda, const float* b, int64_t ldbp, float* bCopy, float* C, int64_t ldc,
          float alpha, float beta, int cols) {
  constexpr int kChains = 8, kMaxAcc = 2 * kMR;
  constexpr int U = std::max(1, std::min((kChains + R * V - 1) / (R * V), kMaxAcc / (R * V)));
  v128_t acc[U][R][V];
  POPART_UNROLL for (int u = 0; u < U; ++u) {
    POPART_UNROLL for (int r = 0; r < R; ++r) {
      POPART_UNROLL for (int v = 0; v < V; ++v) acc[u][r][v] = wasm_f32x4_splat(0.0f);
    }
  }
  const float* a[R];
  POPART_UNROLL for (int r = 0; r < R; ++r) a[r] = A + r * lda;
  auto step = [&](v128_t(&sum)[R][V], int64_t k) __attribute__((always_inline)) {
    v128_t bv[V];
    POPART_UNROLL for (int v = 0; v < V; ++v) bv[v] = wasm_v128_load(b + 4 * v);
    if constexpr (S == BMode::kInPlaceAndPack) {
      POPART_UNROLL for (int v = 0; v < V; ++v) wasm_v128_store(bCopy + 4 * v, bv[v]);
      bCopy += kNR;
    }
    b += ldbp;
    POPART_UNROLL for (int r = 0; r < R; ++r) {
      const v128_t ar = wasm_v128_load32_splat(a[r] + k);
      POPART_UNROLL for (int v = 0; v < V; ++v) sum[r][v] = madd(sum[r][v], ar, bv[v]);
    }
  };
  int64_t k = 0;
  for (; k + U <= kc; k += U) {
    POPART_UNROLL for (int u = 0; u < U; ++u) step(acc[u], k + u);
  }
  for (; k < kc; ++k) step(acc[0], k);
  POPART_UNROLL for (int u = 1; u < U; ++u) {
    POPART_UNROLL for (int r = 0; r < R; ++r) {
      POPART_UNROLL for (int v = 0; v < V; ++v) acc[0][r][v] = wasm_f32x4_add(acc[0][r][v], acc[u][r][v]);
    }
  }

  const v128_t va = wasm_f32x4_splat(alpha), vb = wasm_f32x4_splat(beta);
  const int tail = cols - 4 * (V - 1);  // valid lanes of the last vector, 1..4
  POPART_UNROLL for (int r = 0; r < R; ++r) {
    float* c = C + r * ldc;
    POPART_UNROLL for (int v = 0; v < V; ++v) {
      v128_t x = wasm_f32x4_mul(acc[0][r][v], va);
      float* cv = c + 4 * v;
      if (v == V - 1 && tail < 4) {
        float lanes[4];
        wasm_v128_store(lanes, x);
        for (int j = 0; j < tail; ++j) cv[j] = beta == 0.0f ? lanes[j] : lanes[j] + beta * cv[j];
        continue;
      }
      if (beta != 0.0f) {
        const v128_t old = wasm_v128_load(cv);
        x = beta == 1.0f ? wasm_f32x4_add(x, old) : madd(x, old, vb);
      }
      wasm_v128_store(cv, x);
    }
  }
}

// Runtime row count (1..kMR) -> the tile instantiation with that many rows.
template <int V, BMode S, int R = kMR>
void tileRows(int64_t rows, int64_t kc, const float* A, int64_t lda, const float* b, int64_t ldbp, float* bCopy,
              float* C, int64_t ldc, float alpha, float beta, int cols) {
  if constexpr (R > 1) {
    if (rows < R) return tileRows<V, S, R - 1>(rows, kc, A, lda, b, ldbp, bCopy, C, ldc, alpha, beta, cols);
  }
  tile<R, V, S>(kc, A, lda, b, ldbp, bCopy, C, ldc, alpha, beta, cols);
}

template <int V>
void strip(int64_t m, int cols, int64_t kc, const float* A, int64_t lda, BMode mode, const float* b, int64_t ldbp,
           float* bCopy, float* C, int64_t ldc, float alpha, float beta) {
  if (mode == BMode::kPacked) ldbp = kNR;
  for (int64_t i = 0; i < m;) {
    // End on two mid-sized tiles (3+2, 3+3) rather than a full one and a 1- or 2-row one.
    const int64_t left = m - i;
    const int64_t rows = left > kMR && left < kMR + kMR / 2 + 1 ? (left + 1) / 2 : std::min<int64_t>(left, kMR);
    const float* a = A + i * lda;
    float* c = C + i * ldc;
    if (mode == BMode::kInPlaceAndPack) {
      tileRows<V, BMode::kInPlaceAndPack>(rows, kc, a, lda, b, ldbp, bCopy, c, ldc, alpha, beta, cols);
      mode = BMode::kPacked;  // the remaining tiles read the packed copy
      b = bCopy;
      ldbp = kNR;
    } else {
      // kPacked and kInPlace differ only in ldbp.
      tileRows<V, BMode::kPacked>(rows, kc, a, lda, b, ldbp, nullptr, c, ldc, alpha, beta, cols);
    }
    i += rows;
  }
}

// R rows of Mx against the T rows of X by dot products along k (see dotRows): acc[i][t] collects
// Mx[i][k:k+4] * X[t][k:k+4], reduced at the end; the k tail is scalar.
template <int R, int T>
void dotTile(int64_t k, float alpha, const float* X, int64_t ldx, const float* Mx, int64_t ldm, float beta, float* Y,
             int64_t ldy, int64_t incy) {
  v128_t acc[R][T];
  POPART_UNROLL for (int i = 0; i < R; ++i) {
    POPART_UNROLL for (int t = 0; t < T; ++t) acc[i][t] = wasm_f32x4_splat(0.0f);
  }
  int64_t kk = 0;
  for (; kk + 4 <= k; kk += 4) {
    v128_t xv[T];
    POPART_UNROLL for (int t = 0; t < T; ++t) xv[t] = wasm_v128_load(X + t * ldx + kk);
    POPART_UNROLL for (int i = 0; i < R; ++i) {
      const v128_t mv = wasm_v128_load(Mx + i * ldm + kk);
      POPART_UNROLL for (int t = 0; t < T; ++t) acc[i][t] = madd(acc[i][t], mv, xv[t]);
    }
  }
  POPART_UNROLL for (int i = 0; i < R; ++i) {
    POPART_UNROLL for (int t = 0; t < T; ++t) {
      float s = hsum(acc[i][t]);
      for (int64_t q = kk; q < k; ++q) s += Mx[i * ldm + q] * X[t * ldx + q];
      float* y = Y + t * ldy + i * incy;
      *y = beta == 0.0f ? alpha * s : alpha * s + beta * *y;
    }
  }
}

// Rows of Mx per dot tile: R * T accumulators and T X vectors stay in registers.
constexpr int dotTileRows(int t) {
  return t == 1 ? 8 : t == 2 ? 4 : t == 3 ? 3 : 2;
}

template <int T>
void dotRowsT(int64_t n, int64_t k, float alpha, const float* X, int64_t ldx, const float* Mx, int64_t ldm, float beta,
              float* Y, int64_t ldy, int64_t incy) {
  constexpr int R = dotTileRows(T);
  int64_t i = 0;
  for (; i + R <= n; i += R) dotTile<R, T>(k, alpha, X, ldx, Mx + i * ldm, ldm, beta, Y + i * incy, ldy, incy);
  for (; i < n; ++i) dotTile<1, T>(k, alpha, X, ldx, Mx + i * ldm, ldm, beta, Y + i * incy, ldy, incy);
}

struct Simd128Ops {
  using V = v128_t;
  static constexpr int kLanes = 4;
  static V load(const float* p) { return wasm_v128_load(p); }
  static void store(float* p, V v) { wasm_v128_store(p, v); }
  static V splat(float x) { return wasm_f32x4_splat(x); }
  static V madd(V acc, V a, V b) { return gemmk::madd(acc, a, b); }
  static constexpr int axpyPasses(int rows) { return rows == 1 ? 4 : rows == 2 ? 3 : 2; }  // U + R * U + 2 registers
};

}  // namespace

// 4x4 vector blocks, scalar edges.
void transposeBlock(const float* src, int64_t lds, int64_t rows, int64_t cols, float* dst, int64_t ldd) {
  int64_t r0 = 0;
  for (; r0 + 4 <= rows; r0 += 4) {
    const float* s = src + r0 * lds;
    int64_t c0 = 0;
    for (; c0 + 4 <= cols; c0 += 4) {
      const v128_t a = wasm_v128_load(s + c0), b = wasm_v128_load(s + lds + c0);
      const v128_t c = wasm_v128_load(s + 2 * lds + c0), d = wasm_v128_load(s + 3 * lds + c0);
      const v128_t ab01 = wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), ab23 = wasm_i32x4_shuffle(a, b, 2, 6, 3, 7);
      const v128_t cd01 = wasm_i32x4_shuffle(c, d, 0, 4, 1, 5), cd23 = wasm_i32x4_shuffle(c, d, 2, 6, 3, 7);
      float* o = dst + c0 * ldd + r0;
      wasm_v128_store(o, wasm_i32x4_shuffle(ab01, cd01, 0, 1, 4, 5));
      wasm_v128_store(o + ldd, wasm_i32x4_shuffle(ab01, cd01, 2, 3, 6, 7));
      wasm_v128_store(o + 2 * ldd, wasm_i32x4_shuffle(ab23, cd23, 0, 1, 4, 5));
      wasm_v128_store(o + 3 * ldd, wasm_i32x4_shuffle(ab23, cd23, 2, 3, 6, 7));
    }
    for (; c0 < cols; ++c0)
      for (int64_t r = r0; r < r0 + 4; ++r) dst[c0 * ldd + r] = src[r * lds + c0];
  }
  for (; r0 < rows; ++r0)
    for (int64_t c = 0; c < cols; ++c) dst[c * ldd + r0] = src[r0 * lds + c];
}

void packBPanel(bool transB, const float* B, int64_t ldb, int64_t k0, int64_t j0, int64_t kc, int cols, float* dst) {
  if (transB) {
    // Panel columns are rows of the stored B.
    transposeBlock(B + j0 * ldb + k0, ldb, cols, kc, dst, kNR);
    for (int64_t k = 0; k < kc; ++k)
      for (int j = cols; j < kNR; ++j) dst[k * kNR + j] = 0.0f;
    return;
  }
  packBPanelPlainRows(B, ldb, k0, j0, kc, cols, dst);
}

void kernelStrip(int64_t m, int cols, int64_t kc, const float* A, int64_t lda, BMode mode, const float* b, int64_t ldbp,
                 float* bPackOut, float* C, int64_t ldc, float alpha, float beta) {
  // A ragged panel of at most 4 columns only needs one vector per row.
  if (cols > 4) {
    strip<2>(m, cols, kc, A, lda, mode, b, ldbp, bPackOut, C, ldc, alpha, beta);
  } else {
    strip<1>(m, cols, kc, A, lda, mode, b, ldbp, bPackOut, C, ldc, alpha, beta);
  }
}

void axpyRows(int64_t m, int64_t n, int64_t k, float alpha, const float* X, int64_t ldx, const float* Mx, int64_t ldm,
              float beta, float* Y, int64_t ldy) {
  axpyRowsSimd<Simd128Ops>(m, n, k, alpha, X, ldx, Mx, ldm, beta, Y, ldy);
}

void dotRows(int64_t m, int64_t n, int64_t k, float alpha, const float* X, int64_t ldx, const float* Mx, int64_t ldm,
             float beta, float* Y, int64_t ldy, int64_t incy) {
  forSmallRows(m,
               [&](auto rows) { dotRowsT<decltype(rows)::value>(n, k, alpha, X, ldx, Mx, ldm, beta, Y, ldy, incy); });
}

}  // namespace gemmk
}  // namespace POPART_ISA_NS
}  // namespace cpu
}  // namespace popart

#endif  // POPART_GEMM_WASM_SIMD
