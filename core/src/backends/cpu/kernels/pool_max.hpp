// 2-D float max pooling and its gradient without dilation or indices, one table per
// instruction-set copy (isa.hpp; pool_max.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/isa.hpp"

namespace popart {
namespace ops {
struct Window;
}
namespace cpu {

/// The geometry of a 2-D max pooling: NC planes of H x W into OH x OW, kernel KH x KW, strides
/// SH, SW, padding PH, PW at the start.
struct MaxPool2dGeom {
  int64_t NC = 0, H = 0, W = 0, OH = 0, OW = 0, KH = 0, KW = 0, SH = 1, SW = 1, PH = 0, PW = 0;
};

struct PoolKernels {
  /// `buf`: pool.cpp's maxPool2dScratch bytes.
  void (*maxPool2d)(const float* x, float* y, const MaxPool2dGeom& g, float* buf);
  /// MaxPoolGrad: dx = 0, then each window's first maximum in scan order (the forward's index
  /// output; a NaN first element stays the maximum) takes the window's dy. The plane must have
  /// fewer than 2^31 elements. `buf`: 8 x OW bytes (a value and an index per output column).
  void (*maxPoolGrad2d)(const float* x, const float* dy, float* dx, const MaxPool2dGeom& g, void* buf);
};

POPART_ISA_DECLARE(PoolKernels, kPool)

/// The geometry of a 2-D window (ops/window.hpp) over NC planes (no dilation: the caller checks).
MaxPool2dGeom maxPool2dGeom(int64_t NC, const ops::Window& w);
/// The copy in use (isa.hpp).
const PoolKernels& poolKernels();
/// Every copy this CPU runs, with its name, best first (the tests call each).
std::vector<std::pair<std::string, const PoolKernels*>> runnablePoolKernels();

}  // namespace cpu
}  // namespace popart
