// The ai.onnx schemas as data, generated into builder.gen.cpp by gen_builder.py from the ONNX
// package the build uses: what OpManager::getSupportedOperationsDefinition and
// getUnsupportedOperations compare the op list with (builder/op_definitions.cpp).
#pragma once

#include <cstddef>

namespace popart {

struct OnnxSchemaRow {
  const char* type;
  int since;  ///< the opset this version of the schema starts at
  bool deprecated;
  /// For the op list's ops: "name|TYPE,TYPE|option;..." (option 0 single, 1 optional, 2
  /// variadic), DataType names; "" for the others.
  const char* inputs;
  const char* outputs;
  const char* attributes;  ///< "a,b,c"
};

extern const OnnxSchemaRow kOnnxSchemas[];
extern const size_t kNumOnnxSchemas;

}  // namespace popart
