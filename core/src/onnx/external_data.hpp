// ONNX external tensor data on save: initializers' bytes moved to a side file (PopART's
// saveInitializersExternally), shared by GraphTransformer, Builder and Session::modelToHost.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "onnx.pb.h"

namespace popart {

/// Writes the named initializers' data, concatenated in the order of `ids`, to `fn` and marks
/// them EXTERNAL (location `fn` as given, offset, length); their inline data is cleared. Every id
/// is checked before anything is written. `baseDir` resolves data already stored externally.
void saveInitializersExternally(onnx::ModelProto& model, const std::vector<std::string>& ids, const std::string& fn,
                                const std::string& baseDir = "");
/// As saveInitializersExternally, but the data file's bytes are returned, not written (the
/// model's external_data names `location`): for a caller without a file system (the browser).
std::string initializersToExternalData(onnx::ModelProto& model, const std::vector<std::string>& ids,
                                       const std::string& location, const std::string& baseDir = "");

/// The `location`s of the model's EXTERNAL tensors (initializers, Constant values, subgraphs'),
/// each once, in order of appearance (the model is not changed; the walk takes it mutable so that
/// inlineExternalData shares it).
std::vector<std::string> externalDataLocations(onnx::ModelProto& model);
/// The inverse of initializersToExternalData: every EXTERNAL tensor takes its bytes from
/// `files[location]` (offset, length) and holds them inline again. A location missing from
/// `files`, or a range beyond its end, is an error naming the tensor; nothing changes then.
void inlineExternalData(onnx::ModelProto& model, const std::map<std::string, std::string>& files);

/// The file an external TensorProto's `location` names: absolute as is, else relative to
/// `baseDir` (the model's directory), or to the working directory when the model came as bytes.
std::string externalDataPath(const std::string& location, const std::string& baseDir);

/// Where an EXTERNAL TensorProto's bytes are: its external_data entries.
struct ExternalDataRef {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;  ///< -1: not given
};
/// The entries of an EXTERNAL `tp`; no location, or an offset / length that is not a number, is
/// an error naming the tensor.
ExternalDataRef externalDataRef(const onnx::TensorProto& tp);

/// The `location` of an EXTERNAL TensorProto ("" for inline data).
std::string externalLocation(const onnx::TensorProto& tp);

}  // namespace popart
