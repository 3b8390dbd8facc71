// Resize / Upsample parameters, shared by shape inference and the kernel.
#pragma once

#include <string>
#include <vector>

#include "ir/op.hpp"

namespace popart {
namespace ops {

struct ResizeParams {
  std::vector<double> scales;  ///< per dimension (output / input)
  std::vector<int64_t> outShape;
  std::vector<double> roiStart, roiEnd;  ///< tf_crop_and_resize only (normalised)
  std::string mode = "nearest";          ///< nearest | linear | cubic
  std::string coordMode = "half_pixel";
  /// round_prefer_floor | round_prefer_ceil | floor | ceil | pytorch (PopART's: index
  /// floor(x / scale) whatever the coordinate mode, as torch.nn.functional.interpolate)
  std::string nearestMode = "round_prefer_floor";
  double cubicA = -0.75;
  bool excludeOutside = false;
  double extrapolation = 0.0;
};

/// Reads Resize (opsets 10, 11, 13+) or Upsample (7, 9) attributes and inputs.
ResizeParams resizeParams(const Op& op);

}  // namespace ops
}  // namespace popart
