// 2-D float max pooling (pool.cpp's fast path), compiled once per instruction set
// (backends/cpu/isa.hpp). No standard containers here (ctest isa_objects_<copy>).
#include "backends/cpu/kernels/pool_max.hpp"

#include "backends/cpu/isa_vec.hpp"

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

/// Eight floats or eight int32 (GCC / Clang vector extensions: each copy's compiler flags choose
/// the instructions). Moved with memcpy (unaligned), never passed to or returned from a function
/// (the baseline copy has no 32-byte registers in its calling convention).
typedef float F8 __attribute__((vector_size(32)));
typedef int32_t I8 __attribute__((vector_size(32)));

/// Eight windows of 2 x 2 (stride 2): the even and odd columns of the two input rows are split
/// apart, compared in scan order (the first maximum wins; a NaN first input stays the maximum, as
/// in maxPoolGradRows), and dy put at the winners, zeros at the others.
inline __attribute__((always_inline)) void pairs8(const float* r0, const float* r1, const float* dy, float* d0,
                                                  float* d1) {
  const F8 zero = {};
  F8 p0, p1, q0, q1, v;
  std::memcpy(&p0, r0, sizeof p0);
  std::memcpy(&p1, r0 + 8, sizeof p1);
  std::memcpy(&q0, r1, sizeof q0);
  std::memcpy(&q1, r1 + 8, sizeof q1);
  std::memcpy(&v, dy, sizeof v);
  const F8 a = __builtin_shufflevector(p0, p1, 0, 2, 4, 6, 8, 10, 12, 14);
  const F8 b = __builtin_shufflevector(p0, p1, 1, 3, 5, 7, 9, 11, 13, 15);
  const F8 c = __builtin_shufflevector(q0, q1, 0, 2, 4, 6, 8, 10, 12, 14);
  const F8 d = __builtin_shufflevector(q0, q1, 1, 3, 5, 7, 9, 11, 13, 15);
  const I8 tb = b > a;
  F8 m = tb ? b : a;
  const I8 tc = c > m;
  m = tc ? c : m;
  const I8 td = d > m;
  const F8 oa = (tb | tc | td) ? zero : v;
  const F8 ob = (tb & ~tc & ~td) ? v : zero;
  const F8 oc = (tc & ~td) ? v : zero;
  const F8 od = td ? v : zero;
  const F8 e0 = __builtin_shufflevector(oa, ob, 0, 8, 1, 9, 2, 10, 3, 11);
  const F8 e1 = __builtin_shufflevector(oa, ob, 4, 12, 5, 13, 6, 14, 7, 15);
  const F8 f0 = __builtin_shufflevector(oc, od, 0, 8, 1, 9, 2, 10, 3, 11);
  const F8 f1 = __builtin_shufflevector(oc, od, 4, 12, 5, 13, 6, 14, 7, 15);
  std::memcpy(d0, &e0, sizeof e0);
  std::memcpy(d0 + 8, &e1, sizeof e1);
  std::memcpy(d1, &f0, sizeof f0);
  std::memcpy(d1 + 8, &f1, sizeof f1);
}

/// Windows of 2 x 2 with strides 2 and no padding: all four of dx are written for each window
/// (the windows do not overlap), eight windows at a time; the last few of a row go through
/// a staging copy (the zoo's rows are 5 to 14 windows long).
void maxPoolGrad2x2(const float* xc, const float* dyc, float* dxc, const MaxPool2dGeom& g) {
  for (int64_t oh = 0; oh < g.OH; ++oh) {
    const float* r0 = xc + 2 * oh * g.W;
    const float* r1 = r0 + g.W;
    float* d0 = dxc + 2 * oh * g.W;
    float* d1 = d0 + g.W;
    const float* dy = dyc + oh * g.OW;
    int64_t ow = 0;
    for (; ow + 8 <= g.OW; ow += 8) pairs8(r0 + 2 * ow, r1 + 2 * ow, dy + ow, d0 + 2 * ow, d1 + 2 * ow);
    if (ow < g.OW) {
      const size_t n = static_cast<size_t>(g.OW - ow);
      float s0[16] = {}, s1[16] = {}, sv[8] = {}, t0[16], t1[16];
      std::memcpy(s0, r0 + 2 * ow, 2 * n * sizeof(float));
      std::memcpy(s1, r1 + 2 * ow, 2 * n * sizeof(float));
      std::memcpy(sv, dy + ow, n * sizeof(float));
      pairs8(s0, s1, sv, t0, t1);
      std::memcpy(d0 + 2 * ow, t0, 2 * n * sizeof(float));
      std::memcpy(d1 + 2 * ow, t1, 2 * n * sizeof(float));
    }
  }
}

/// Any window: per output row, the running first maximum of each column's window and its input
/// offset, one kernel position at a time over the row (a vectorisable loop), then dy is added at
/// the maxima (windows may overlap).
void maxPoolGradRows(const float* xc, const float* dyc, float* dxc, const MaxPool2dGeom& g, float* bv, int32_t* best) {
  for (int64_t oh = 0; oh < g.OH; ++oh) {
    for (int64_t ow = 0; ow < g.OW; ++ow) best[ow] = -1;
    for (int64_t kh = 0; kh < g.KH; ++kh) {
      const int64_t ih = oh * g.SH - g.PH + kh;
      if (ih < 0 || ih >= g.H) continue;
      for (int64_t kw = 0; kw < g.KW; ++kw) {
        const int64_t off = kw - g.PW;
        const auto [lo, hi] = insideColumns(off, g.SW, g.W, g.OW);
        const int32_t base = static_cast<int32_t>(ih * g.W + off);  // input offset of output column 0
        const float* src = xc + base;
        const int32_t sw = static_cast<int32_t>(g.SW);
        for (int64_t ow = lo; ow < hi; ++ow) {
          const int32_t i = base + static_cast<int32_t>(ow) * sw;
          const float v = src[ow * sw];
          const bool take = (best[ow] < 0) | (v > bv[ow]);
          bv[ow] = take ? v : bv[ow];
          best[ow] = take ? i : best[ow];
        }
      }
    }
    const float* dy = dyc + oh * g.OW;
    for (int64_t ow = 0; ow < g.OW; ++ow) {
      if (best[ow] >= 0) dxc[best[ow]] += dy[ow];
    }
  }
}

void maxPoolGrad2d(const float* x, const float* dy, float* dx, const MaxPool2dGeom& g, void* buf) {
  const int64_t plane = g.H * g.W;
  std::memset(dx, 0, static_cast<size_t>(g.NC * plane) * sizeof(float));
  const bool pairs =
      g.KH == 2 && g.KW == 2 && g.SH == 2 && g.SW == 2 && g.PH == 0 && g.PW == 0 && 2 * g.OH <= g.H && 2 * g.OW <= g.W;
  float* bv = static_cast<float*>(buf);
  int32_t* best = reinterpret_cast<int32_t*>(bv + g.OW);
  for (int64_t nc = 0; nc < g.NC; ++nc) {
    if (pairs)
      maxPoolGrad2x2(x + nc * plane, dy + nc * g.OH * g.OW, dx + nc * plane, g);
    else
      maxPoolGradRows(x + nc * plane, dy + nc * g.OH * g.OW, dx + nc * plane, g, bv, best);
  }
}

}  // namespace

extern const PoolKernels kPool{maxPool2d, maxPoolGrad2d};

}  // namespace POPART_ISA_NS
}  // namespace cpu
}  // namespace popart
