// Reductions (Reduce*) and ArgMax/ArgMin.
#include <algorithm>

#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"
#include "ops/reduce_axes.hpp"

namespace popart {
namespace ops {

std::vector<int64_t> reduceAxes(const Op& op) {
  const int64_t r = op.inInfo(0).rank();
  // ReduceSum takes axes as an input from opset 13 (the other Reduce ops from opset 18).
  const bool axesInput = op.kind() == OpKind::ReduceSum && op.opset() >= 13;
  std::vector<int64_t> axes;
  bool given = false;
  if (axesInput) {
    if (op.hasInput(1)) {
      axes = op.requireInData(1, "the reduction axes").toInt64();
      given = true;
    }
  } else if (op.attrs.has("axes")) {
    // An explicit empty list reduces over no axis (PopART's ReduceOp: only an absent attribute
    // means every axis): the op is then the identity.
    return normalizeAxes(op.attrs.getInts("axes"), r);
  }
  if (!given || axes.empty()) {
    if (axesInput && op.attrs.getInt("noop_with_empty_axes", 0) != 0) return {};
    axes.resize(static_cast<size_t>(r));
    for (int64_t i = 0; i < r; ++i) axes[static_cast<size_t>(i)] = i;
    return axes;
  }
  return normalizeAxes(axes, r);
}

}  // namespace ops

namespace {

using namespace ops;

void setupReduce(Op& op) {
  if (op.inType(0) == DataType::BOOL || op.inType(0) == DataType::STRING)
    throw error("input 0 must be numeric, got {}", op.inInfo(0).toString());
  const auto axes = reduceAxes(op);
  const bool keep = op.attrs.getInt("keepdims", 1) != 0;
  const Shape& in = op.inShape(0);
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    const bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end();
    if (!reduced)
      out.push_back(in[i]);
    else if (keep)
      out.push_back(1);
  }
  setOutput(op, 0, op.inType(0), out);
}

void setupArg(Op& op) {
  const Shape& in = op.inShape(0);
  const int64_t axis = normalizeAxis(op.attrs.getInt("axis", 0), static_cast<int64_t>(in.size()));
  Shape out = in;
  if (op.attrs.getInt("keepdims", 1) != 0)
    out[static_cast<size_t>(axis)] = 1;
  else
    out.erase(out.begin() + axis);
  // PopART's ArgMax / ArgMin give INT32 indices (ONNX says INT64): Poplar has no 64-bit integers.
  setOutput(op, 0, DataType::INT32, out);
}

void reduceDef(OpDef& d) {
  d.setup = setupReduce;
}

}  // namespace

// clang-format off
namespace {

/// ReduceSum / ReduceMean: the gradient broadcast back over the reduced axes (scaled for Mean).
void gradReduceLinear(GradCtx& c, bool mean) {
  const Shape& in = c.in(0)->info.shape();
  const std::vector<int64_t> axes = ops::reduceAxes(c.op());  // empty: the op is the identity
  Shape kept = in;
  int64_t count = 1;
  for (int64_t a : axes) {
    count *= in[static_cast<size_t>(a)];
    kept[static_cast<size_t>(a)] = 1;
  }
  Tensor* g = c.add1(OpKind::Expand, {c.reshape(c.outGrad(0), kept), c.constInts(in)});
  if (mean && count > 1) {
    Attributes a;
    a.set("scale", static_cast<float>(1.0 / static_cast<double>(count)));
    g = c.add1(OpKind::GcScale, {g}, a);
  }
  c.setInGrad(0, g);
}

void gradReduceSum(GradCtx& c) { gradReduceLinear(c, false); }
void gradReduceMean(GradCtx& c) { gradReduceLinear(c, true); }

}  // namespace

void define_ReduceSum(OpDef& d) { reduceDef(d); d.shapeInputsMask = 2; d.grad = gradReduceSum; }
void define_ReduceMean(OpDef& d) { reduceDef(d); d.grad = gradReduceMean; }
void define_ReduceMax(OpDef& d) { reduceDef(d); }
void define_ReduceMin(OpDef& d) { reduceDef(d); }
void define_ReduceProd(OpDef& d) { reduceDef(d); }
void define_ReduceL1(OpDef& d) { reduceDef(d); }
void define_ReduceL2(OpDef& d) { reduceDef(d); }
void define_ReduceLogSum(OpDef& d) { reduceDef(d); }
void define_ReduceLogSumExp(OpDef& d) { reduceDef(d); }
void define_ReduceSumSquare(OpDef& d) { reduceDef(d); }
void define_ArgMax(OpDef& d) { d.setup = setupArg; }
void define_ArgMin(OpDef& d) { d.setup = setupArg; }
// clang-format on

}  // namespace popart
