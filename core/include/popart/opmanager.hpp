// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file opmanager.hpp
/// PopART's `OpManager` queries over this runtime's op list (core/src/oplist/ops.def).

#include <vector>

#include "popart/names.hpp"

namespace popart {

class OpManager {
 public:
  /// Every op this runtime runs, as (domain, type, the earliest opset of its domain it is
  /// implemented at): ai.onnx and ai.graphcore ops, and with `includeInternal` also the internal
  /// ops (gradients, optimizer updates; domain "internal") that models cannot name.
  static std::vector<OperatorIdentifier> getSupportedOperations(bool includeInternal);
};

}  // namespace popart
