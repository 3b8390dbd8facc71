// The geometry of PopART's dynamic slices (DynamicSlice, DynamicUpdate, DynamicAdd, DynamicZero),
// shared by shape inference (ops/dynamic.cpp) and the CPU kernels (backends/cpu/kernels/dynamic.cpp)
// so that both read the attributes the same way.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/op.hpp"

namespace popart {
namespace ops {

/// A slice of `full` along `axes` (normalised, in attribute order) with `sizes`; the other
/// dimensions are whole. The offsets are a run-time tensor, so the slice's shape depends only on
/// the sizes.
struct DynamicGeom {
  Shape full;
  Shape slice;
  std::vector<int64_t> axes;
  std::vector<int64_t> sizes;
};

/// Reads and checks `axes`, `sizes` (and `noOverlap`) against the shape of the sliced tensor.
DynamicGeom dynamicGeom(const Op& op, const Shape& full);

/// Checks input `i` as the offset tensor: an integer tensor with one value per axis.
void checkDynamicOffset(const Op& op, int i, const DynamicGeom& g);

/// Checks input `i` as a slice of the geometry: its shape is the slice's, or that shape with
/// size-1 dimensions dropped or added (PopART accepts [4, 7] for a [1, 4, 7] slice).
void checkDynamicSliceInput(const Op& op, int i, const DynamicGeom& g);

/// Where slice position p along axis k starts in the full tensor, as PopART (Poplar's
/// dynamicSlice) reads an offset: the offset is unsigned, one at or past the end of the axis
/// selects 0, and a slice that runs past the end wraps around to the start of the axis.
inline int64_t dynamicStart(int64_t offset, int64_t dim) {
  return offset < 0 || offset >= dim ? 0 : offset;
}

}  // namespace ops
}  // namespace popart
