// GraphEditor and GradCtx: adding ops, constants and gradient reductions to a graph.
#include "ops/graph_editor.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "ir/placement.hpp"
#include "ops/op_util.hpp"
#include "popart/error.hpp"
#include "popart/half.hpp"
#include "popart/logging.hpp"
#include "popart/names.hpp"

namespace popart {

GradCtx::GradCtx(Graph& graph, const Op& op, std::vector<Tensor*> outGrads, std::vector<bool> needsInGrad)
    : GraphEditor(graph, op.name() + "/grad"),
      op_(op),
      outGrads_(std::move(outGrads)),
      needsInGrad_(std::move(needsInGrad)) {
  // The gradient ops run where their forward op does (PopART places them the same way), in the
  // mirrored execution phase with phased execution.
  copyPlacement(op, placement_);
  toBackwardPhase(graph.ir().options(), placement_);
}

Tensor* GradCtx::outGrad(int i) const {
  return i >= 0 && i < static_cast<int>(outGrads_.size()) ? outGrads_[static_cast<size_t>(i)] : nullptr;
}

bool GradCtx::needsInGrad(int i) const {
  return i >= 0 && i < static_cast<int>(needsInGrad_.size()) && needsInGrad_[static_cast<size_t>(i)];
}

void GradCtx::setInGrad(int i, Tensor* g) {
  if (!needsInGrad(i) || !g) return;
  if (g->info.shape() != in(i)->info.shape())
    throw internal_error("the grad rule of {} gives input {} a gradient of shape {}, but the input is {}",
                         op_.describe(), i, g->info.shape(), in(i)->info.shape());
  inGrads_[i] = g;
}

std::vector<Tensor*> GraphEditor::add(OpKind kind, const std::vector<Tensor*>& inputs, const Attributes& attrs,
                                      int numOutputs, int opset) {
  const OpDef& def = opDef(kind);
  const std::string base = prefix_ + "/" + def.type;
  Op& op = graph_.addOp(def, base, def.domain == "ai.onnx" ? opset : 1);
  op.attrs = attrs;
  for (const auto& kv : placement_.all())
    if (!op.attrs.has(kv.first)) op.attrs.set(kv.first, kv.second);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i]) op.connectInput(static_cast<int>(i), inputs[i]);
  }
  added_.push_back(&op);
  std::vector<Tensor*> outs;
  for (int o = 0; o < numOutputs; ++o) {
    const TensorId id = graph_.uniqueTensorId(base + ":" + std::to_string(counter_++));
    Tensor& t = graph_.addTensor(id, TensorKind::ActGrad, TensorInfo());
    op.connectOutput(o, &t);
    outs.push_back(&t);
  }
  op.setup();
  return outs;
}

std::vector<Tensor*> GraphEditor::inlineGraph(const Graph& body, const std::vector<Tensor*>& inputs,
                                              const std::string& what, const std::map<TensorId, Tensor*>* outer) {
  std::map<TensorId, Tensor*> m;
  for (size_t i = 0; i < body.inputIds.size(); ++i) m[body.inputIds[i]] = inputs.at(i);
  for (const TensorId& id : body.implicitInputIds) {
    Tensor* t = nullptr;
    if (outer) {
      auto it = outer->find(id);
      if (it != outer->end()) t = it->second;
    } else {
      t = graph_.tensor(id);
    }
    if (!t) throw internal_error("the outer tensor '{}' of {} was not found", id, what);
    m[id] = t;
  }
  for (const auto& kv : body.tensors()) {
    const Tensor& t = *kv.second;
    if (m.count(t.id) || t.producer || t.kind != TensorKind::Const || !t.data) continue;
    Tensor& copy = graph_.addTensor(graph_.uniqueTensorId(prefix_ + "/" + t.id), TensorKind::Const, t.info);
    copy.data = *t.data;
    m[t.id] = &copy;
  }
  const auto bound = [&](const Tensor* t) {
    auto it = m.find(t->id);
    if (it == m.end()) throw internal_error("the body tensor '{}' of {} is not bound", t->id, what);
    return it->second;
  };
  for (Op* op : body.topologicalOrder()) {
    std::vector<Tensor*> outs;
    if (op->kind() == OpKind::GcCall) {  // a nested call: its callee inlined in its place
      std::vector<Tensor*> args;
      for (int i = 0; i < op->numFormalInputs; ++i) args.push_back(bound(op->input(i)));
      outs = inlineGraph(*op->subgraphs.at(0), args, what, &m);
    } else {
      if (!op->subgraphs.empty())
        throw error("the gradient of {} is not supported: its body holds control flow ({})", what, op->describe());
      std::vector<Tensor*> ins;
      for (Tensor* t : op->inputs()) ins.push_back(t ? bound(t) : nullptr);
      outs = add(op->kind(), ins, op->attrs, op->numOutputs(), op->opset());
    }
    for (int o = 0; o < op->numOutputs(); ++o) {
      if (op->hasOutput(o)) m[op->output(o)->id] = outs[static_cast<size_t>(o)];
    }
  }
  std::vector<Tensor*> outs;
  for (const TensorId& id : body.outputIds) outs.push_back(m.at(id));
  return outs;
}

Tensor* GraphEditor::add1(OpKind kind, const std::vector<Tensor*>& inputs, const Attributes& attrs, int opset) {
  return add(kind, inputs, attrs, 1, opset)[0];
}

std::vector<Tensor*> GraphEditor::backprop(size_t mark, const std::vector<std::pair<Tensor*, Tensor*>>& seeds,
                                           const std::vector<Tensor*>& wrt) {
  const std::vector<Op*> ops(added_.begin() + static_cast<std::ptrdiff_t>(mark), added_.end());
  return backprop(ops, seeds, wrt);
}

std::vector<Tensor*> GraphEditor::backprop(const std::vector<Op*>& ops,
                                           const std::vector<std::pair<Tensor*, Tensor*>>& seeds,
                                           const std::vector<Tensor*>& wrt) {
  // Floating-point tensors the wrt tensors lead to (ops are in forward order).
  std::set<const Tensor*> reached(wrt.begin(), wrt.end());
  for (Op* op : ops) {
    bool fromWrt = false;
    for (Tensor* t : op->inputs()) fromWrt = fromWrt || (t && reached.count(t));
    if (!fromWrt) continue;
    for (Tensor* t : op->outputs()) {
      if (t && ops::isFloatType(t->info.dataType())) reached.insert(t);
    }
  }
  std::map<const Tensor*, std::vector<Tensor*>> contribs;
  for (const auto& s : seeds) {
    if (s.first && s.second) contribs[s.first].push_back(s.second);
  }
  auto total = [&](const Tensor* t) -> Tensor* {
    auto it = contribs.find(t);
    if (it == contribs.end() || it->second.empty()) return nullptr;
    if (it->second.size() > 1) it->second = {add1(OpKind::Sum, it->second)};
    return it->second[0];
  };
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    Op* op = *it;
    std::vector<bool> needs;
    bool anyNeeded = false;
    for (int i = 0; i < op->numInputs(); ++i) {
      needs.push_back(op->hasInput(i) && reached.count(op->input(i)) != 0);
      anyNeeded = anyNeeded || needs.back();
    }
    if (!anyNeeded) continue;
    std::vector<Tensor*> outGrads;
    bool anyOut = false;
    for (int o = 0; o < op->numOutputs(); ++o) {
      outGrads.push_back(op->hasOutput(o) ? total(op->output(o)) : nullptr);
      anyOut = anyOut || outGrads.back();
    }
    if (!anyOut) continue;
    if (!op->def().grad) throw internal_error("the decomposition uses {}, which has no grad rule", op->describe());
    GradCtx ctx(graph_, *op, outGrads, needs);
    op->def().grad(ctx);
    for (const auto& kv : ctx.inGrads()) contribs[op->input(kv.first)].push_back(kv.second);
  }
  std::vector<Tensor*> result;
  for (Tensor* t : wrt) result.push_back(t ? total(t) : nullptr);
  return result;
}

namespace {

/// `value` as a whole number in [-limit, limit) for an integer gradient of `info` (a loss scaling
/// of inf or 1e30 does not fit one).
double integerGradValue(double value, const TensorInfo& info, double limit) {
  if (!(value >= -limit && value < limit))
    throw error("A gradient of {} tensors cannot hold {} (the loss scaling, or the value the gradient starts from)",
                dataTypeToString(info.dataType()), value);
  return std::trunc(value);
}

}  // namespace

TensorData filledGradData(double value, const TensorInfo& info) {
  TensorData d(info);
  const int64_t n = info.nelms();
  switch (info.dataType()) {
    case DataType::FLOAT:
      std::fill(d.as<float>(), d.as<float>() + n, static_cast<float>(value));
      break;
    case DataType::DOUBLE:
      std::fill(d.as<double>(), d.as<double>() + n, value);
      break;
    case DataType::FLOAT16:
      std::fill(d.as<float16_t>(), d.as<float16_t>() + n, float16_t(static_cast<float>(value)));
      break;
    case DataType::INT32:
      std::fill(d.as<int32_t>(), d.as<int32_t>() + n, static_cast<int32_t>(integerGradValue(value, info, 0x1p31)));
      break;
    case DataType::INT64:
      std::fill(d.as<int64_t>(), d.as<int64_t>() + n, static_cast<int64_t>(integerGradValue(value, info, 0x1p63)));
      break;
    default:
      throw error("gradients of {} tensors are not supported (floating-point types only)",
                  dataTypeToString(info.dataType()));
  }
  return d;
}

Tensor* GraphEditor::constant(double value, DataType type, const Shape& shape) {
  const TensorInfo info(type, shape);
  Tensor& t = graph_.addTensor(graph_.uniqueTensorId(prefix_ + "/const"), TensorKind::Const, info);
  t.data = filledGradData(value, info);
  return &t;
}

Tensor* GraphEditor::constInts(const std::vector<int64_t>& v) {
  const TensorInfo info(DataType::INT64, {static_cast<int64_t>(v.size())});
  Tensor& t = graph_.addTensor(graph_.uniqueTensorId(prefix_ + "/ints"), TensorKind::Const, info);
  t.data = TensorData(info, v.data());
  return &t;
}

Tensor* GraphEditor::zeros(const TensorInfo& info) {
  Tensor& t = graph_.addTensor(graph_.uniqueTensorId(prefix_ + "/zeros"), TensorKind::Const, info);
  t.data = TensorData(info);  // zero-filled
  return &t;
}

Tensor* GraphEditor::slice(Tensor* x, int64_t axis, int64_t begin, int64_t end) {
  return add1(OpKind::Slice, {x, constInts({begin}), constInts({end}), constInts({axis})});
}

Tensor* GraphEditor::reshape(Tensor* g, const Shape& shape) {
  if (g->info.shape() == shape) return g;
  return add1(OpKind::Reshape, {g, constInts(shape)});
}

Tensor* GraphEditor::reduceTo(Tensor* g, const Shape& shape) {
  const Shape& gs = g->info.shape();
  if (gs == shape) return g;
  const size_t extra = gs.size() - shape.size();
  std::vector<int64_t> axes;
  for (size_t d = 0; d < gs.size(); ++d) {
    if (d < extra || (shape[d - extra] == 1 && gs[d] != 1)) axes.push_back(static_cast<int64_t>(d));
  }
  Tensor* r = g;
  if (!axes.empty()) {
    Attributes a;
    a.set("keepdims", int64_t(1));
    r = add1(OpKind::ReduceSum, {g, constInts(axes)}, a);
  }
  return reshape(r, shape);
}

}  // namespace popart
