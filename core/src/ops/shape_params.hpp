// Parameters of data-movement ops, computed once for shape inference and reused by kernels.
#pragma once

#include <vector>

#include "ir/op.hpp"

namespace popart {
namespace ops {

/// Per input dimension: first index, step, output length (Slice).
struct SliceParams {
  std::vector<int64_t> start, step, len;
};
SliceParams sliceParams(const Op& op);

/// Per dimension: padding before and after (negative = crop), and the mode (Pad).
struct PadParams {
  std::vector<int64_t> begin, end;
  std::string mode;  ///< "constant", "reflect", "edge"
  double value = 0.0;
};
PadParams padParams(const Op& op);

/// The sizes of Split's outputs along its axis, and the axis.
std::vector<int64_t> splitSizes(const Op& op, int64_t* axis);
/// The permutation of Transpose.
std::vector<int64_t> transposePerm(const Op& op);
/// Squeeze/Unsqueeze axes (normalised).
std::vector<int64_t> squeezeAxes(const Op& op);

}  // namespace ops
}  // namespace popart
