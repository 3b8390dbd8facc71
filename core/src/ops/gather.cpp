// Gather.
#include <algorithm>

#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace {

using namespace ops;

void setupGather(Op& op) {
  requireType(op, 1, {DataType::INT32, DataType::INT64, DataType::UINT32});
  const Shape& data = op.inShape(0);
  if (data.empty()) throw error("Gather data must have rank >= 1");
  const int64_t axis = normalizeAxis(op.attrs.getInt("axis", 0), static_cast<int64_t>(data.size()));
  Shape out(data.begin(), data.begin() + axis);
  const Shape& idx = op.inShape(1);
  out.insert(out.end(), idx.begin(), idx.end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  if (const TensorData* d = op.inData(1)) {
    const int64_t n = data[static_cast<size_t>(axis)];
    for (auto i : d->toInt64()) {
      if (i < -n || i >= n) throw error("index {} is out of range for axis {} of size {}", i, axis, n);
    }
  }
  setOutput(op, 0, op.inType(0), out);
}

void setupGatherElements(Op& op) {
  requireType(op, 1, {DataType::INT32, DataType::INT64, DataType::UINT32});
  const int64_t r = op.inInfo(0).rank();
  if (op.inInfo(1).rank() != r) throw error("indices {} must have the rank of data {}", op.inShape(1), op.inShape(0));
  normalizeAxis(op.attrs.getInt("axis", 0), r);
  setOutput(op, 0, op.inType(0), op.inShape(1));
}

void setupScatterElements(Op& op) {
  requireType(op, 1, {DataType::INT32, DataType::INT64, DataType::UINT32});
  requireSameType(op, 0, 2);
  const int64_t r = op.inInfo(0).rank();
  if (op.inInfo(1).rank() != r || op.inShape(1) != op.inShape(2))
    throw error("indices {} and updates {} must have the same shape and the rank of data {}", op.inShape(1),
                op.inShape(2), op.inShape(0));
  normalizeAxis(op.attrs.getInt("axis", 0), r);
  const std::string red = op.attrs.getString("reduction", "none");
  if (red != "none" && red != "add" && red != "mul" && red != "max" && red != "min")
    throw error("reduction '{}' is not one of none, add, mul, max, min", red);
  setupSameAsInput0(op);
}

void setupGatherND(Op& op) {
  requireType(op, 1, {DataType::INT64});
  const Shape& data = op.inShape(0);
  const Shape& idx = op.inShape(1);
  const int64_t b = op.attrs.getInt("batch_dims", 0);
  if (idx.empty()) throw error("indices must have rank >= 1");
  const int64_t k = idx.back();
  if (b < 0 || b >= static_cast<int64_t>(std::min(data.size(), idx.size())) || k < 1 ||
      b + k > static_cast<int64_t>(data.size()))
    throw error("indices {} cannot index data {} with batch_dims {}", idx, data, b);
  for (int64_t i = 0; i < b; ++i) {
    if (data[static_cast<size_t>(i)] != idx[static_cast<size_t>(i)])
      throw error("batch dimension {} differs between data {} and indices {}", i, data, idx);
  }
  Shape out(idx.begin(), idx.end() - 1);
  out.insert(out.end(), data.begin() + b + k, data.end());
  setOutput(op, 0, op.inType(0), out);
}

void setupScatterND(Op& op) {
  requireType(op, 1, {DataType::INT64});
  requireSameType(op, 0, 2);
  const Shape& data = op.inShape(0);
  const Shape& idx = op.inShape(1);
  if (idx.empty() || idx.back() > static_cast<int64_t>(data.size()))
    throw error("indices {} cannot index data {}", idx, data);
  Shape upd(idx.begin(), idx.end() - 1);
  upd.insert(upd.end(), data.begin() + idx.back(), data.end());
  if (op.inShape(2) != upd) throw error("updates must have shape {}, got {}", upd, op.inShape(2));
  setupSameAsInput0(op);
}

void setupTopK(Op& op) {
  const Shape& x = op.inShape(0);
  const int64_t axis = normalizeAxis(op.attrs.getInt("axis", -1), static_cast<int64_t>(x.size()));
  int64_t k;
  if (op.opset() < 10) {
    k = op.attrs.getInt("k");
  } else {
    const TensorData& kd = op.requireInData(1, "K");
    if (kd.info().nelms() != 1) throw error("K must hold one value, got {}", kd.info().toString());
    k = kd.toInt64()[0];
  }
  if (k < 0 || k > x[static_cast<size_t>(axis)])
    throw error("K = {} is out of range for axis {} of size {}", k, axis, x[static_cast<size_t>(axis)]);
  Shape out = x;
  out[static_cast<size_t>(axis)] = k;
  setOutput(op, 0, op.inType(0), out);
  setOutput(op, 1, DataType::INT64, out);
}

void setupCompress(Op& op) {
  requireType(op, 1, {DataType::BOOL});
  const auto cond = op.requireInData(1, "the condition (the output size depends on it)").toInt64();
  int64_t kept = 0;
  const Shape& in = op.inShape(0);
  Shape out;
  if (op.attrs.has("axis")) {
    const int64_t axis = normalizeAxis(op.attrs.getInt("axis"), static_cast<int64_t>(in.size()));
    const int64_t n = in[static_cast<size_t>(axis)];
    for (int64_t i = 0; i < std::min<int64_t>(n, static_cast<int64_t>(cond.size())); ++i)
      kept += cond[static_cast<size_t>(i)] != 0;
    out = in;
    out[static_cast<size_t>(axis)] = kept;
  } else {
    const int64_t n = op.inInfo(0).nelms();
    for (int64_t i = 0; i < std::min<int64_t>(n, static_cast<int64_t>(cond.size())); ++i)
      kept += cond[static_cast<size_t>(i)] != 0;
    out = {kept};
  }
  setOutput(op, 0, op.inType(0), out);
}

}  // namespace

namespace {

Tensor* zerosLike(GradCtx& c, const Tensor* t) {
  return c.constant(0.0, t->info.dataType(), t->info.shape());
}

/// Compress along an axis (or of the flattened input): Gather with the constant indices of the
/// kept elements, so GatherGrad places the gradient back.
void gradCompress(GradCtx& c) {
  const auto cond = c.op().requireInData(1, "the condition").toInt64();
  const Shape& in = c.in(0)->info.shape();
  const bool hasAxis = c.op().attrs.has("axis");
  const int64_t axis = hasAxis ? normalizeAxis(c.op().attrs.getInt("axis"), static_cast<int64_t>(in.size())) : 0;
  const int64_t n = hasAxis ? in[static_cast<size_t>(axis)] : c.in(0)->info.nelms();
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < std::min<int64_t>(n, static_cast<int64_t>(cond.size())); ++i)
    if (cond[static_cast<size_t>(i)] != 0) kept.push_back(i);
  Attributes a;
  a.set("axis", axis);
  a.set("data_shape", hasAxis ? in : Shape{n});
  Tensor* g = c.add1(OpKind::GatherGrad, {c.outGrad(0), c.constInts(kept)}, a);
  c.setInGrad(0, c.reshape(g, in));
}

/// GatherElements: the gradient scatter-added at the indices.
void gradGatherElements(GradCtx& c) {
  Attributes a;
  a.set("axis", c.op().attrs.getInt("axis", 0));
  a.set("reduction", std::string("add"));
  c.setInGrad(0, c.add1(OpKind::ScatterElements, {zerosLike(c, c.in(0)), c.in(1), c.outGrad(0)}, a, 16));
}

/// ScatterElements / Scatter: the data's gradient is dY with the overwritten positions zeroed
/// (kept with reduction add); the updates' gradient is dY gathered at the indices.
void gradScatterElements(GradCtx& c) {
  const std::string red = c.op().attrs.getString("reduction", "none");
  if (red != "none" && red != "add")
    throw error("the gradient of a scatter with reduction '{}' is not supported (none and add only)", red);
  Attributes axis;
  axis.set("axis", c.op().attrs.getInt("axis", 0));
  Tensor* g = c.outGrad(0);
  if (c.needsInGrad(0))
    c.setInGrad(0, red == "add" ? g : c.add1(OpKind::ScatterElements, {g, c.in(1), zerosLike(c, c.in(2))}, axis));
  if (c.needsInGrad(2)) c.setInGrad(2, c.add1(OpKind::GatherElements, {g, c.in(1)}, axis));
}

/// GatherND (batch_dims 0): the gradient scatter-added at the indices.
void gradGatherND(GradCtx& c) {
  if (c.op().attrs.getInt("batch_dims", 0) != 0)
    throw error("the gradient of GatherND with batch_dims {} is not supported (0 only)",
                c.op().attrs.getInt("batch_dims", 0));
  Attributes a;
  a.set("reduction", std::string("add"));
  c.setInGrad(0, c.add1(OpKind::ScatterND, {zerosLike(c, c.in(0)), c.in(1), c.outGrad(0)}, a, 16));
}

void gradScatterND(GradCtx& c) {
  const std::string red = c.op().attrs.getString("reduction", "none");
  if (red != "none" && red != "add")
    throw error("the gradient of ScatterND with reduction '{}' is not supported (none and add only)", red);
  Tensor* g = c.outGrad(0);
  if (c.needsInGrad(0))
    c.setInGrad(0, red == "add" ? g : c.add1(OpKind::ScatterND, {g, c.in(1), zerosLike(c, c.in(2))}));
  if (c.needsInGrad(2)) c.setInGrad(2, c.add1(OpKind::GatherND, {g, c.in(1)}));
}

/// TopK: the values' gradient scatter-added at the indices output (the indices get none).
void gradTopK(GradCtx& c) {
  Tensor* g = c.outGrad(0);
  if (!g) return;
  Attributes a;
  a.set("axis", c.op().attrs.getInt("axis", -1));
  a.set("reduction", std::string("add"));
  c.setInGrad(0, c.add1(OpKind::ScatterElements, {zerosLike(c, c.in(0)), c.out(1), g}, a, 16));
}

}  // namespace

void define_Compress(OpDef& d) {
  d.setup = setupCompress;
  d.shapeInputsMask = 2;
  d.grad = gradCompress;
}
void define_GatherElements(OpDef& d) {
  d.setup = setupGatherElements;
  d.grad = gradGatherElements;
}
void define_ScatterElements(OpDef& d) {
  d.setup = setupScatterElements;
  d.grad = gradScatterElements;
}
void define_Scatter(OpDef& d) {
  d.setup = setupScatterElements;
  d.grad = gradScatterElements;
}
void define_GatherND(OpDef& d) {
  d.setup = setupGatherND;
  d.grad = gradGatherND;
}
void define_ScatterND(OpDef& d) {
  d.setup = setupScatterND;
  d.grad = gradScatterND;
}
void define_TopK(OpDef& d) {
  d.setup = setupTopK;
  d.shapeInputsMask = 2;
  d.grad = gradTopK;
}

namespace {

/// Gather (an embedding lookup): the gradient of the data is dY scatter-added at the indices
/// (GatherGrad); the indices get none.
void gradGather(GradCtx& c) {
  const Shape& data = c.in(0)->info.shape();
  Attributes a;
  a.set("axis", normalizeAxis(c.op().attrs.getInt("axis", 0), static_cast<int64_t>(data.size())));
  a.set("data_shape", data);
  c.setInGrad(0, c.add1(OpKind::GatherGrad, {c.outGrad(0), c.in(1)}, a));
}

}  // namespace

void define_Gather(OpDef& d) {
  d.setup = setupGather;
  d.grad = gradGather;
}

}  // namespace popart
