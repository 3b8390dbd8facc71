// Weight updates: one in-place update op per trainable weight, scheduled after every other
// reader of the weight (forward and backward), with its optimizer state as Variable tensors.
#include "optimizers/var_updates.hpp"

#include <cstring>

#include "autodiff/autodiff.hpp"
#include "ir/ir.hpp"
#include "ops/op_def.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/sgd.hpp"

namespace popart {
namespace {

/// A Variable state tensor of the weight's type and shape, zero-initialised.
Tensor& stateTensor(Graph& g, const std::string& prefix, const Tensor& w) {
  const TensorId id = prefix + w.id;
  if (g.hasTensor(id)) throw error("The optimizer state tensor '{}' clashes with a tensor of the model", id);
  Tensor& t = g.addTensor(id, TensorKind::Variable, w.info);
  t.data = TensorData(w.info);
  std::memset(t.data->data(), 0, static_cast<size_t>(w.info.nbytes()));
  return t;
}

/// `op` runs after every other op reading `t`.
void afterReaders(Op& op, const Tensor& t) {
  for (Op* c : t.consumers) {
    if (c != &op) op.after.push_back(c);
  }
}

void addSGDUpdate(Graph& g, const SGD& sgd, Tensor& w, Tensor& grad) {
  const SGD::WeightValues v = sgd.getWeightValues(w.id);
  Op& op = g.addOp(opDef(OpKind::SGDVarUpdate), w.id + "/SGDVarUpdate", 1);
  op.attrs.set("learningRate", v.learningRate.val());
  op.attrs.set("weightDecay", v.weightDecay.val());
  op.attrs.set("momentum", v.momentum.val());
  op.attrs.set("dampening", v.dampening.val());
  op.attrs.set("velocityScaling", v.velocityScaling.val());
  op.attrs.set("lossScaling", v.lossScaling.val());
  op.attrs.set("nesterov", int64_t(v.nesterov ? 1 : 0));
  op.connectInput(0, &w);
  op.connectInput(1, &grad);
  if (sgd.requiresVelocity(w.id)) op.connectInput(2, &stateTensor(g, reservedAcclPrefix(), w));
  op.setup();
  afterReaders(op, w);
}

}  // namespace

void addTrainingGraph(Ir& ir, const TensorId& loss, const Optimizer& optimizer) {
  const BackwardResult bwd = buildBackward(ir, loss, optimizer.lossScaling().val());
  Graph& g = ir.mainGraph();
  if (bwd.weightGrads.empty())
    throw error("No trainable weight leads to the loss '{}': there is nothing to train", loss);
  for (const auto& kv : bwd.weightGrads) {
    Tensor& w = g.getTensor(kv.first);
    switch (optimizer.type()) {
      case OptimizerType::SGD:
        addSGDUpdate(g, static_cast<const SGD&>(optimizer), w, *kv.second);
        break;
      default:
        throw error("The {} optimizer is not supported by this runtime's training yet; use SGD or ConstSGD",
                    optimizer.type_s());
    }
  }
  logging::ir::info("Training graph: {} weight updates ({})", bwd.weightGrads.size(), optimizer.type_s());
}

}  // namespace popart
