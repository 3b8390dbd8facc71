// PopART's SplineBasis and SplineWeighting (torch_spline_conv's spline convolution): the shapes
// and attributes shared by shape inference (ops/spline.cpp) and the CPU kernels
// (backends/cpu/kernels/spline.cpp).
#pragma once

#include <cstdint>

#include "ir/op.hpp"

namespace popart {
namespace ops {

/// SplineBasis: pseudo [E, D], kernelSize [D], isOpenSpline [D] -> basis, weightIndex [E, S]
/// with S = (degree + 1)^D.
struct SplineBasisParams {
  int64_t edges = 0, dims = 0, splines = 0;
  int64_t degree = 0;
};

/// Reads and checks a SplineBasis node (PopART's messages).
SplineBasisParams splineBasisParams(const Op& op);

/// SplineWeighting: input [E, Min], weight [K, Min, Mout], basis [E, S], weightIndex [E, S] ->
/// output [E, Mout].
struct SplineWeightingParams {
  int64_t edges = 0, inChannels = 0, outChannels = 0, kernels = 0, splines = 0;
};

SplineWeightingParams splineWeightingParams(const Op& op);

}  // namespace ops
}  // namespace popart
