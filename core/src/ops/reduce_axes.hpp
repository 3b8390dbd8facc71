// The axes a Reduce* op reduces over (attribute or input form, by opset).
#pragma once

#include <vector>

#include "ir/op.hpp"

namespace popart {
namespace ops {

/// Normalised, possibly empty list of reduced axes. Every axis when the attribute (or the opset 13
/// ReduceSum input) is absent; none (the op is the identity) for an explicit empty `axes`
/// attribute, as PopART's ReduceOp, or for an empty axes input with noop_with_empty_axes = 1.
std::vector<int64_t> reduceAxes(const Op& op);

}  // namespace ops
}  // namespace popart
