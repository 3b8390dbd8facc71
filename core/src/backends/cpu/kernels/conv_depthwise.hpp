// The depthwise 2-D convolution kernels, one table per instruction-set copy (isa.hpp;
// conv_depthwise.cpp).
#pragma once

#include <cstdint>

#include "backends/cpu/isa.hpp"

namespace popart {
namespace cpu {

/// A depthwise 2-D convolution: C channels of H x W into OH x OW, kernel KH x KW, strides SH, SW,
/// dilations DH, DW, padding PH, PW at the start (plain numbers: the kernels' copies share no code).
struct DepthwiseGeom {
  int64_t C = 0, H = 0, W = 0, OH = 0, OW = 0, KH = 0, KW = 0, SH = 1, SW = 1, DH = 1, DW = 1, PH = 0, PW = 0;
};

struct DepthwiseKernels {
  /// Any kernel, stride and dilation: direct accumulation over output rows.
  void (*plain)(const float* x, const float* w, const float* bias, float* y, const DepthwiseGeom& g);
  /// Stride 1 or 2, no dilation: zero-padded planes in `buf` (depthwisePaddedScratch bytes).
  void (*padded)(const float* x, const float* w, const float* bias, float* y, const DepthwiseGeom& g, float* buf);
  /// 3x3, stride 1 and stride 2: `channels` channels from x / w / bias; `zeros` a zero row of W.
  void (*k3x3s1)(const float* x, const float* w, const float* bias, float* y, const DepthwiseGeom& g, int64_t channels,
                 const float* zeros);
  void (*k3x3s2)(const float* x, const float* w, const float* bias, float* y, const DepthwiseGeom& g, int64_t channels,
                 const float* zeros);
};

POPART_ISA_DECLARE(DepthwiseKernels, kDepthwise)

}  // namespace cpu
}  // namespace popart
