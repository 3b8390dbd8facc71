// BatchNormalization's geometry, shared by its forward and gradient kernels.
#pragma once

#include <cstdint>

#include "popart/tensorinfo.hpp"

namespace popart {
namespace cpu {

/// N images of C channels of S elements each. C is the count of the scale's elements, so that
/// spatial = 0 (opset < 9: statistics per activation, parameters shaped like X without N) is
/// C·D1·...·Dn channels of S = 1 element.
struct BnGeom {
  int64_t N = 0, C = 0, S = 1;
};

inline BnGeom bnGeom(const Shape& x, const Shape& scale) {
  BnGeom g;
  g.N = x.empty() ? 0 : x[0];
  g.C = 1;
  for (int64_t d : scale) g.C *= d;
  int64_t all = 1;
  for (size_t i = 1; i < x.size(); ++i) all *= x[i];
  g.S = g.C ? all / g.C : 0;
  return g;
}

}  // namespace cpu
}  // namespace popart
