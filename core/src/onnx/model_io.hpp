// ONNX model and tensor I/O: parse bytes or files, convert TensorProto, save atomically.
#pragma once

#include <set>
#include <string>

#include "common/tensor_data.hpp"
#include "onnx.pb.h"

namespace popart {

/// Loads a model from a file path or from serialized bytes (the same string is tried both ways,
/// as in PopART). Errors name what was tried.
onnx::ModelProto loadModel(const std::string& modelProtoOrFilename);
/// Parses serialized ModelProto bytes; `what` describes the source for error messages.
onnx::ModelProto parseModelBytes(const std::string& bytes, const std::string& what);
/// Checks the structure a runtime relies on (graph present, names, opset imports, ...).
void validateModel(const onnx::ModelProto& model);
/// Serializes `model` to `path` through a temporary file renamed into place.
void saveModelAtomically(const onnx::ModelProto& model, const std::string& path);
/// Writes `bytes` to `path` through a temporary file renamed into place.
void writeFileAtomically(const std::string& path, const std::string& bytes);
/// The directory of a model loaded from a path ("" for bytes): external data is relative to it.
std::string modelBaseDir(const std::string& modelProtoOrFilename);
bool isExistingFile(const std::string& s);

/// Host data of a TensorProto (typed fields, raw_data, or external data relative to baseDir).
TensorData tensorFromProto(const onnx::TensorProto& tp, const std::string& baseDir = "");
/// Adds to `reads` every name the graph's nodes read, its subgraphs' included (a body reads outer
/// names implicitly).
void namesReadBy(const onnx::GraphProto& g, std::set<std::string>& reads);
/// Keeps what the graph's outputs need: the nodes they depend on (subgraphs' reads of outer
/// names included), and the inputs, initializers and value_info those read; the rest is removed.
/// The nodes must be in topological order (as ONNX requires).
void pruneToOutputs(onnx::GraphProto& g);
/// The dtype and shape of a TensorProto (a negative dimension or an unknown type is an error
/// naming it).
TensorInfo protoTensorInfo(const onnx::TensorProto& tp);
/// As tensorFromProto, but raw_data moves into the result without a copy (TensorData::adopt)
/// where it can; `tp` keeps no raw_data afterwards (its bytes adopted or freed).
TensorData takeTensorFromProto(onnx::TensorProto& tp, const std::string& baseDir = "");
/// Where a TensorProto keeps its values. PopART's Builder and modelToHost write the typed fields
/// (float_data, int32_data, int64_data, ...; FLOAT16 packed two per int32 of int32_data), which
/// scripts read back (`init.float_data`); imported models mostly use raw_data. BFLOAT16 and
/// COMPLEX stay in raw_data either way.
enum class ProtoValues { Raw, Typed };
/// The form `tp` keeps its values in now (Typed only when a typed field holds them).
ProtoValues protoValuesOf(const onnx::TensorProto& tp);
/// Fills a TensorProto (name untouched) from host data, in the given form.
void tensorToProto(const TensorData& d, onnx::TensorProto* tp, ProtoValues form = ProtoValues::Raw);
/// TensorInfo of a ValueInfoProto; `ok` is false when the type or a dimension is unknown.
/// `shapeText` gets the shape as PopART prints it ("[fubar, 2, 32, 32]"), `firstUnknown` (when
/// empty) the first dimension that is not a size ("fubar", "-1", "?").
/// The tensor element type a type gives, through optional and sequence types (UNDEFINED when it
/// gives none).
DataType elemTypeOf(const onnx::TypeProto& t);

TensorInfo infoFromValueInfo(const onnx::ValueInfoProto& vi, bool* ok, std::string* shapeText,
                             std::string* firstUnknown = nullptr);
/// Fills a ValueInfoProto's type from a TensorInfo.
void setValueInfoType(const TensorInfo& info, onnx::ValueInfoProto* vi);

}  // namespace popart
