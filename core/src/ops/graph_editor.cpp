// GraphEditor and GradCtx: adding ops, constants and gradient reductions to a graph.
#include "ops/graph_editor.hpp"

#include <algorithm>
#include <set>

#include "ir/ir.hpp"
#include "ir/op_def.hpp"
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
  // The gradient ops run where their forward op does (PopART places them the same way).
  for (const char* k : {sVirtualGraphAttribute, sPipelineStageAttribute})
    if (op.attrs.has(k)) placement_.set(k, op.attrs.getInt(k));
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

Tensor* GraphEditor::add1(OpKind kind, const std::vector<Tensor*>& inputs, const Attributes& attrs, int opset) {
  return add(kind, inputs, attrs, 1, opset)[0];
}

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
