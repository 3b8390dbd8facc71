// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file graphtransformer.hpp
/// `popart::GraphTransformer`: rewrites of an ONNX model before a session sees it (PopART's
/// class): element type conversions (float32 -> float16, int64 -> int32, ...), initializers to
/// Constant nodes, unused inputs removed, training-mode BatchNormalization outputs, initializer
/// data saved to an external file.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "popart/names.hpp"

namespace popart {

class GraphTransformerImpl;

/// ONNX-level rewrites of a model before a session sees it (PopART's GraphTransformer): type
/// conversions, initializers to Constants, unused inputs removed, initializer data saved
/// externally. getModelProto() gives the result.
class GraphTransformer {
 public:
  /// A serialized ModelProto or the path of an .onnx file (tried both ways, as sessions and the
  /// Builder do). Initializers stored externally are read relative to the model's directory.
  explicit GraphTransformer(const std::string& modelProtoOrFilename);
  ~GraphTransformer();
  GraphTransformer(GraphTransformer&&) noexcept;
  GraphTransformer& operator=(GraphTransformer&&) noexcept;

  /// The transformed model, serialized.
  std::string getModelProto() const;

  /// Graph inputs that no node consumes are removed (with their initializers).
  void removeUnusedInputs();
  /// BatchNormalization nodes get the 5 outputs of the training variant.
  void prepareNodesForTraining();

  // Element type conversions. Each rewrites the initializers' data, the tensor attributes of
  // nodes (Constant's value, ConstantOfShape's value, ...), the element types of the graph's
  // inputs, outputs and value_info, and the type attributes naming the old type (Cast's `to`,
  // the random generators' `dtype`), in the main graph and in subgraphs.

  /// FLOAT -> FLOAT16, rounded to nearest even (numpy's astype(float16)).
  void convertFloatsToHalfs();
  /// UINT8 -> INT32.
  void convertUINT8ToINT32();
  /// UINT16 -> INT32.
  void convertUINT16ToINT32();
  /// INT8 -> INT32.
  void convertINT8ToINT32();
  /// INT16 -> INT32.
  void convertINT16ToINT32();
  /// INT64 -> INT32. Values outside int32's range are an error, or clipped to it with `clip`.
  void convertINT64ToINT32(bool clip = false);
  /// DOUBLE -> FLOAT, rounded to nearest even.
  void convertDoublesToFloats();
  /// DOUBLE -> FLOAT16, rounded once from the double (numpy's astype(float16)).
  void convertDoublesToHalfs();
  /// BFLOAT16 -> FLOAT (exact).
  void convertBFloats16ToFloat32();

  /// The named initializers become Constant nodes (placed before every other node); their
  /// initializers and graph inputs are removed.
  void convertInitializersToConstants(const std::vector<TensorId>& ids);
  /// convertInitializersToConstants for every integer and bool initializer.
  void convertAllFixedPointInitializersToConstants();

  /// Writes the named initializers' data, concatenated in the order given, to the file `fn` and
  /// makes them ONNX external data (data_location EXTERNAL; location `fn` as given, offset,
  /// length). The model must then be saved where `fn` resolves (an absolute `fn` works anywhere).
  void saveInitializersExternally(const std::vector<TensorId>& ids, const std::string& fn);
  /// As saveInitializersExternally, but the data file's bytes are returned instead of written
  /// (the model's external_data names `location`): for callers without a file system (the
  /// browser). Not in PopART.
  std::string saveInitializersExternallyToBytes(const std::vector<TensorId>& ids, const std::string& location);
  /// The `location`s the model's externally stored tensors name (each once), and their inverse of
  /// saveInitializersExternallyToBytes: the data of every external tensor taken from
  /// `files[location]` (its offset and length) and stored inline again. For callers that read
  /// files themselves (the JS module in Node). Not in PopART.
  std::vector<std::string> externalDataLocations() const;
  void inlineExternalData(const std::map<std::string, std::string>& files);

 private:
  std::unique_ptr<GraphTransformerImpl> impl_;
};

}  // namespace popart
