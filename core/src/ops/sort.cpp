// PopART's ordering ops (domain ai.graphcore): Sort [values, indices (INT64)] along an axis
// (PopART's TopK with k the axis size; descending, stable), ReduceMedian [values, indices (INT32)]
// over axes (the lower median, as torch.median; indices count within the reduced elements,
// row-major over the reduced axes) and Bucketize (torch.bucketize's bucket of each input among
// sorted boundaries, INT32). Sort's gradient scatters the values' gradient back to the indices;
// ReduceMedian's puts it at the median of each reduced block (ReduceMedianGrad).
#include <algorithm>

#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace {

using namespace ops;

void requireNumeric(const Op& op, int i) {
  const DataType t = op.inType(i);
  if (t == DataType::BOOL || t == DataType::STRING || t == DataType::UNDEFINED)
    throw error("input {} ('{}') must be a numeric tensor, but it is {}", i, op.input(i)->id, op.inInfo(i).toString());
}

int64_t flag(const Op& op, const char* name) {
  const int64_t v = op.attrs.getInt(name, 0);
  if (v != 0 && v != 1) throw error("{} must be 0 or 1, got {}", name, v);
  return v;
}

void setupSort(Op& op) {
  requireNumeric(op, 0);
  normalizeAxis(op.attrs.getInt("axis", -1), op.inInfo(0).rank());
  flag(op, "descending");
  flag(op, "stable");
  setOutput(op, 0, op.inInfo(0));
  setOutput(op, 1, DataType::INT64, op.inShape(0));
}

/// ReduceMedian's axes: every axis when the attribute is absent, else the given ones (an empty
/// list reduces nothing, as PopART's ReduceOp), normalised and sorted.
std::vector<int64_t> medianAxes(const Attributes& attrs, int64_t rank) {
  std::vector<int64_t> axes;
  if (!attrs.has("axes")) {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
    return axes;
  }
  axes = normalizeReduceAxes(attrs.getInts("axes"), rank);
  std::sort(axes.begin(), axes.end());
  return axes;
}

Shape reducedShape(const Shape& in, const std::vector<int64_t>& axes, bool keep) {
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) == axes.end())
      out.push_back(in[i]);
    else if (keep)
      out.push_back(1);
  }
  return out;
}

void setupReduceMedian(Op& op) {
  requireNumeric(op, 0);
  const auto axes = medianAxes(op.attrs, op.inInfo(0).rank());
  const Shape out = reducedShape(op.inShape(0), axes, op.attrs.getInt("keepdims", 1) != 0);
  for (auto a : axes) {
    if (op.inShape(0)[static_cast<size_t>(a)] == 0)
      throw error("cannot take the median over axis {} of size 0 (input {})", a, op.inShape(0));
  }
  setOutput(op, 0, op.inType(0), out);
  setOutput(op, 1, DataType::INT32, out);
}

void setupReduceMedianGrad(Op& op) {
  // [gradValues, indices] -> gradient of the data (data_shape)
  setOutput(op, 0, op.inType(0), op.attrs.getInts("data_shape"));
}

void setupBucketize(Op& op) {
  requireNumeric(op, 0);
  requireSameType(op, 0, 1);
  if (op.inInfo(1).rank() != 1 || op.inInfo(1).nelms() < 1)
    throw error("boundaries ('{}', {}) must be a non-empty 1-D tensor", op.input(1)->id, op.inInfo(1).toString());
  flag(op, "right");
  setOutput(op, 0, DataType::INT32, op.inShape(0));
}

// ---------------------------------------------------------------- gradients

/// Sort: the values' gradient scattered back to where each value came from.
void gradSort(GradCtx& c) {
  if (!c.needsInGrad(0) || !c.outGrad(0)) return;
  const TensorInfo& in = c.in(0)->info;
  Attributes a;
  a.set("axis", normalizeAxis(c.op().attrs.getInt("axis", -1), in.rank()));
  Tensor* zeros = c.constant(0.0, in.dataType(), in.shape());
  c.setInGrad(0, c.add1(OpKind::ScatterElements, {zeros, c.out(1), c.outGrad(0)}, a));
}

void gradReduceMedian(GradCtx& c) {
  if (!c.needsInGrad(0) || !c.outGrad(0)) return;
  if (!c.op().hasOutput(1))
    throw error("the gradient of ReduceMedian needs its indices output (the node has only the values)");
  const TensorInfo& in = c.in(0)->info;
  Attributes a;
  a.set("axes", medianAxes(c.op().attrs, in.rank()));
  a.set("keepdims", c.op().attrs.getInt("keepdims", 1));
  a.set("data_shape", in.shape());
  c.setInGrad(0, c.add1(OpKind::GcReduceMedianGrad, {c.outGrad(0), c.out(1)}, a));
}

}  // namespace

void define_GcSort(OpDef& d) {
  d.setup = setupSort;
  d.grad = gradSort;
}
void define_GcReduceMedian(OpDef& d) {
  d.setup = setupReduceMedian;
  d.grad = gradReduceMedian;
}
void define_GcBucketize(OpDef& d) {
  d.setup = setupBucketize;
}
void define_GcReduceMedianGrad(OpDef& d) {
  d.setup = setupReduceMedianGrad;
}

}  // namespace popart
