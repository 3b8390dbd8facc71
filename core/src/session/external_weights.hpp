// Sessions and ONNX external data: modelToHost writes externally stored initializers back into
// their files (PopART's behaviour); updateExternallySavedTensorLocations moves them.
#pragma once

#include <map>
#include <string>

#include "common/tensor_data.hpp"
#include "onnx.pb.h"

namespace popart {

/// Writes `d` (nullptr: the tensor has no host value to save; the file is left as is) into the
/// external file of `tp` at its offset. The location is mapped through `renames` (the model's
/// location -> the current one) and resolved against `baseDir` as on load; `tp` stays EXTERNAL,
/// naming the current location.
void writeExternalInitializer(onnx::TensorProto& tp, const TensorData* d,
                              const std::map<std::string, std::string>& renames, const std::string& baseDir);

}  // namespace popart
