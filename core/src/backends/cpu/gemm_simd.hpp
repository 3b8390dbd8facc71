// The parts of the SIMD GEMM kernels that do not depend on the instruction set, shared by
// gemm_kernels.cpp (AVX2+FMA) and gemm_kernels_wasm.cpp (WebAssembly SIMD128). They are written
// over a target's vector operations:
//   struct Ops {
//     using V = ...;                           // a vector of kLanes floats
//     static constexpr int kLanes;
//     static V load(const float*); static void store(float*, V); static V splat(float);
//     static V madd(V acc, V a, V b);          // acc + a * b
//     static constexpr int axpyPasses(int R);  // rows of Mx per axpy pass for R output rows
//   };
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "backends/cpu/gemm_kernels.hpp"

// Full unrolling of the small fixed-trip loops keeps the accumulator arrays in registers.
#if defined(__clang__)
#define POPART_UNROLL _Pragma("unroll")
#else
#define POPART_UNROLL _Pragma("GCC unroll 16")
#endif
#define POPART_INLINE inline __attribute__((always_inline))
#define POPART_INLINE_LAMBDA __attribute__((always_inline))

namespace popart {
namespace cpu {
namespace POPART_ISA_NS {
namespace gemmk {

/// Calls f(std::integral_constant<int, R>()) with R = m clamped to 1..kSmallRows (4): the
/// row-count dispatch of the few-row kernels.
template <typename F>
inline void forSmallRows(int64_t m, F&& f) {
  static_assert(kSmallRows == 4, "one case per row count");
  switch (m) {
    case 1:
      return f(std::integral_constant<int, 1>());
    case 2:
      return f(std::integral_constant<int, 2>());
    case 3:
      return f(std::integral_constant<int, 3>());
    default:
      return f(std::integral_constant<int, 4>());
  }
}

/// axpyRows for R rows: U rows of Mx per pass update an L1-sized chunk of the R output rows, so
/// Mx is read once, in long sequential runs.
template <typename Ops, int R>
void axpyRowsT(int64_t n, int64_t k, float alpha, const float* X, int64_t ldx, const float* Mx, int64_t ldm, float* Y,
               int64_t ldy) {
  using V = typename Ops::V;
  constexpr int U = Ops::axpyPasses(R);
  constexpr int L = Ops::kLanes;
  constexpr int64_t kChunk = 4096 / R;
  for (int64_t j0 = 0; j0 < n; j0 += kChunk) {
    const int64_t nb = std::min(kChunk, n - j0);
    int64_t kk = 0;
    auto pass = [&](auto uTag) POPART_INLINE_LAMBDA {
      constexpr int UU = decltype(uTag)::value;
      const float* rows[UU];
      V s[UU][R];
      float sc[UU][R];
      POPART_UNROLL for (int u = 0; u < UU; ++u) {
        rows[u] = Mx + (kk + u) * ldm + j0;
        POPART_UNROLL for (int r = 0; r < R; ++r) {
          sc[u][r] = alpha * X[r * ldx + kk + u];
          s[u][r] = Ops::splat(sc[u][r]);
        }
      }
      int64_t j = 0;
      for (; j + L <= nb; j += L) {
        V bv[UU];
        POPART_UNROLL for (int u = 0; u < UU; ++u) bv[u] = Ops::load(rows[u] + j);
        POPART_UNROLL for (int r = 0; r < R; ++r) {
          float* y = Y + r * ldy + j0 + j;
          V acc = Ops::load(y);
          POPART_UNROLL for (int u = 0; u < UU; ++u) acc = Ops::madd(acc, s[u][r], bv[u]);
          Ops::store(y, acc);
        }
      }
      for (; j < nb; ++j) {
        POPART_UNROLL for (int r = 0; r < R; ++r) {
          float acc = Y[r * ldy + j0 + j];
          POPART_UNROLL for (int u = 0; u < UU; ++u) acc += sc[u][r] * rows[u][j];
          Y[r * ldy + j0 + j] = acc;
        }
      }
    };
    for (; kk + U <= k; kk += U) pass(std::integral_constant<int, U>());
    for (; kk < k; ++kk) pass(std::integral_constant<int, 1>());
  }
}

/// The target's axpyRows (gemm_kernels.hpp) over its vector operations.
template <typename Ops>
void axpyRowsSimd(int64_t m, int64_t n, int64_t k, float alpha, const float* X, int64_t ldx, const float* Mx,
                  int64_t ldm, float beta, float* Y, int64_t ldy) {
  for (int64_t r = 0; r < m; ++r) scaleVector(n, beta, Y + r * ldy);
  forSmallRows(m, [&](auto rows) { axpyRowsT<Ops, decltype(rows)::value>(n, k, alpha, X, ldx, Mx, ldm, Y, ldy); });
}

}  // namespace gemmk
}  // namespace POPART_ISA_NS
}  // namespace cpu
}  // namespace popart
