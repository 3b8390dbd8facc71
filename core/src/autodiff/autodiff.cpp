// Autodiff: reverse traversal of the ops between the wanted tensors (trainable weights, anchored
// gradients) and the loss.
#include "autodiff/autodiff.hpp"

#include <algorithm>
#include <set>

#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "ops/op_util.hpp"
#include "popart/error.hpp"
#include "popart/error_context.hpp"
#include "popart/half.hpp"
#include "popart/logging.hpp"
#include "popart/names.hpp"

namespace popart {

// ---------------------------------------------------------------- the backward pass

namespace {

bool isTrainable(const Tensor& t) {
  return t.kind == TensorKind::Variable && ops::isFloatType(t.info.dataType());
}

}  // namespace

BackwardResult buildBackward(Ir& ir, const TensorId& lossId, float lossScaling,
                             const std::vector<TensorId>& requested) {
  Graph& g = ir.mainGraph();
  Tensor* loss = g.tensor(lossId);
  // PopART's messages (Ir::setFinalLoss), with the tensor's type and shape added.
  if (!loss) throw error("Could not find loss tensor '{}' in main graph tensors", lossId);
  if (loss->info.nelms() > 1)  // PopART's sentence (args[0] in Python), then the tensor
    throw contextual_error(
        format("Loss tensor, '{}', must be a scalar tensor (it is {})", lossId, loss->info.toString()),
        format("Loss tensor, '{}', must be a scalar tensor", lossId));
  if (loss->info.nelms() != 1)
    throw error("Loss tensor, '{}', must be a scalar tensor with one element (it is {})", lossId,
                loss->info.toString());
  // An integer loss (PopART's IdentityLoss of INT32 data) is differentiated in its own type: its
  // gradients are those of the tensors of that type. A floating-point loss has floating-point
  // gradients only.
  const DataType lossType = loss->info.dataType();
  const bool integerLoss = lossType == DataType::INT32 || lossType == DataType::INT64;
  if (!ops::isFloatType(lossType) && !integerLoss)
    throw error("The loss tensor '{}' ({}) must be a floating-point scalar tensor", lossId, loss->info.toString());
  auto differentiable = [&](DataType t) { return integerLoss ? t == lossType : ops::isFloatType(t); };

  // The tensors whose gradients are wanted: the trainable weights and the anchored gradients.
  std::set<const Tensor*> wanted;
  for (const auto& kv : g.tensors()) {
    if (isTrainable(*kv.second) && differentiable(kv.second->info.dataType())) wanted.insert(kv.second.get());
  }
  const std::string prefix = reservedGradientPrefix();
  for (const TensorId& a : ir.dataFlow().anchors()) {
    if (a.rfind(prefix, 0) != 0) continue;
    const Tensor* t = g.tensor(a.substr(prefix.size()));
    if (t && differentiable(t->info.dataType())) wanted.insert(t);
  }
  const std::set<TensorId> requestedIds(requested.begin(), requested.end());
  for (const TensorId& id : requested) {
    const Tensor* t = g.tensor(id);
    if (t && differentiable(t->info.dataType())) wanted.insert(t);
  }

  const std::vector<Op*> order = g.topologicalOrder();
  // Floating-point tensors a wanted tensor leads to (the wanted tensors included).
  std::set<const Tensor*> fromWanted = wanted;
  for (Op* op : order) {
    bool reached = false;
    for (Tensor* t : op->inputs()) reached = reached || (t && fromWanted.count(t));
    if (!reached) continue;
    for (Tensor* t : op->outputs()) {
      if (t && differentiable(t->info.dataType())) fromWanted.insert(t);
    }
  }
  // Ops the loss depends on.
  std::set<const Op*> toLoss;
  {
    std::vector<const Tensor*> work{loss};
    while (!work.empty()) {
      const Tensor* t = work.back();
      work.pop_back();
      if (t->producer && toLoss.insert(t->producer).second) {
        for (const Tensor* in : t->producer->inputs()) {
          if (in) work.push_back(in);
        }
      }
    }
  }

  BackwardResult result;
  std::map<const Tensor*, std::vector<Tensor*>> contribs;
  std::map<const Tensor*, Tensor*> finalGrad;
  const size_t opsBefore = g.ops().size();
  std::set<OpId> before;
  for (const auto& kv : g.ops()) before.insert(kv.first);

  // The gradient of `t`: its contributions summed, under PopART's name Gradient___<id>.
  auto finalize = [&](const Tensor* t) -> Tensor* {
    auto f = finalGrad.find(t);
    if (f != finalGrad.end()) return f->second;
    auto c = contribs.find(t);
    if (c == contribs.end() || c->second.empty()) return nullptr;
    const TensorId id = g.uniqueTensorId(std::string(reservedGradientPrefix()) + t->id);
    const OpDef& def = opDef(c->second.size() == 1 ? OpKind::Identity : OpKind::Sum);
    Op& op = g.addOp(def, id, 13);
    for (size_t i = 0; i < c->second.size(); ++i) op.connectInput(static_cast<int>(i), c->second[i]);
    Tensor& out = g.addTensor(id, TensorKind::ActGrad, TensorInfo());
    op.connectOutput(0, &out);
    op.setup();
    finalGrad[t] = &out;
    return &out;
  };

  // The seed: d(loss)/d(loss) = lossScaling.
  {
    const TensorInfo info = loss->info;
    Tensor& seed = g.addTensor(g.uniqueTensorId(lossId + "/grad/seed"), TensorKind::Const, info);
    seed.data = filledGradData(lossScaling, info);
    contribs[loss].push_back(&seed);
  }

  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Op* op = *it;
    if (!toLoss.count(op)) continue;
    std::vector<bool> needs;
    bool anyNeeded = false;
    for (int i = 0; i < op->numInputs(); ++i) {
      const bool n = op->hasInput(i) && fromWanted.count(op->input(i)) != 0;
      needs.push_back(n);
      anyNeeded = anyNeeded || n;
    }
    if (!anyNeeded) continue;
    std::vector<Tensor*> outGrads;
    bool anyOut = false;
    for (int o = 0; o < op->numOutputs(); ++o) {
      Tensor* og = op->hasOutput(o) ? finalize(op->output(o)) : nullptr;
      outGrads.push_back(og);
      anyOut = anyOut || og;
    }
    if (!anyOut) continue;
    for (int i = 0; i < op->numInputs(); ++i) {
      const std::string missing =
          needs[static_cast<size_t>(i)] ? ir.patterns().disabledLoweringPattern(op->type(), i) : "";
      if (!missing.empty())
        throw error(
            "The gradient of {} with respect to input {} needs PopART's pattern {}, which the session's Patterns "
            "disable. This op should have been removed by pattern {}",
            op->describe(), i, missing, missing);
    }
    if (!op->def().grad)
      throw error(
          "Autodiff: {} has no gradient rule in this runtime, but it lies on a path from a trainable weight "
          "or an anchored gradient's tensor to the loss '{}'",
          op->describe(), lossId);
    GradCtx ctx(g, *op, outGrads, needs);
    try {
      op->def().grad(ctx);
    } catch (const internal_error&) {
      throw;
    } catch (const error& e) {
      throw withContext(e, "while building the gradient of {}: {}", op->describeWithInputs(), e.what());
    }
    for (const auto& kv : ctx.inGrads()) contribs[op->input(kv.first)].push_back(kv.second);
  }

  for (const auto& kv : g.tensors()) {  // in id order: deterministic names and op ids
    const Tensor* t = kv.second.get();
    if (!wanted.count(t)) continue;
    Tensor* gr = finalize(t);
    if (!gr) continue;
    if (isTrainable(*t)) result.weightGrads[t->id] = gr;
    if (ir.dataFlow().isAnchored(prefix + t->id)) result.anchoredGrads[t->id] = gr;
    if (requestedIds.count(t->id)) result.requestedGrads[t->id] = gr;
  }
  for (const auto& kv : g.ops()) {
    if (!before.count(kv.first)) result.ops.push_back(kv.second.get());
  }
  logging::ir::info("Autodiff: {} ops added for {} weight gradients and {} anchored gradients",
                    g.ops().size() - opsBefore, result.weightGrads.size(), result.anchoredGrads.size());
  return result;
}

}  // namespace popart
