// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file op/loss.hpp
/// Loss reductions (PopART's `ReductionType`).

#include <string>

namespace popart {

/// How a loss (or accumulated gradients) is reduced.
enum class ReductionType { Sum = 0, Mean, NoReduction, N };
/// How Mean reduction of accumulated/replicated gradients is applied.
enum class MeanReductionStrategy { Running = 0, Post, PostAndLoss, N };

/// "Sum", "Mean", "NoReduction".
std::string reductionTypeToString(ReductionType r);
ReductionType reductionTypeFromString(const std::string& s);

}  // namespace popart
