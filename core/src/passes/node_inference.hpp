// Shape inference for one node outside a model's IR: what the Builder uses to know the type and
// shape of every tensor it adds (and the values of small constants that later shapes depend on).
// It runs the op's own setup (ops/), so the Builder and the importer can never disagree.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/tensor_data.hpp"
#include "popart/tensorinfo.hpp"

namespace onnx {
class NodeProto;
}

namespace popart {

class ConstEvaluator;

namespace passes {

struct NodeInference {
  /// Per output of the node: its type and shape (unset when the op leaves it unknown).
  std::vector<TensorInfo> outInfos;
  /// Per output: its value, when every input had one and the op was folded (else empty).
  std::vector<TensorData> values;
  bool folded = false;
};

/// Infers the outputs of `node` (an op of `domain` at opset `version`). `infoOf(id)` gives an
/// input's type (nullptr: unknown, and nothing is inferred); `valueOf(id)` its value where the
/// caller knows it. When every input has a value and the outputs are integer or small (<= 64
/// floating-point elements), `evaluator` (if given) folds the node. Returns false for op types
/// this runtime does not know (custom ops) and when an input's type is unknown. Throws
/// popart::error when the op's shape inference rejects the node.
/// `opsets` (domain -> version) are the model's imports, which the nodes of the node's subgraph
/// attributes (If, Loop, PackedDataBlock) are read at.
bool inferNode(const onnx::NodeProto& node, const std::string& domain, int version,
               const std::function<const TensorInfo*(const std::string&)>& infoOf,
               const std::function<const TensorData*(const std::string&)>& valueOf, const ConstEvaluator* evaluator,
               NodeInference& result, const std::map<std::string, int>& opsets = {});

}  // namespace passes
}  // namespace popart
