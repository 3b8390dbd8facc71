// The axes a Reduce* op reduces over (attribute or input form, by opset).
#pragma once

#include <vector>

#include "ir/op.hpp"

namespace popart {
namespace ops {

/// Normalised, possibly empty (no-op) list of reduced axes.
std::vector<int64_t> reduceAxes(const Op& op);

}  // namespace ops
}  // namespace popart
