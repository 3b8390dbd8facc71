// 2-D float max pooling (pool.cpp's fast path), compiled once per instruction set
// (backends/cpu/isa.hpp). No standard containers here (ctest isa_objects_<copy>).
#include "backends/cpu/kernels/pool_max.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace popart {
namespace cpu {
namespace POPART_ISA_NS {
namespace {

/// One output row of a max pooling whose window rows start at input row ih0: separably, the
/// column maxima over the window's rows inside the input into `row` (padding columns and rows are
/// -inf, so they are skipped), then the window maxima along it (KH - 1 + KW - 1 maxima per output
/// instead of KH x KW, and no padded copy of the plane). Each starts from -inf, so a NaN input is
/// skipped, as in the windows' own order.
void poolRow(const float* xc, int64_t H, int64_t W, int64_t ih0, int64_t KH, int64_t KW, int64_t SW, int64_t PW,
             int64_t OW, float* row, float* yr) {
  const float ninf = -std::numeric_limits<float>::infinity();
  const int64_t width = (OW - 1) * SW + KW;
  // row[j] is input column j - PW: [lo, hi) lies inside the input.
  const int64_t lo = std::min(PW, width), hi = std::max(lo, std::min(width, PW + W));
  for (int64_t j = 0; j < width; ++j) row[j] = ninf;
  for (int64_t kh = 0; kh < KH; ++kh) {
    const int64_t ih = ih0 + kh;
    if (ih < 0 || ih >= H) continue;
    const float* r = xc + ih * W - PW;
    for (int64_t j = lo; j < hi; ++j) row[j] = std::max(row[j], r[j]);
  }
  for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = ninf;
  for (int64_t kw = 0; kw < KW; ++kw) {
    if (SW == 1) {
      for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = std::max(yr[ow], row[ow + kw]);
    } else if (SW == 2) {
      for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = std::max(yr[ow], row[2 * ow + kw]);
    } else {
      for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = std::max(yr[ow], row[ow * SW + kw]);
    }
  }
}

/// `buf`: pool.cpp's maxPool2dScratch (a row).
void maxPool2d(const float* x, float* y, const MaxPool2dGeom& g, float* buf) {
  for (int64_t nc = 0; nc < g.NC; ++nc) {
    const float* xc = x + nc * g.H * g.W;
    float* yc = y + nc * g.OH * g.OW;
    for (int64_t oh = 0; oh < g.OH; ++oh)
      poolRow(xc, g.H, g.W, oh * g.SH - g.PH, g.KH, g.KW, g.SW, g.PW, g.OW, buf, yc + oh * g.OW);
  }
}

}  // namespace

extern const PoolKernels kPool{maxPool2d};

}  // namespace POPART_ISA_NS
}  // namespace cpu
}  // namespace popart
