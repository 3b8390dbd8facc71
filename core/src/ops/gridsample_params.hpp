// ONNX GridSample (opset 16): the attributes and shapes shared by shape inference
// (ops/gridsample.cpp) and the CPU kernel (backends/cpu/kernels/gridsample.cpp).
#pragma once

#include <cstdint>

#include "ir/op.hpp"

namespace popart {
namespace ops {

/// X [N, C, H, W], grid [N, outH, outW, 2] (x then y, normalized to [-1, 1]) -> Y [N, C, outH, outW].
struct GridSampleParams {
  enum class Mode { Bilinear, Nearest, Bicubic };
  enum class Padding { Zeros, Border, Reflection };
  int64_t batch = 0, channels = 0, height = 0, width = 0;
  int64_t outH = 0, outW = 0;
  Mode mode = Mode::Bilinear;
  Padding padding = Padding::Zeros;
  bool alignCorners = false;  ///< -1 and 1 are the centres of the corner pixels (else their outer edges)
};

/// Reads and checks a GridSample node: ranks, types, shapes and the attributes mode,
/// padding_mode and align_corners (errors name the attribute and its value).
GridSampleParams gridSampleParams(const Op& op);

}  // namespace ops
}  // namespace popart
