// 2-D float max pooling without dilation or indices, one table per instruction-set copy
// (isa.hpp; pool_max.cpp).
#pragma once

#include <cstdint>

#include "backends/cpu/isa.hpp"

namespace popart {
namespace cpu {

/// The geometry of a 2-D max pooling: NC planes of H x W into OH x OW, kernel KH x KW, strides
/// SH, SW, padding PH, PW at the start.
struct MaxPool2dGeom {
  int64_t NC = 0, H = 0, W = 0, OH = 0, OW = 0, KH = 0, KW = 0, SH = 1, SW = 1, PH = 0, PW = 0;
};

struct PoolKernels {
  /// `buf`: pool.cpp's maxPool2dScratch bytes.
  void (*maxPool2d)(const float* x, float* y, const MaxPool2dGeom& g, float* buf);
};

POPART_ISA_DECLARE(PoolKernels, kPool)

}  // namespace cpu
}  // namespace popart
