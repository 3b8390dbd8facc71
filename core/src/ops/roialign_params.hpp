// ONNX RoiAlign (and its gradient op RoiAlignGrad): the attributes and geometry shared by shape
// inference (ops/roialign.cpp) and the CPU kernels (backends/cpu/kernels/roialign.cpp).
#pragma once

#include <cstdint>

#include "ir/op.hpp"

namespace popart {
namespace ops {

/// X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2), batch_indices [R] -> Y [R, C, outH, outW].
struct RoiAlignParams {
  int64_t batch = 0, channels = 0, height = 0, width = 0, rois = 0;
  int64_t outH = 1, outW = 1;
  int64_t samplingRatio = 0;  ///< samples per bin and axis; 0: adaptive, ceil(roi size / bins)
  double spatialScale = 1.0;
  bool max = false;        ///< mode "max" (ONNX's: the largest weighted corner of any sample)
  bool halfPixel = false;  ///< coordinate_transformation_mode "half_pixel" (opset 16's default)
};

/// Reads and checks a RoiAlign node, or a RoiAlignGrad node (inputs dY, rois, batch_indices, X;
/// its attributes are the forward node's, every one explicit).
RoiAlignParams roiAlignParams(const Op& op);

}  // namespace ops
}  // namespace popart
