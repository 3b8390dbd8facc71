// Direct stride-1 2-D float convolutions on zero-padded planes (conv_direct.hpp), compiled once per
// instruction set (backends/cpu/isa.hpp). No standard containers here (ctest isa_objects_<copy>).
// Vectors: isa_vec.hpp.
#include "backends/cpu/kernels/conv_direct.hpp"

#include "backends/cpu/isa_vec.hpp"

#include <cstring>
#include <type_traits>

namespace popart {
namespace cpu {
namespace POPART_ISA_NS {
namespace {

#if defined(POPART_ISA_AVX512)
constexpr int kRows = 6;  // output channels per register block
constexpr int kVecs = 4;  // vectors of positions per register block (24 accumulators of 32)
constexpr int kTaps = 5;  // kernel positions per weight-gradient block (20 accumulators)
constexpr int kGradRows = 4;
#elif defined(POPART_ISA_AVX2) || (!defined(POPART_ISA_GENERIC) && defined(__AVX2__) && defined(__FMA__))
constexpr int kRows = 5;  // 10 accumulators of 16 registers
constexpr int kVecs = 2;
constexpr int kTaps = 3;
constexpr int kGradRows = 3;
#else
constexpr int kRows = 4;  // 8 accumulators of 16 registers
constexpr int kVecs = 2;
constexpr int kTaps = 3;
constexpr int kGradRows = 3;
#endif
constexpr int kBlock = kVecLanes * kVecs;

/// Copies C planes of H x W into zero-padded planes of Hp x Wp (stride PS; the room after each is
/// zero too): input row ih to padded row ih + PH, column iw to iw + PW, cutting what falls outside.
void padPlanes(const float* x, int64_t C, int64_t H, int64_t W, const DirectConvGeom& g, float* xp) {
  std::memset(xp, 0, static_cast<size_t>(C * g.PS) * sizeof(float));
  const int64_t c0 = g.PW < 0 ? -g.PW : 0;               // first input column kept
  const int64_t c1 = W + g.PW > g.Wp ? g.Wp - g.PW : W;  // one past the last
  const int64_t r0 = g.PH < 0 ? -g.PH : 0, r1 = H + g.PH > g.Hp ? g.Hp - g.PH : H;
  if (c1 <= c0) return;
  for (int64_t c = 0; c < C; ++c) {
    for (int64_t ih = r0; ih < r1; ++ih)
      copyFloats(xp + c * g.PS + (ih + g.PH) * g.Wp + c0 + g.PW, x + (c * H + ih) * W + c0, c1 - c0);
  }
}

/// One register block of the forward: output channels m0 .. m0 + R (weights `w` at m0, rows of
/// K = C x KH x KW) at wide positions p0 .. p0 + kBlock.
template <int R>
POPART_ISA_INLINE void forwardBlock(const float* xp, const float* w, const float* bias, float* out,
                                    const DirectConvGeom& g, const int64_t* taps, int64_t K) {
  VecF acc[R][kVecs];
  POPART_ISA_UNROLL
  for (int r = 0; r < R; ++r) {
    const float b = bias ? bias[r] : 0.0f;
    POPART_ISA_UNROLL
    for (int v = 0; v < kVecs; ++v) acc[r][v] = VecF{} + b;
  }
  const int64_t KK = g.KH * g.KW;
  for (int64_t c = 0; c < g.C; ++c) {
    const float* xc = xp + c * g.PS;
    const float* wc = w + c * KK;
    for (int64_t k = 0; k < KK; ++k) {
      const float* xk = xc + taps[k];
      VecF xv[kVecs];
      POPART_ISA_UNROLL
      for (int v = 0; v < kVecs; ++v) std::memcpy(&xv[v], xk + v * kVecLanes, sizeof(VecF));
      POPART_ISA_UNROLL
      for (int r = 0; r < R; ++r) {
        const VecF wv = VecF{} + wc[r * K + k];
        POPART_ISA_UNROLL
        for (int v = 0; v < kVecs; ++v) acc[r][v] += wv * xv[v];
      }
    }
  }
  POPART_ISA_UNROLL
  for (int r = 0; r < R; ++r) {
    POPART_ISA_UNROLL
    for (int v = 0; v < kVecs; ++v) std::memcpy(out + r * g.Pw + v * kVecLanes, &acc[r][v], sizeof(VecF));
  }
}

/// Calls f(std::integral_constant<int, n>()) for n = min(count, N), n >= 1: a register block's
/// rows or taps, fixed at compile time.
template <int N, typename F>
POPART_ISA_INLINE void withCount(int64_t count, F&& f) {
  if constexpr (N > 1) {
    if (count < N) return withCount<N - 1>(count, f);
  }
  f(std::integral_constant<int, N>());
}

/// The kernel positions' offsets on the padded grid (at most 128 of them: conv.cpp's condition).
void tapOffsets(const DirectConvGeom& g, int64_t* taps) {
  for (int64_t kh = 0; kh < g.KH; ++kh)
    for (int64_t kw = 0; kw < g.KW; ++kw) taps[kh * g.KW + kw] = kh * g.DH * g.Wp + kw * g.DW;
}

void forward(const float* x, const float* w, const float* bias, float* y, const DirectConvGeom& g, float* scratch) {
  float* xp = scratch;
  float* wide = scratch + g.C * g.PS;
  padPlanes(x, g.C, g.H, g.W, g, xp);
  int64_t taps[128];
  tapOffsets(g, taps);
  const int64_t K = g.C * g.KH * g.KW;
  for (int64_t p0 = 0; p0 < g.Pw; p0 += kBlock) {
    for (int64_t m0 = 0; m0 < g.M; m0 += kRows) {
      withCount<kRows>(g.M - m0, [&](auto rows) {
        forwardBlock<decltype(rows)::value>(xp + p0, w + m0 * K, bias ? bias + m0 : nullptr, wide + m0 * g.Pw + p0, g,
                                            taps, K);
      });
    }
  }
  for (int64_t m = 0; m < g.M; ++m) {
    for (int64_t oh = 0; oh < g.OH; ++oh) copyFloats(y + (m * g.OH + oh) * g.OW, wide + m * g.Pw + oh * g.Wp, g.OW);
  }
}

/// dy of one image on the wide grid: M rows of Pw, zero in the unused columns and the tail.
void widenGradient(const float* dy, const DirectConvGeom& g, float* dyw) {
  std::memset(dyw, 0, static_cast<size_t>(g.M * g.Pw) * sizeof(float));
  for (int64_t m = 0; m < g.M; ++m) {
    for (int64_t oh = 0; oh < g.OH; ++oh) copyFloats(dyw + m * g.Pw + oh * g.Wp, dy + (m * g.OH + oh) * g.OW, g.OW);
  }
}

float sumLanes(const VecF& v) {
  float s = 0.0f;
  for (int i = 0; i < kVecLanes; ++i) s += v[i];
  return s;
}

/// One block of the weight gradient: output channels m0 .. m0 + R against T kernel positions of
/// one input channel, over `images` prepared images; adds into dw (rows of K at m0, columns at
/// the channel's first tap k0).
template <int R, int T>
POPART_ISA_INLINE void gradBlock(const float* dyw, const float* xp, int64_t images, int64_t imgStride, int64_t dyStride,
                                 const int64_t* taps, const DirectConvGeom& g, float* dw, int64_t K) {
  VecF acc[R][T];
  POPART_ISA_UNROLL
  for (int r = 0; r < R; ++r) {
    POPART_ISA_UNROLL
    for (int t = 0; t < T; ++t) acc[r][t] = VecF{};
  }
  for (int64_t n = 0; n < images; ++n) {
    const float* d = dyw + n * dyStride;
    const float* xc = xp + n * imgStride;
    for (int64_t p = 0; p < g.Pw; p += kVecLanes) {
      VecF dv[R];
      POPART_ISA_UNROLL
      for (int r = 0; r < R; ++r) std::memcpy(&dv[r], d + r * g.Pw + p, sizeof(VecF));
      POPART_ISA_UNROLL
      for (int t = 0; t < T; ++t) {
        VecF xv;
        std::memcpy(&xv, xc + taps[t] + p, sizeof(VecF));
        POPART_ISA_UNROLL
        for (int r = 0; r < R; ++r) acc[r][t] += dv[r] * xv;
      }
    }
  }
  POPART_ISA_UNROLL
  for (int r = 0; r < R; ++r) {
    POPART_ISA_UNROLL
    for (int t = 0; t < T; ++t) dw[r * K + t] += sumLanes(acc[r][t]);
  }
}

void weightGrad(const float* x, const float* dy, int64_t images, float* dw, const DirectConvGeom& g, float* scratch) {
  const int64_t KK = g.KH * g.KW, K = g.C * KK;
  std::memset(dw, 0, static_cast<size_t>(g.M * K) * sizeof(float));
  int64_t taps[128];
  tapOffsets(g, taps);
  const int64_t imgStride = g.C * g.PS, dyStride = g.M * g.Pw;
  for (int64_t n0 = 0; n0 < images; n0 += g.batch) {
    const int64_t nb = images - n0 < g.batch ? images - n0 : g.batch;
    float* xp = scratch;
    float* dyw = scratch + g.batch * imgStride;
    for (int64_t n = 0; n < nb; ++n) {
      padPlanes(x + (n0 + n) * g.C * g.H * g.W, g.C, g.H, g.W, g, xp + n * imgStride);
      widenGradient(dy + (n0 + n) * g.M * g.OH * g.OW, g, dyw + n * dyStride);
    }
    for (int64_t m0 = 0; m0 < g.M; m0 += kGradRows) {
      for (int64_t c = 0; c < g.C; ++c) {
        for (int64_t k0 = 0; k0 < KK; k0 += kTaps) {
          withCount<kGradRows>(g.M - m0, [&](auto rows) {
            withCount<kTaps>(KK - k0, [&](auto taps_) {
              gradBlock<decltype(rows)::value, decltype(taps_)::value>(
                  dyw + m0 * g.Pw, xp + c * g.PS, nb, imgStride, dyStride, taps + k0, g, dw + m0 * K + c * KK + k0, K);
            });
          });
        }
      }
    }
  }
}

}  // namespace

extern const DirectConvKernels kDirectConv{kBlock, forward, weightGrad};

}  // namespace POPART_ISA_NS
}  // namespace cpu
}  // namespace popart
