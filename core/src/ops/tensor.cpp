// Tensor creation and rearrangement: EyeLike, Trilu, CumSum, DepthToSpace, SpaceToDepth, OneHot.
#include "ir/op_def.hpp"
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

}  // namespace

void define_EyeLike(OpDef& d) {
  d.setup = setupEyeLike;
}
void define_Trilu(OpDef& d) {
  d.setup = setupTrilu;
}
void define_CumSum(OpDef& d) {
  d.setup = setupCumSum;
}
void define_DepthToSpace(OpDef& d) {
  d.setup = setupDepthToSpace;
}
void define_SpaceToDepth(OpDef& d) {
  d.setup = setupSpaceToDepth;
}
void define_OneHot(OpDef& d) {
  d.setup = setupOneHot;
  d.shapeInputsMask = 2;
}

}  // namespace popart
