// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file opmanager.hpp
/// PopART's `OpManager` queries over this runtime's op list (core/src/oplist/ops.def).

#include <map>
#include <string>
#include <vector>

#include "popart/datatype.hpp"
#include "popart/names.hpp"

namespace popart {

/// PopART's OpDefinition: an op's inputs, outputs and attributes as getSupportedOperationsDefinition
/// returns them.
struct OpDefinition {
  using DataTypes = std::vector<DataType>;
  struct Input {
    std::string name;
    DataTypes supportedTensors;  ///< the schema's types; empty: not given (internal ops)
    bool constant = false;       ///< its value, not only its shape, decides output shapes
  };
  struct Output {
    std::string name;
    DataTypes supportedTensors;
  };
  struct Attribute {
    std::string supportedValuesRegex;  ///< "*": any value the op accepts (PopART's form)
  };
  std::vector<Input> inputs;
  std::vector<Output> outputs;
  std::map<std::string, Attribute> attributes;
};
using OpDefinitions = std::map<OperatorIdentifier, OpDefinition>;

class OpManager {
 public:
  /// Every op this runtime runs, as (domain, type, the earliest opset of its domain it is
  /// implemented at): ai.onnx and ai.graphcore ops, and with `includeInternal` also the internal
  /// ops (gradients, optimizer updates; domain "internal") that models cannot name.
  static std::vector<OperatorIdentifier> getSupportedOperations(bool includeInternal);
  /// The same ops with their definitions. ai.onnx ops: input / output names and types and the
  /// attribute names of the op's newest ONNX schema up to opset 17 (the ONNX package the build
  /// used; older versions had some inputs as attributes, as Reshape-1's shape),
  /// `constant` from the op list (inputs whose values decide shapes); ai.graphcore ops: the
  /// aiGraphcore method's inputs and attributes (no types); internal ops: their input and output
  /// counts.
  static OpDefinitions getSupportedOperationsDefinition(bool includeInternal);
  /// The ai.onnx ops defined at opset `opsetVersion` (a schema version at or below it that is not
  /// deprecated there) that this runtime does not implement at that opset, sorted by type; each
  /// with the version of its schema in force at that opset (PopART's OperatorIdentifiers).
  static std::vector<OperatorIdentifier> getUnsupportedOperations(int opsetVersion);
};

}  // namespace popart
