// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file op/scatterreduce.hpp
/// PopART's `ScatterReduction`: how `aiGraphcore.scatterreduce` / `groupedscatterreduce` combine
/// the values scattered to one position (the `reduction` argument). Python spells `None` as
/// `ScatterReduction.NoReduction`.

namespace popart {

/// Sum, Max, Min or Mul of the values scattered to a position (with the initial value when one is
/// given); None keeps the last value scattered there.
enum class ScatterReduction { Sum = 0, Max, Min, Mul, None, N };

}  // namespace popart
