// A plane copied into a padded buffer, for the direct window kernels of the instruction-set copies
// (conv_depthwise.cpp's padded kernel). Its function is in POPART_ISA_NS, so each copy has its own
// (isa.hpp: a copy shares no code with the others).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "backends/cpu/isa.hpp"

namespace popart {
namespace cpu {
namespace POPART_ISA_NS {

/// Rows [0, HP) of the H x W plane `xc` padded to width WP (PH rows and PW columns of `fill`
/// before it, `fill` after): with `split` (stride-2 windows) its even columns into `even` and its
/// odd ones into `odd` (row strides ceil(WP / 2) and floor(WP / 2), `row` a scratch row of WP
/// floats), else whole rows into `even` (row stride WP). Every tap of a window is then a
/// contiguous run over an output row.
inline void stagePaddedPlane(const float* xc, int64_t H, int64_t W, int64_t PH, int64_t PW, int64_t HP, int64_t WP,
                             bool split, float fill, float* even, float* odd, float* row) {
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

}  // namespace POPART_ISA_NS
}  // namespace cpu
}  // namespace popart
