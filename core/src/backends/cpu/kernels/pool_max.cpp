// 2-D float max pooling (pool.cpp's fast path), compiled once per instruction set
// (backends/cpu/isa.hpp). No standard containers here (ctest isa_objects_<copy>).
#include "backends/cpu/kernels/pool_max.hpp"

#include "backends/cpu/kernels/padded_plane.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace popart {
namespace cpu {
namespace POPART_ISA_NS {
namespace {

// Each plane is copied into a -inf padded buffer (for stride 2 split into even/odd columns) so
// every tap is a contiguous, vectorisable max over an output row.
void maxPool2d(const float* x, float* y, const MaxPool2dGeom& g, float* buf) {
  const int64_t H = g.H, W = g.W, OH = g.OH, OW = g.OW, KH = g.KH, KW = g.KW, SH = g.SH, SW = g.SW;
  const int64_t PH = g.PH, PW = g.PW;
  const int64_t HP = (OH - 1) * SH + KH, WP = (OW - 1) * SW + KW;
  const bool split = SW == 2;
  const int64_t WE = split ? (WP + 1) / 2 : WP, WO = split ? WP / 2 : 0;
  float* even = buf;
  float* odd = buf + HP * WE;
  float* row = odd + HP * std::max<int64_t>(WO, 1);
  const float ninf = -std::numeric_limits<float>::infinity();
  const bool generic = !(SW == 1 || SW == 2);
  for (int64_t nc = 0; nc < g.NC; ++nc) {
    const float* xc = x + nc * H * W;
    float* yc = y + nc * OH * OW;
    if (PH == 0 && PW == 0 && (OH - 1) * SH + KH <= H && (OW - 1) * SW + KW <= W) {
      // Every window lies inside the input: no padded copy; taps are strided loads.
      for (int64_t oh = 0; oh < OH; ++oh) {
        float* yr = yc + oh * OW;
        for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = ninf;
        for (int64_t kh = 0; kh < KH; ++kh) {
          const float* xr = xc + (oh * SH + kh) * W;
          for (int64_t kw = 0; kw < KW; ++kw) {
            if (SW == 2) {
              for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = std::max(yr[ow], xr[2 * ow + kw]);
            } else {
              for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = std::max(yr[ow], xr[ow * SW + kw]);
            }
          }
        }
      }
      continue;
    }
    if (generic) {
      for (int64_t oh = 0; oh < OH; ++oh) {
        const int64_t h0 = std::max<int64_t>(oh * SH - PH, 0), h1 = std::min<int64_t>(oh * SH - PH + KH, H);
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t w0 = std::max<int64_t>(ow * SW - PW, 0), w1 = std::min<int64_t>(ow * SW - PW + KW, W);
          float m = ninf;
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t c = w0; c < w1; ++c) m = std::max(m, xc[h * W + c]);
          }
          yc[oh * OW + ow] = m;
        }
      }
      continue;
    }
    stagePaddedPlane(xc, H, W, PH, PW, HP, WP, split, ninf, even, odd, row);
    for (int64_t oh = 0; oh < OH; ++oh) {
      float* yr = yc + oh * OW;
      for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = ninf;
      for (int64_t kh = 0; kh < KH; ++kh) {
        const int64_t r = oh * SH + kh;
        for (int64_t kw = 0; kw < KW; ++kw) {
          const float* src = !split ? even + r * WE + kw : ((kw & 1) ? odd + r * WO : even + r * WE) + kw / 2;
          for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = std::max(yr[ow], src[ow]);
        }
      }
    }
  }
}

}  // namespace

extern const PoolKernels kPool{maxPool2d};

}  // namespace POPART_ISA_NS
}  // namespace cpu
}  // namespace popart
