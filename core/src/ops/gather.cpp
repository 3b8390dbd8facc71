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

void define_Compress(OpDef& d) {
  d.setup = setupCompress;
  d.shapeInputsMask = 2;
}

void define_GatherElements(OpDef& d) {
  d.setup = setupGatherElements;
}
void define_ScatterElements(OpDef& d) {
  d.setup = setupScatterElements;
}
void define_Scatter(OpDef& d) {
  d.setup = setupScatterElements;
}
void define_GatherND(OpDef& d) {
  d.setup = setupGatherND;
}
void define_ScatterND(OpDef& d) {
  d.setup = setupScatterND;
}
void define_TopK(OpDef& d) {
  d.setup = setupTopK;
  d.shapeInputsMask = 2;
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
