// Patterns: identity removal (PreUniRepl / OpToIdentity) and activation fusion into the
// producing Conv / Gemm / MatMul (inference only; the kernels apply it in their epilogue).
#include "patterns/patterns_apply.hpp"

#include <algorithm>
#include <vector>

#include "ir/ir.hpp"
#include "popart/logging.hpp"

namespace popart {
namespace {

bool isKept(const Ir& ir, const Tensor* t) {
  if (ir.dataFlow().isAnchored(t->id)) return true;
  const auto& outs = ir.mainGraph().outputIds;
  return std::find(outs.begin(), outs.end(), t->id) != outs.end();
}

/// Consumers of `from` read `to` instead.
void rewire(Tensor* from, Tensor* to) {
  const std::vector<Op*> consumers = from->consumers;
  for (Op* c : consumers) {
    for (int i = 0; i < c->numInputs(); ++i) {
      if (c->hasInput(i) && c->input(i) == from) c->connectInput(i, to);
    }
  }
}

bool isInferenceIdentity(const Ir& ir, const Op& op) {
  switch (op.kind()) {
    case OpKind::Identity:
      return true;
    case OpKind::GcDetach:
      return !ir.isTraining();
    case OpKind::Dropout: {
      if (ir.isTraining()) return false;
      if (op.hasOutput(1) && !op.output(1)->consumers.empty()) return false;
      if (op.opset() >= 12 && op.hasInput(2)) {
        const TensorData* d = op.inData(2);
        return d && d->toInt64().at(0) == 0;
      }
      return op.opset() >= 7 || op.attrs.getInt("is_test", 0) != 0;
    }
    default:
      return false;
  }
}

int removeIdentities(Ir& ir) {
  Graph& g = ir.mainGraph();
  int n = 0;
  std::vector<Op*> ops;
  for (const auto& kv : g.ops()) ops.push_back(kv.second.get());
  for (Op* op : ops) {
    if (!isInferenceIdentity(ir, *op) || !op->hasInput(0) || !op->hasOutput(0)) continue;
    Tensor* out = op->output(0);
    if (isKept(ir, out)) continue;
    Tensor* in = op->input(0);
    rewire(out, in);
    std::vector<Tensor*> outs = op->outputs();
    g.removeOp(op);
    for (Tensor* t : outs) {
      if (t) g.removeTensor(t->id);
    }
    ++n;
  }
  return n;
}

int fuseActivations(Ir& ir) {
  Graph& g = ir.mainGraph();
  int n = 0;
  std::vector<Op*> ops;
  for (const auto& kv : g.ops()) ops.push_back(kv.second.get());
  for (Op* act : ops) {
    std::string kind;
    float a = 0, b = 0;
    switch (act->kind()) {
      case OpKind::Relu:
        kind = "Relu";
        break;
      case OpKind::Sigmoid:
        kind = "Sigmoid";
        break;
      case OpKind::Tanh:
        kind = "Tanh";
        break;
      case OpKind::LeakyRelu:
        kind = "LeakyRelu";
        a = act->attrs.getFloat("alpha", 0.01f);
        break;
      case OpKind::Clip: {
        kind = "Clip";
        if (act->opset() < 11) {
          a = act->attrs.getFloat("min", -3.4028234663852886e38f);
          b = act->attrs.getFloat("max", 3.4028234663852886e38f);
        } else {
          a = -3.4028234663852886e38f;
          b = 3.4028234663852886e38f;
          const TensorData* lo = act->inData(1);
          const TensorData* hi = act->inData(2);
          if ((act->hasInput(1) && !lo) || (act->hasInput(2) && !hi)) continue;
          if (lo) a = static_cast<float>(lo->getDouble(0));
          if (hi) b = static_cast<float>(hi->getDouble(0));
        }
        break;
      }
      default:
        continue;
    }
    Tensor* x = act->input(0);
    Op* p = x->producer;
    if (!p || x->consumers.size() != 1 || isKept(ir, x) || x->info.dataType() != DataType::FLOAT) continue;
    if (p->kind() != OpKind::Conv && p->kind() != OpKind::Gemm && p->kind() != OpKind::MatMul) continue;
    if (p->attrs.has("__act")) continue;
    p->attrs.set("__act", kind);
    p->attrs.set("__act_a", a);
    p->attrs.set("__act_b", b);
    Tensor* y = act->output(0);
    g.removeOp(act);
    // The producer now writes the activation's output tensor.
    p->connectOutput(0, y);
    g.removeTensor(x->id);
    ++n;
  }
  return n;
}

}  // namespace

void applyPatterns(Ir& ir) {
  const Patterns& pats = ir.patterns();
  int removed = 0, fused = 0;
  if (pats.isPatternEnabled("PreUniRepl") || pats.isPatternEnabled("OpToIdentity")) removed = removeIdentities(ir);
  if (!ir.isTraining() && pats.level() != PatternsLevel::NoPatterns) fused = fuseActivations(ir);
  logging::pattern::debug("patterns: {} identities removed, {} activations fused", removed, fused);
}

}  // namespace popart
