// Shared by the loss family and its kernels.
#pragma once

#include "ir/op.hpp"
#include "popart/op/loss.hpp"

namespace popart {
namespace ops {

/// The "reduction" attribute of a loss op (default Mean).
ReductionType lossReduction(const Op& op);

}  // namespace ops
}  // namespace popart
