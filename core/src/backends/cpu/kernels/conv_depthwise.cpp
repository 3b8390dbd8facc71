// The depthwise 2-D convolution kernels (conv.cpp chooses them: chooseConvAlgorithm), compiled
// once per instruction set (backends/cpu/isa.hpp): loops the compiler vectorises for the copy's
// instruction set. No standard containers here (ctest isa_objects_<copy>).
#include "backends/cpu/kernels/conv_depthwise.hpp"

#include "backends/cpu/isa_vec.hpp"

#include <algorithm>
#include <cstring>

namespace popart {
namespace cpu {
namespace POPART_ISA_NS {
namespace {

// Depthwise 2-D (group == C == M): direct accumulation, inner loop over output columns.
void depthwise2d(const float* x, const float* w, const float* bias, float* y, const DepthwiseGeom& g) {
  const int64_t H = g.H, W = g.W, OH = g.OH, OW = g.OW;
  const int64_t KH = g.KH, KW = g.KW, SH = g.SH, SW = g.SW, DH = g.DH, DW = g.DW;
  const int64_t PH = g.PH, PW = g.PW;
  for (int64_t c = 0; c < g.C; ++c) {
    const float* xc = x + c * H * W;
    const float* wc = w + c * KH * KW;
    float* yc = y + c * OH * OW;
    const float b = bias ? bias[c] : 0.0f;
    for (int64_t oh = 0; oh < OH; ++oh) {
      float* yr = yc + oh * OW;
      for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = b;
      for (int64_t kh = 0; kh < KH; ++kh) {
        const int64_t ih = oh * SH - PH + kh * DH;
        if (ih < 0 || ih >= H) continue;
        const float* xr = xc + ih * W;
        for (int64_t kw = 0; kw < KW; ++kw) {
          const float wv = wc[kh * KW + kw];
          const int64_t off = kw * DW - PW;
          const auto [owLo, owHi] = insideColumns(off, SW, W, OW);
          if (SW == 1) {
            const float* xs = xr + off;
            for (int64_t ow = owLo; ow < owHi; ++ow) yr[ow] += wv * xs[ow];
          } else {
            for (int64_t ow = owLo; ow < owHi; ++ow) yr[ow] += wv * xr[ow * SW + off];
          }
        }
      }
    }
  }
}

/// Rows [0, HP) of the H x W plane `xc` padded to width WP (PH rows and PW columns of `fill`
/// before it, `fill` after): with `split` (stride-2 windows) its even columns into `even` and its
/// odd ones into `odd` (row strides ceil(WP / 2) and floor(WP / 2), `row` a scratch row of WP
/// floats), else whole rows into `even` (row stride WP). Every tap of a window is then a
/// contiguous run over an output row.
void stagePaddedPlane(const float* xc, int64_t H, int64_t W, int64_t PH, int64_t PW, int64_t HP, int64_t WP, bool split,
                      float fill, float* even, float* odd, float* row) {
  const int64_t WE = split ? (WP + 1) / 2 : WP, WO = split ? WP / 2 : 0;
  const int64_t lo = std::max<int64_t>(0, PW), hi = std::min<int64_t>(WP, PW + W);
  for (int64_t r = 0; r < HP; ++r) {
    const int64_t ih = r - PH;
    float* dst = split ? row : even + r * WE;
    std::fill(dst, dst + WP, fill);
    if (ih >= 0 && ih < H && hi > lo)
      std::memcpy(dst + lo, xc + ih * W + (lo - PW), static_cast<size_t>(hi - lo) * sizeof(float));
    if (split) {
      float* e = even + r * WE;
      float* o = odd + r * WO;
      for (int64_t j = 0; j < WE; ++j) e[j] = dst[2 * j];
      for (int64_t j = 0; j < WO; ++j) o[j] = dst[2 * j + 1];
    }
  }
}

// Depthwise 2-D, stride 1 or 2, no dilation: each channel is copied into a zero-padded plane
// (for stride 2 split into even and odd columns), so every tap is a contiguous, branch-free
// multiply-add over an output row that the compiler vectorises.
void depthwisePadded(const float* x, const float* w, const float* bias, float* y, const DepthwiseGeom& g, float* buf) {
  const int64_t H = g.H, W = g.W, OH = g.OH, OW = g.OW;
  const int64_t KH = g.KH, KW = g.KW, SH = g.SH, SW = g.SW, PH = g.PH, PW = g.PW;
  const int64_t HP = (OH - 1) * SH + KH, WP = (OW - 1) * SW + KW;
  // Column planes: stride 1 uses one plane of width WP; stride 2 an even and an odd plane.
  const int64_t WE = SW == 1 ? WP : (WP + 1) / 2, WO = SW == 1 ? 0 : WP / 2;
  float* even = buf;
  float* odd = buf + HP * WE;
  float* rowBuf = buf + HP * WP;  // past the planes (depthwisePaddedScratch: 2 x HP x WP floats)
  for (int64_t c = 0; c < g.C; ++c) {
    stagePaddedPlane(x + c * H * W, H, W, PH, PW, HP, WP, SW == 2, 0.0f, even, odd, rowBuf);
    const float* wc = w + c * KH * KW;
    float* yc = y + c * OH * OW;
    const float b = bias ? bias[c] : 0.0f;
    for (int64_t oh = 0; oh < OH; ++oh) {
      float* yr = yc + oh * OW;
      for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = b;
      for (int64_t kh = 0; kh < KH; ++kh) {
        const int64_t r = oh * SH + kh;
        for (int64_t kw = 0; kw < KW; ++kw) {
          const float wv = wc[kh * KW + kw];
          const float* src = SW == 1 ? even + r * WE + kw : ((kw & 1) ? odd + r * WO : even + r * WE) + kw / 2;
          for (int64_t ow = 0; ow < OW; ++ow) yr[ow] += wv * src[ow];
        }
      }
    }
  }
}

// Depthwise 3x3 (stride S = 1 or 2, no dilation): one pass per output row with all nine taps
// unrolled, so each output is loaded and stored once; rows outside the input read a zero row,
// and the few edge columns are done one by one.
template <int S>
void depthwise3x3(const float* x, const float* w, const float* bias, float* y, const DepthwiseGeom& g, int64_t channels,
                  const float* zeros) {
  const int64_t H = g.H, W = g.W, OH = g.OH, OW = g.OW, PH = g.PH, PW = g.PW;
  int64_t lo = (PW + S - 1) / S;                            // first ow with ow*S - PW >= 0
  int64_t hi = W - 3 + PW >= 0 ? (W - 3 + PW) / S + 1 : 0;  // past the last ow with ow*S - PW + 2 < W
  lo = std::min(lo, OW);
  hi = std::max(std::min(hi, OW), lo);
  for (int64_t c = 0; c < channels; ++c) {
    const float* xc = x + c * H * W;
    const float* k = w + c * 9;
    float* yc = y + c * OH * OW;
    const float b = bias ? bias[c] : 0.0f;
    const float k0 = k[0], k1 = k[1], k2 = k[2], k3 = k[3], k4 = k[4], k5 = k[5], k6 = k[6], k7 = k[7], k8 = k[8];
    for (int64_t oh = 0; oh < OH; ++oh) {
      const int64_t ih = oh * S - g.PH;
      const float* r0 = (ih >= 0 && ih < H) ? xc + ih * W : zeros;
      const float* r1 = (ih + 1 >= 0 && ih + 1 < H) ? xc + (ih + 1) * W : zeros;
      const float* r2 = (ih + 2 >= 0 && ih + 2 < H) ? xc + (ih + 2) * W : zeros;
      float* yr = yc + oh * OW;
      auto edge = [&](int64_t ow) {
        float acc = b;
        for (int kw = 0; kw < 3; ++kw) {
          const int64_t iw = ow * S - PW + kw;
          if (iw >= 0 && iw < W) acc += k[kw] * r0[iw] + k[3 + kw] * r1[iw] + k[6 + kw] * r2[iw];
        }
        yr[ow] = acc;
      };
      for (int64_t ow = 0; ow < lo; ++ow) edge(ow);
      const float* a0 = r0 - PW;
      const float* a1 = r1 - PW;
      const float* a2 = r2 - PW;
      for (int64_t ow = lo; ow < hi; ++ow) {
        const int64_t i = ow * S;
        yr[ow] = b + k0 * a0[i] + k1 * a0[i + 1] + k2 * a0[i + 2] + k3 * a1[i] + k4 * a1[i + 1] + k5 * a1[i + 2] +
                 k6 * a2[i] + k7 * a2[i + 1] + k8 * a2[i + 2];
      }
      for (int64_t ow = hi; ow < OW; ++ow) edge(ow);
    }
  }
  (void)PH;
}

}  // namespace

extern const DepthwiseKernels kDepthwise{depthwise2d, depthwisePadded, depthwise3x3<1>, depthwise3x3<2>};

}  // namespace POPART_ISA_NS
}  // namespace cpu
}  // namespace popart
