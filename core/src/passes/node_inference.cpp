// Shape inference for one node outside a model's IR (passes/node_inference.hpp).
#include "passes/node_inference.hpp"

#include "ir/graph.hpp"
#include "ir/ir.hpp"
#include "ir/op.hpp"
#include "ir/op_def.hpp"
#include "onnx.pb.h"
#include "onnx/attributes_io.hpp"
#include "popart/error.hpp"

namespace popart {
namespace passes {

bool inferNode(const onnx::NodeProto& node, const std::string& domain, int version,
               const std::function<const TensorInfo*(const std::string&)>& infoOf,
               const std::function<const TensorData*(const std::string&)>& valueOf, const ConstEvaluator* evaluator,
               NodeInference& result, const std::map<std::string, int>& opsets) {
  const OpDef* def = findOpDef(domain, node.op_type());
  if (!def) return false;  // a custom op: shapes unknown
  // A scratch graph holding only this node and its inputs.
  Ir scratchIr;
  for (const auto& kv : opsets) scratchIr.setOpsetVersion(kv.first, kv.second);
  scratchIr.setShapeInferenceOnly();
  Graph g(scratchIr, "node");
  Op& op = g.addOp(*def, node.name(), version);
  op.attrs = attributesFromNode(node);
  bool allValues = true;
  for (int i = 0; i < node.input_size(); ++i) {
    const std::string& id = node.input(i);
    if (id.empty()) {
      op.connectInput(i, nullptr);
      continue;
    }
    Tensor* t = g.tensor(id);
    if (!t) {
      const TensorInfo* inf = infoOf(id);
      if (!inf) return false;
      t = &g.addTensor(id, TensorKind::ActGrad, *inf);
      if (const TensorData* v = valueOf(id)) {
        t->kind = TensorKind::Const;
        t->data = *v;
      } else {
        allValues = false;
      }
    }
    op.connectInput(i, t);
  }
  op.numFormalInputs = node.input_size();  // as the importer sets it (subgraph ops count on it)
  for (int i = 0; i < node.output_size(); ++i) {
    op.connectOutput(i, node.output(i).empty()
                            ? nullptr
                            : &g.addTensor("__out" + std::to_string(i), TensorKind::ActGrad, TensorInfo()));
  }
  op.setup();
  result.outInfos.assign(static_cast<size_t>(node.output_size()), TensorInfo());
  for (int i = 0; i < node.output_size(); ++i) {
    if (op.hasOutput(i)) result.outInfos[static_cast<size_t>(i)] = op.outInfo(i);
  }
  // Fold small or integer values that later shape inference may need (Reshape's shape, ...).
  if (!allValues || !def->foldable || !evaluator) return true;
  for (int i = 0; i < op.numOutputs(); ++i) {
    if (op.hasOutput(i) && isFloatingPoint(op.outInfo(i).dataType()) && op.outInfo(i).nelms() > 64) return true;
  }
  try {
    result.values = evaluator->evaluate(op);
    result.values.resize(static_cast<size_t>(node.output_size()));
    result.folded = true;
  } catch (const error&) {
    result.values.clear();  // not foldable here: the values stay unknown
  }
  return true;
}

}  // namespace passes
}  // namespace popart
