// Copyright (c) the popart-runtime authors. Public header.
#pragma once
/// \file describe.hpp
/// `describeModel`: an ONNX model as data (nodes, tensors with the runtime's own inferred
/// TensorInfo, initializer statistics), for tools and the browser front end; `toJson` gives the
/// JSON document the JS package returns (docs/js-api.md, "Describing a model").

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "popart/inputshapeinfo.hpp"

namespace popart {

/// Options of describeModel.
struct DescribeOptions {
  /// Bins of each initializer's / constant's histogram (1 to 65536).
  int histogramBins = 32;
};

/// One dimension of a described shape: a number, a symbolic name (ONNX dim_param), or unknown.
struct DimDescription {
  int64_t value = -1;  ///< >= 0 when known
  std::string param;   ///< the dim_param when symbolic (value is then -1)
  bool known() const { return value >= 0; }
};

/// Statistics of a numeric initializer or Constant output, computed in double (FLOAT16 and
/// BFLOAT16 decoded). min / max / mean / std (population) and the histogram are over the finite
/// values; they are unset when there is none.
struct TensorStats {
  int64_t count = 0;  ///< elements
  std::optional<double> min, max, mean, std;
  int64_t zeros = 0, nans = 0, infs = 0;
  /// numpy.histogram(finite values, bins, range=(min, max)): equal bins over [histMin, histMax]
  /// (min - 0.5 .. max + 0.5 when min == max), the last bin closed. Empty when no finite value.
  double histMin = 0, histMax = 0;
  std::vector<int64_t> histogram;
};

/// Where a described tensor's type and shape come from.
enum class ShapeSource {
  Inferred,  ///< the runtime's own import and shape inference (what a session would use)
  File,      ///< the model file only (value_info, graph inputs / outputs, initializer dims)
  Unknown,
};
/// "inferred", "file", "unknown".
const char* shapeSourceName(ShapeSource s);

/// The role of a tensor in its graph (first match in this order: a graph input, an initializer,
/// a graph output, the output of a Constant node, any other node output).
enum class TensorRole { Input, Initializer, Output, Constant, Activation };
/// "input", "initializer", "output", "constant", "activation".
const char* tensorRoleName(TensorRole r);

struct TensorDescription {
  std::string name;
  TensorRole kind = TensorRole::Activation;
  std::string dtype;  ///< ONNX type name ("FLOAT", ...); empty when unknown
  /// Unset when even the rank is unknown.
  std::optional<std::vector<DimDescription>> shape;
  ShapeSource shapeSource = ShapeSource::Unknown;
  /// Unset unless the type and every dimension are known (and, for bytes, the type has a fixed
  /// size); checked 64-bit products.
  std::optional<int64_t> elements, bytes;
  std::string producer;  ///< node name, "" for none
  std::vector<std::string> consumers;
  /// Numeric initializers and Constant outputs only.
  std::optional<TensorStats> stats;
};

/// Summary of a TENSOR attribute (or one element of a TENSORS attribute).
struct TensorSummary {
  std::string dtype;
  std::vector<int64_t> shape;
  int64_t elements = 0;
  /// The values when there are at most 16 (numbers in `values`, STRING ones in `stringValues`).
  bool hasValues = false;
  std::vector<double> values;
  std::vector<std::string> stringValues;
};

/// Summary of a GRAPH attribute: its name and node count (the node's `subgraphs` describe it).
struct GraphSummary {
  std::string name;
  int64_t nodes = 0;
};

/// A node attribute. `type` is the ONNX AttributeType name ("INT", "FLOATS", "TENSOR", ...); the
/// value is in the member of its kind (a single value as the one element of the vector).
struct AttributeDescription {
  std::string name;
  std::string type;
  std::vector<int64_t> ints;
  std::vector<double> floats;  ///< FLOAT attributes, as the shortest decimal of the float32
  std::vector<std::string> strings;
  std::vector<TensorSummary> tensors;
  std::vector<GraphSummary> graphs;
};

struct GraphDescription;

struct NodeDescription {
  /// The ONNX name when it is non-empty and unique in its graph, else "<opType>_<index>" (index
  /// in the graph's node list; a suffix "_<k>" is added when that name is taken).
  std::string name;
  std::string opType;
  std::string domain;  ///< "ai.onnx" for the default domain
  int64_t opset = 0;   ///< the model's opset for the domain (0 when not imported)
  std::vector<AttributeDescription> attributes;
  std::vector<std::string> inputs;   ///< tensor names ("" for an absent optional input)
  std::vector<std::string> outputs;  ///< tensor names
  /// The node's doc_string ("" when it has none).
  std::string docString;
  /// Whether this runtime implements the op (its type in its domain, at the model's opset of the
  /// domain): false for an op a session would refuse as unknown or as needing a newer opset.
  bool supported = false;
  /// Outer-scope tensors the node's subgraph bodies read (at any depth) that are not among its
  /// `inputs`, sorted: what the node depends on besides its inputs.
  std::vector<std::string> implicitInputs;
  /// The bodies of GRAPH / GRAPHS attributes, in attribute order, each described at every depth.
  std::vector<GraphDescription> subgraphs;
};

/// A graph: its inputs (not initializers) and outputs, nodes in file order, and every tensor a
/// node, an input, an output or an initializer names, once (a subgraph does not list the
/// outer-scope tensors its nodes read).
struct GraphDescription {
  std::string name;
  /// For a subgraph: the GRAPH / GRAPHS attribute it is the value of ("then_branch", "body"); ""
  /// for the main graph.
  std::string attribute;
  std::string docString;
  std::vector<std::string> inputs, outputs;
  std::vector<NodeDescription> nodes;
  std::vector<TensorDescription> tensors;
};

struct ModelDescription {
  int64_t irVersion = 0;
  std::string producerName, producerVersion, docString, domain;
  int64_t modelVersion = 0;
  /// The model's metadata_props, in file order.
  std::vector<std::pair<std::string, std::string>> metadataProps;
  /// The size of the serialized model (the file, or the bytes given).
  int64_t modelBytes = 0;
  /// The model's opset imports (domain "" as "ai.onnx").
  std::vector<std::pair<std::string, int64_t>> opsets;
  /// The main graph's weights: its initializers and the numeric outputs of its Constant nodes,
  /// except optimizer state; elements and bytes (checked 64-bit sums).
  int64_t parameterCount = 0, parameterBytes = 0;
  /// Initializers that are optimizer state (a training checkpoint's accumulators, momenta and
  /// step counts: PopART's reserved prefixes such as "Accl___"), not counted as parameters.
  int64_t optimizerStateCount = 0, optimizerStateBytes = 0;
  /// Nodes per op type in the main graph, most frequent first (ties by name).
  std::vector<std::pair<std::string, int64_t>> opHistogram;
  /// Whether the runtime's import and shape inference went through; when not, `message` is its
  /// error (an unknown op, a shape error, an input shape missing, ...) and tensors it did not
  /// reach keep the file's shapes.
  bool shapeInferenceOk = false;
  std::string shapeInferenceMessage;
  /// The main graph (its name is the model's graph name).
  GraphDescription graph;
};

/// Describes the model given as a file path or as serialized ModelProto bytes (as sessions take
/// it). `inputShapes` overrides input shapes as in sessions; an entry whose type is UNDEFINED
/// takes the model's type for that input. Shapes come from the runtime's own import (Ir::load,
/// the same shape inference and constant folding as a session, without a device). Throws
/// popart::error for what sessions reject before import (unreadable, corrupt or invalid models,
/// initializers whose data does not match their type and shape) and for histogramBins out of
/// range; an op the runtime does not know, or a shape error, is reported in shapeInferenceOk /
/// shapeInferenceMessage instead.
ModelDescription describeModel(const std::string& modelPathOrBytes, const InputShapeInfo& inputShapes = {},
                               const DescribeOptions& options = {});

/// The description as one JSON object (the JS package's describeModel result; docs/js-api.md).
std::string toJson(const ModelDescription& description);

/// The value of a tensor stored in a model: an initializer, or the output of a Constant node, in
/// the main graph or any subgraph (the first found, main graph first).
struct StoredTensorValue {
  std::string name;
  std::string dtype;  ///< ONNX type name ("FLOAT", "FLOAT16", "STRING", ...)
  std::vector<int64_t> shape;
  std::string bytes;                 ///< row-major, little-endian; FLOAT16 / BFLOAT16 as their 16-bit patterns
  std::vector<std::string> strings;  ///< STRING tensors (bytes is then empty)
};

/// The value of the initializer or Constant output `name` of the model given as a file path or as
/// serialized ModelProto bytes (external data read as sessions read it). Throws popart::error
/// naming the tensor when the model holds no stored value of that name (an activation, a graph
/// input, a sparse constant, or a name not in the model).
StoredTensorValue tensorValue(const std::string& modelPathOrBytes, const std::string& name);

}  // namespace popart
