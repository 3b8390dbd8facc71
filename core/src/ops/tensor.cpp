// Tensor creation and rearrangement: EyeLike, Trilu, CumSum, DepthToSpace, SpaceToDepth, OneHot,
// and Graphcore's Reverse and DepthToSpace.
#include <algorithm>

#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace {

using namespace ops;

void setupEyeLike(Op& op) {
  requireRank(op, 0, 2);
  DataType t = op.inType(0);
  if (op.attrs.has("dtype")) t = dataTypeFromOnnx(static_cast<int>(op.attrs.getInt("dtype")));
  setOutput(op, 0, t, op.inShape(0));
}

void setupTrilu(Op& op) {
  requireRank(op, 0, 2, true);
  if (op.hasInput(1) && op.inInfo(1).nelms() != 1) throw error("k must be a scalar, got {}", op.inInfo(1).toString());
  setupSameAsInput0(op);
}

void setupCumSum(Op& op) {
  requireType(op, 1, {DataType::INT32, DataType::INT64});
  if (op.inInfo(1).nelms() != 1) throw error("axis must be a scalar, got {}", op.inInfo(1).toString());
  if (const TensorData* a = op.inData(1)) normalizeAxis(a->toInt64()[0], op.inInfo(0).rank());
  setupSameAsInput0(op);
}

void setupDepthToSpace(Op& op) {
  requireRank(op, 0, 4);
  const int64_t b = op.attrs.getInt("blocksize");
  const Shape& x = op.inShape(0);
  if (b <= 0 || x[1] % (b * b) != 0)
    throw error("the channel count {} is not divisible by blocksize^2 ({}^2)", x[1], b);
  const std::string mode = op.attrs.getString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") throw error("mode '{}' is not DCR or CRD", mode);
  setOutput(op, 0, op.inType(0), {x[0], x[1] / (b * b), x[2] * b, x[3] * b});
}

void setupSpaceToDepth(Op& op) {
  requireRank(op, 0, 4);
  const int64_t b = op.attrs.getInt("blocksize");
  const Shape& x = op.inShape(0);
  if (b <= 0 || x[2] % b != 0 || x[3] % b != 0)
    throw error("the spatial dimensions of {} are not divisible by blocksize {}", x, b);
  setOutput(op, 0, op.inType(0), {x[0], x[1] * b * b, x[2] / b, x[3] / b});
}

void setupOneHot(Op& op) {
  const TensorData& depthData = op.requireInData(1, "the depth");
  if (depthData.info().nelms() != 1) throw error("depth must be a scalar, got {}", depthData.info().toString());
  const int64_t depth = static_cast<int64_t>(depthData.getDouble(0));
  if (depth <= 0) throw error("depth must be positive, got {}", depth);
  if (op.inInfo(2).nelms() != 2) throw error("values must hold [off, on], got {}", op.inInfo(2).toString());
  Shape out = op.inShape(0);
  const int64_t r = static_cast<int64_t>(out.size()) + 1;
  const int64_t axis = normalizeAxis(op.attrs.getInt("axis", -1), r);
  out.insert(out.begin() + axis, depth);
  setOutput(op, 0, op.inType(2), out);
}

void setupReverse(Op& op) {
  // aiGraphcore.reverse is PopART's op: its dimensions are non-negative, below the rank, distinct.
  const int64_t rank = op.inInfo(0).rank();
  const auto dims = op.attrs.getInts("dimensions");
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 0)), false);
  for (auto d : dims) {
    if (d < 0)
      throw error("ReverseOp '{}' invalid dimension '{}'. Only positive dimensions are supported", op.name(), d);
    if (d >= rank) throw error("ReverseOp '{}' invalid dimension '{}' for input tensor of rank {}", op.name(), d, rank);
    if (seen[static_cast<size_t>(d)])
      throw error("Dimension {} appears multiple times in the list of dimensions of ReverseOp '{}'", d, op.name());
    seen[static_cast<size_t>(d)] = true;
  }
  setupSameAsInput0(op);
}

// ---------------------------------------------------------------- grad rules

/// Reverse: the gradient reversed along the same dimensions.
void gradReverse(GradCtx& c) {
  Attributes a;
  a.set("dimensions", c.op().attrs.getInts("dimensions"));
  c.setInGrad(0, c.add1(OpKind::GcReverse, {c.outGrad(0)}, a));
}

/// dY seen with `outDims`, transposed by the inverse of `perm` and reshaped to X's shape: the
/// gradient of out = reshape(transpose(reshape(x, dims), perm)) (DepthToSpace, SpaceToDepth).
void gradPermute(GradCtx& c, const Shape& dims, const std::vector<int64_t>& perm) {
  Shape permuted;
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    permuted.push_back(dims[static_cast<size_t>(perm[i])]);
    inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  }
  Attributes a;
  a.set("perm", inv);
  Tensor* t = c.add1(OpKind::Transpose, {c.reshape(c.outGrad(0), permuted)}, a);
  c.setInGrad(0, c.reshape(t, c.in(0)->info.shape()));
}

void gradDepthToSpace(GradCtx& c) {
  const Shape& x = c.in(0)->info.shape();
  const int64_t b = c.op().attrs.getInt("blocksize"), N = x[0], C = x[1], H = x[2], W = x[3];
  if (c.op().attrs.getString("mode", "DCR") == "DCR")
    gradPermute(c, {N, b, b, C / (b * b), H, W}, {0, 3, 4, 1, 5, 2});
  else
    gradPermute(c, {N, C / (b * b), b, b, H, W}, {0, 1, 4, 2, 5, 3});
}

void gradSpaceToDepth(GradCtx& c) {
  const Shape& x = c.in(0)->info.shape();
  const int64_t b = c.op().attrs.getInt("blocksize"), N = x[0], C = x[1], H = x[2], W = x[3];
  gradPermute(c, {N, C, H / b, b, W / b, b}, {0, 3, 5, 1, 2, 4});
}

}  // namespace

namespace {

/// Trilu is linear: the gradient is the same triangle of dY.
void gradTrilu(GradCtx& c) {
  Attributes a;
  a.set("upper", c.op().attrs.getInt("upper", 1));
  c.setInGrad(0, c.add1(OpKind::Trilu, {c.outGrad(0), c.op().hasInput(1) ? c.in(1) : nullptr}, a, 14));
}

/// CumSum: the cumulative sum of dY in the other direction (exclusive stays exclusive).
void gradCumSum(GradCtx& c) {
  Attributes a;
  a.set("exclusive", c.op().attrs.getInt("exclusive", 0));
  a.set("reverse", int64_t(c.op().attrs.getInt("reverse", 0) != 0 ? 0 : 1));
  c.setInGrad(0, c.add1(OpKind::CumSum, {c.outGrad(0), c.in(1)}, a));
}

/// OneHot(indices, depth, values = [off, on]): d on = sum(dY at the hot positions), d off = the
/// rest of sum(dY). The indices and depth get none.
void gradOneHot(GradCtx& c) {
  if (!c.needsInGrad(2)) return;
  Tensor* values = c.in(2);
  const DataType t = values->info.dataType();
  Tensor* g = c.outGrad(0);
  const double zo[2] = {0.0, 1.0};
  Tensor& zeroOne = c.graph().addTensor(c.graph().uniqueTensorId(c.op().name() + "/grad/zeroOne"), TensorKind::Const,
                                        TensorInfo(t, {2}));
  zeroOne.data = TensorData(TensorInfo(DataType::DOUBLE, {2}), zo).castTo(t);
  Attributes axis;
  axis.set("axis", c.op().attrs.getInt("axis", -1));
  Tensor* hot = c.add1(OpKind::OneHot, {c.in(0), c.in(1), &zeroOne}, axis, 11);
  Attributes flat;
  flat.set("keepdims", int64_t(0));
  Tensor* on = c.add1(OpKind::ReduceSum, {c.add1(OpKind::Mul, {g, hot})}, flat);
  Tensor* all = c.add1(OpKind::ReduceSum, {g}, flat);
  Tensor* off = c.add1(OpKind::Sub, {all, on});
  Attributes cat;
  cat.set("axis", int64_t(0));
  c.setInGrad(2, c.add1(OpKind::Concat, {c.reshape(off, {1}), c.reshape(on, {1})}, cat));
}

}  // namespace

void define_EyeLike(OpDef& d) {
  d.setup = setupEyeLike;
}
void define_Trilu(OpDef& d) {
  d.setup = setupTrilu;
  d.grad = gradTrilu;
}
void define_CumSum(OpDef& d) {
  d.setup = setupCumSum;
  d.grad = gradCumSum;
}
void define_DepthToSpace(OpDef& d) {
  d.setup = setupDepthToSpace;
  d.grad = gradDepthToSpace;
}
void define_SpaceToDepth(OpDef& d) {
  d.setup = setupSpaceToDepth;
  d.grad = gradSpaceToDepth;
}
void define_OneHot(OpDef& d) {
  d.setup = setupOneHot;
  d.shapeInputsMask = 2;
  d.grad = gradOneHot;
}
void define_GcReverse(OpDef& d) {
  d.setup = setupReverse;
  d.grad = gradReverse;
}
void define_GcDepthToSpace(OpDef& d) {
  d.setup = setupDepthToSpace;
  d.grad = gradDepthToSpace;
}

}  // namespace popart
