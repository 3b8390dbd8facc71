// Sliding-window geometry shared by Conv and pooling (shape inference and kernels).
#pragma once

#include <vector>

#include "ir/op.hpp"

namespace popart {
namespace ops {

struct Window {
  std::vector<int64_t> kernel;  ///< per spatial dim
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> padBegin;
  std::vector<int64_t> padEnd;
  std::vector<int64_t> inSpatial;
  std::vector<int64_t> outSpatial;
};

/// Reads auto_pad / pads / strides / dilations of `op` for an input with spatial dims
/// `inSpatial` and the given kernel, and computes the output spatial dims.
Window computeWindow(const Op& op, const std::vector<int64_t>& inSpatial, const std::vector<int64_t>& kernel,
                     bool ceilMode, bool allowDilations);

/// ConvTranspose: the same geometry seen from the output (padBegin/padEnd crop the full
/// output; outSpatial is the result).
Window computeTransposeWindow(const Op& op, const std::vector<int64_t>& inSpatial, const std::vector<int64_t>& kernel);

}  // namespace ops
}  // namespace popart
