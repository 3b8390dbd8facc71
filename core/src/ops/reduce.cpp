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
    return normalizeReduceAxes(op.attrs.getInts("axes"), r);
  }
  if (!given || axes.empty()) {
    if (axesInput && op.attrs.getInt("noop_with_empty_axes", 0) != 0) return {};
    axes.resize(static_cast<size_t>(r));
    for (int64_t i = 0; i < r; ++i) axes[static_cast<size_t>(i)] = i;
    return axes;
  }
  return normalizeReduceAxes(axes, r);
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

/// The input's shape with the reduced axes set to 1 (the output with keepdims), and the number of
/// elements each output reduces.
Shape keptShape(GradCtx& c, int64_t* count = nullptr) {
  const Shape& in = c.in(0)->info.shape();
  const std::vector<int64_t> axes = ops::reduceAxes(c.op());  // empty: the op is the identity
  Shape kept = in;
  int64_t n = 1;
  for (int64_t a : axes) {
    n *= in[static_cast<size_t>(a)];
    kept[static_cast<size_t>(a)] = 1;
  }
  if (count) *count = n;
  return kept;
}

/// ReduceSum / ReduceMean: the gradient broadcast back over the reduced axes (scaled for Mean).
void gradReduceLinear(GradCtx& c, bool mean) {
  int64_t count = 1;
  const Shape kept = keptShape(c, &count);
  Tensor* g = c.add1(OpKind::Expand, {c.reshape(c.outGrad(0), kept), c.constInts(c.in(0)->info.shape())});
  if (mean && count > 1) {
    Attributes a;
    a.set("scale", static_cast<float>(1.0 / static_cast<double>(count)));
    g = c.add1(OpKind::GcScale, {g}, a);
  }
  c.setInGrad(0, g);
}

/// The other reductions: dx = g (kept shape, broadcast) * d(y)/d(x), from forward ops.
struct Reduced {
  Tensor* g;  ///< the output gradient with the kept shape
  Tensor* y;  ///< the output with the kept shape
  Shape kept;
};
Reduced reduced(GradCtx& c) {
  const Shape kept = keptShape(c);
  return {c.reshape(c.outGrad(0), kept), c.reshape(c.out(0), kept), kept};
}
Tensor* zeroOf(GradCtx& c) { return c.constant(0.0, c.in(0)->info.dataType()); }
void setProduct(GradCtx& c, Tensor* g, Tensor* d) { c.setInGrad(0, c.add1(OpKind::Mul, {g, d})); }

/// ReduceMax / ReduceMin: every element equal to the result gets the gradient.
void gradReduceExtremum(GradCtx& c) {
  const Reduced r = reduced(c);
  c.setInGrad(0, c.add1(OpKind::Where, {c.add1(OpKind::Equal, {c.in(0), r.y}), r.g, zeroOf(c)}));
}

/// ReduceProd: the product of the other elements of the group, exact with zeros (no division by
/// a zero): with no zero p / x; with one zero, that element gets the product of the others.
void gradReduceProd(GradCtx& c) {
  const Reduced r = reduced(c);
  Tensor* x = c.in(0);
  const DataType t = x->info.dataType();
  Tensor* isZero = c.add1(OpKind::Equal, {x, zeroOf(c)});
  Tensor* one = c.constant(1.0, t);
  Tensor* nonZero = c.add1(OpKind::Where, {isZero, one, x});
  Attributes keep;
  keep.set("keepdims", int64_t(1));
  std::vector<int64_t> axes;
  for (size_t d = 0; d < r.kept.size(); ++d) {
    if (r.kept[d] != x->info.shape()[d] || x->info.shape()[d] == 1) axes.push_back(static_cast<int64_t>(d));
  }
  keep.set("axes", axes);
  Tensor* prodNonZero = c.add1(OpKind::ReduceProd, {nonZero}, keep);
  Attributes cast;
  cast.set("to", int64_t(onnxDataType(t)));
  Tensor* zeros = c.add1(OpKind::ReduceSum, {c.add1(OpKind::Cast, {isZero}, cast), c.constInts(axes)}, keep);
  Tensor* noZero = c.add1(OpKind::Equal, {zeros, zeroOf(c)});
  Tensor* oneZero = c.add1(OpKind::Equal, {zeros, one});
  Tensor* others = c.add1(
      OpKind::Where,
      {noZero, c.add1(OpKind::Div, {prodNonZero, nonZero}),
       c.add1(OpKind::Where, {c.add1(OpKind::And, {oneZero, isZero}), prodNonZero, zeroOf(c)})});
  setProduct(c, r.g, others);
}

void gradReduceL1(GradCtx& c) { setProduct(c, reduced(c).g, c.add1(OpKind::Sign, {c.in(0)})); }
void gradReduceL2(GradCtx& c) {  // x / y (0 where y = 0)
  const Reduced r = reduced(c);
  Tensor* zero = zeroOf(c);
  Tensor* d = c.add1(OpKind::Div, {c.in(0), r.y});
  setProduct(c, r.g, c.add1(OpKind::Where, {c.add1(OpKind::Equal, {r.y, zero}), zero, d}));
}
void gradReduceLogSum(GradCtx& c) {  // 1 / sum(x) = 1 / e^y
  const Reduced r = reduced(c);
  c.setInGrad(0, c.add1(OpKind::Expand, {c.add1(OpKind::Div, {r.g, c.add1(OpKind::Exp, {r.y})}),
                                         c.constInts(c.in(0)->info.shape())}));
}
void gradReduceLogSumExp(GradCtx& c) {  // e^(x - y)
  const Reduced r = reduced(c);
  setProduct(c, r.g, c.add1(OpKind::Exp, {c.add1(OpKind::Sub, {c.in(0), r.y})}));
}
void gradReduceSumSquare(GradCtx& c) {  // 2 x
  const Reduced r = reduced(c);
  setProduct(c, r.g, c.add1(OpKind::Add, {c.in(0), c.in(0)}));
}

void gradReduceSum(GradCtx& c) { gradReduceLinear(c, false); }
void gradReduceMean(GradCtx& c) { gradReduceLinear(c, true); }

}  // namespace

void define_ReduceSum(OpDef& d) { reduceDef(d); d.shapeInputsMask = 2; d.grad = gradReduceSum; }
void define_ReduceMean(OpDef& d) { reduceDef(d); d.grad = gradReduceMean; }
void define_ReduceMax(OpDef& d) { reduceDef(d); d.grad = gradReduceExtremum; }
void define_ReduceMin(OpDef& d) { reduceDef(d); d.grad = gradReduceExtremum; }
void define_ReduceProd(OpDef& d) { reduceDef(d); d.grad = gradReduceProd; }
void define_ReduceL1(OpDef& d) { reduceDef(d); d.grad = gradReduceL1; }
void define_ReduceL2(OpDef& d) { reduceDef(d); d.grad = gradReduceL2; }
void define_ReduceLogSum(OpDef& d) { reduceDef(d); d.grad = gradReduceLogSum; }
void define_ReduceLogSumExp(OpDef& d) { reduceDef(d); d.grad = gradReduceLogSumExp; }
void define_ReduceSumSquare(OpDef& d) { reduceDef(d); d.grad = gradReduceSumSquare; }
void define_ArgMax(OpDef& d) { d.setup = setupArg; }
void define_ArgMin(OpDef& d) { d.setup = setupArg; }
// clang-format on

}  // namespace popart
