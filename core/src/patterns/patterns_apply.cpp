// The pattern pipeline: the mandatory RandomNormalLikeOpPattern / RandomUniformLikeOpPattern, then
// PopART's pre-alias patterns to a fixed point (patterns/prealias.cpp), then this runtime's
// inference fusions, FuseLayerNorm (a decomposed layer norm becomes one op) and FuseActivation
// (activations after a Conv / Gemm / MatMul run in its kernel's epilogue). InPlace runs after the
// schedule is made (patterns/inplace.hpp, called by passes::prepare).
#include "patterns/patterns_apply.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "ir/ir.hpp"
#include "ir/placement.hpp"
#include "patterns/pattern_util.hpp"
#include "patterns/prealias.hpp"
#include "popart/logging.hpp"

namespace popart {
namespace {

using patterns::isKept;
using patterns::samePlacement;

int fuseActivations(Ir& ir) {
  Graph& g = ir.mainGraph();
  int n = 0;
  std::vector<Op*> ops;
  for (const auto& kv : g.ops()) ops.push_back(kv.second.get());
  for (Op* act : ops) {
    if (!patterns::applies(ir, *act, "FuseActivation")) continue;
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
          const TensorData* lo = act->inConstData(1);  // trainable bounds are not fused
          const TensorData* hi = act->inConstData(2);
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
    const bool addRelu = p->kind() == OpKind::Add && kind == "Relu" && p->outInfo(0).dataType() == DataType::FLOAT;
    if (p->kind() != OpKind::Conv && p->kind() != OpKind::Gemm && p->kind() != OpKind::MatMul && !addRelu) continue;
    if (p->attrs.has("__act") || !samePlacement(*p, *act)) continue;
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

// ---------------------------------------------------------------- LayerNorm fusion
// PyTorch exports LayerNorm before opset 17 as
//   mean = ReduceMean(x, [-1]); d = x - mean; var = ReduceMean(d^2, [-1]);
//   y = d / Sqrt(var + eps) * gamma + beta
// which becomes one LayerNormalization (the kernel computes exactly that).

/// The only consumer of t, if it has exactly one and is not kept (anchor / graph output).
Op* soleConsumerOfKind(const Ir& ir, const Tensor* t, OpKind kind) {
  if (!t || t->consumers.size() != 1 || isKept(ir, t)) return nullptr;
  Op* c = t->consumers[0];
  return c->kind() == kind ? c : nullptr;
}

/// The other input of a binary op (nullptr if `t` is not one of its two inputs).
Tensor* otherInput(const Op* op, const Tensor* t) {
  if (op->numInputs() != 2 || !op->hasInput(0) || !op->hasInput(1)) return nullptr;
  if (op->input(0) == t) return op->input(1);
  if (op->input(1) == t) return op->input(0);
  return nullptr;
}

bool isLastAxisMean(const Op* op) {
  if (op->kind() != OpKind::ReduceMean || op->attrs.getInt("keepdims", 1) == 0) return false;
  const auto axes = op->attrs.getInts("axes", {});
  const int64_t r = op->inInfo(0).rank();
  return axes.size() == 1 && (axes[0] == -1 || axes[0] == r - 1);
}

bool isScalarConst(const Tensor* t, double* v) {
  if (!t || !t->data || t->info.nelms() != 1) return false;
  *v = t->data->getDouble(0);
  return true;
}

int fuseLayerNorms(Ir& ir) {
  Graph& g = ir.mainGraph();
  const OpDef* lnDef = findOpDef("ai.onnx", "LayerNormalization");
  int n = 0;
  std::vector<Op*> ops;
  for (const auto& kv : g.ops()) ops.push_back(kv.second.get());
  std::set<Op*> removed;
  for (Op* rm1 : ops) {
    if (removed.count(rm1) || !isLastAxisMean(rm1) || !patterns::applies(ir, *rm1, "FuseLayerNorm")) continue;
    Tensor* x = rm1->input(0);
    if (x->info.dataType() != DataType::FLOAT) continue;
    Op* sub = soleConsumerOfKind(ir, rm1->output(0), OpKind::Sub);
    if (!sub || sub->input(0) != x || sub->input(1) != rm1->output(0)) continue;
    Tensor* d = sub->output(0);
    if (d->consumers.size() != 2 || isKept(ir, d)) continue;
    Op* pw = nullptr;
    Op* div = nullptr;
    for (Op* c : d->consumers) {
      if (c->kind() == OpKind::Pow) pw = c;
      if (c->kind() == OpKind::Div) div = c;
    }
    double e = 0, eps = 0;
    if (!pw || !div || pw->input(0) != d || !isScalarConst(pw->input(1), &e) || e != 2.0 || div->input(0) != d)
      continue;
    Op* rm2 = soleConsumerOfKind(ir, pw->output(0), OpKind::ReduceMean);
    if (!rm2 || !isLastAxisMean(rm2)) continue;
    Op* addEps = soleConsumerOfKind(ir, rm2->output(0), OpKind::Add);
    if (!addEps || !isScalarConst(otherInput(addEps, rm2->output(0)), &eps)) continue;
    Op* sq = soleConsumerOfKind(ir, addEps->output(0), OpKind::Sqrt);
    if (!sq || soleConsumerOfKind(ir, sq->output(0), OpKind::Div) != div || div->input(1) != sq->output(0)) continue;
    Op* mul = soleConsumerOfKind(ir, div->output(0), OpKind::Mul);
    if (!mul) continue;
    Tensor* gamma = otherInput(mul, div->output(0));
    const int64_t c = x->info.shape().back();
    if (!gamma || gamma->info.shape() != Shape{c} || gamma->info.dataType() != DataType::FLOAT) continue;
    Op* addB = soleConsumerOfKind(ir, mul->output(0), OpKind::Add);
    if (!addB) continue;
    Tensor* beta = otherInput(addB, mul->output(0));
    if (!beta || beta->info.shape() != Shape{c} || beta->info.dataType() != DataType::FLOAT) continue;
    Tensor* y = addB->output(0);
    bool placed = true;
    for (Op* op : {sub, pw, rm2, addEps, sq, div, mul, addB}) placed = placed && samePlacement(*rm1, *op);
    if (!placed) continue;

    Op& ln = g.addOp(*lnDef, rm1->name() + "/LayerNormalization", 17);
    copyPlacement(*rm1, ln.attrs);
    ln.attrs.set("axis", int64_t(-1));
    ln.attrs.set("epsilon", static_cast<float>(eps));
    ln.connectInput(0, x);
    ln.connectInput(1, gamma);
    ln.connectInput(2, beta);
    std::vector<Tensor*> dead;
    for (Op* op : {rm1, sub, pw, rm2, addEps, sq, div, mul, addB}) {
      for (Tensor* t : op->outputs()) {
        if (t && t != y) dead.push_back(t);
      }
      removed.insert(op);
      g.removeOp(op);
    }
    ln.connectOutput(0, y);
    ln.setup();
    for (Tensor* t : dead) g.removeTensor(t->id);
    ++n;
  }
  return n;
}

/// PopART's RandomNormalLikeOpPattern / RandomUniformLikeOpPattern (mandatory): a *Like op becomes
/// the plain op with its input's shape (and its input's type when it has no dtype); the input is
/// no longer read.
int replaceRandomLike(Ir& ir) {
  Graph& g = ir.mainGraph();
  int n = 0;
  std::vector<Op*> ops;
  for (const auto& kv : g.ops()) ops.push_back(kv.second.get());
  for (Op* op : ops) {
    const bool normal = op->kind() == OpKind::RandomNormalLike;
    if ((!normal && op->kind() != OpKind::RandomUniformLike) || !op->hasOutput(0)) continue;
    Attributes attrs = op->attrs;
    attrs.set("shape", std::vector<int64_t>(op->inShape(0).begin(), op->inShape(0).end()));
    if (!attrs.has("dtype")) attrs.set("dtype", int64_t(onnxDataType(op->inType(0))));
    const std::string name = op->name();
    const int opset = op->opset();
    Tensor* y = op->output(0);
    g.removeOp(op);
    Op& r = g.addOp(*findOpDef("ai.onnx", normal ? "RandomNormal" : "RandomUniform"), name, opset);
    r.attrs = std::move(attrs);
    r.connectOutput(0, y);
    ++n;
  }
  return n;
}

}  // namespace

void applyPatterns(Ir& ir) {
  const Patterns& pats = ir.patterns();
  const int likes = replaceRandomLike(ir);
  const std::map<std::string, int> rewrites = applyPreAliasPatterns(ir);
  int norms = 0, fused = 0;
  if (!ir.isTraining() && pats.isPatternEnabled("FuseLayerNorm")) norms = fuseLayerNorms(ir);
  if (!ir.isTraining() && pats.isPatternEnabled("FuseActivation")) fused = fuseActivations(ir);
  int n = 0;
  for (const auto& kv : rewrites) n += kv.second;
  logging::pattern::debug(
      "patterns: {} random *Like ops made plain, {} pre-alias rewrites, {} layer norms and {} activations fused", likes,
      n, norms, fused);
}

}  // namespace popart
