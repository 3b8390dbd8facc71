// The depthwise 2-D convolution kernels, one table per instruction-set copy (isa.hpp;
// conv_depthwise.cpp).
#pragma once

#include <cstdint>

#include "backends/cpu/isa.hpp"
#include "backends/cpu/kernels/conv_im2col.hpp"

namespace popart {
namespace cpu {

struct DepthwiseKernels {
  /// Any kernel, stride and dilation: direct accumulation over output rows.
  void (*plain)(const float* x, const float* w, const float* bias, float* y, const ConvGeom& g);
  /// Stride 1 or 2, no dilation: zero-padded planes in `buf` (depthwisePaddedScratch bytes).
  void (*padded)(const float* x, const float* w, const float* bias, float* y, const ConvGeom& g, float* buf);
  /// 3x3, stride 1 and stride 2: `channels` channels from x / w / bias; `zeros` a zero row of W.
  void (*k3x3s1)(const float* x, const float* w, const float* bias, float* y, const ConvGeom& g, int64_t channels,
                 const float* zeros);
  void (*k3x3s2)(const float* x, const float* w, const float* bias, float* y, const ConvGeom& g, int64_t channels,
                 const float* zeros);
};

POPART_ISA_DECLARE(DepthwiseKernels, kDepthwise)

}  // namespace cpu
}  // namespace popart
