// Normalization: BatchNormalization, InstanceNormalization, LayerNormalization; Dropout.
#include "ops/op_def.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace {

using namespace ops;

void setupBatchNorm(Op& op) {
  requireFloat(op, 0);
  const Shape& x = op.inShape(0);
  if (x.size() < 2) throw error("input X must have rank >= 2 ([N, C, ...]), got {}", x);
  if (op.opset() < 9 && op.attrs.getInt("spatial", 1) == 0)
    throw error("BatchNormalization with spatial=0 is not supported");
  const Shape c{x[1]};
  const char* names[] = {"", "scale", "B", "mean", "var"};
  for (int i = 1; i < 5; ++i) {
    if (op.inShape(i) != c)
      throw error("input {} ({} '{}') must have shape [{}] (the channel count of X {}), got {}", i, names[i],
                  op.input(i)->id, x[1], x, op.inShape(i));
  }
  setupSameAsInput0(op);
  for (int i = 1; i < op.numOutputs(); ++i) setOutput(op, i, op.inType(3), c);
}

void setupInstanceNorm(Op& op) {
  requireFloat(op, 0);
  const Shape& x = op.inShape(0);
  if (x.size() < 3) throw error("input X must have rank >= 3 ([N, C, spatial...]), got {}", x);
  for (int i = 1; i < 3; ++i) {
    if (op.inShape(i) != Shape{x[1]})
      throw error("input {} ('{}') must have shape [{}], got {}", i, op.input(i)->id, x[1], op.inShape(i));
  }
  setupSameAsInput0(op);
}

void setupLayerNorm(Op& op) {
  requireFloat(op, 0);
  const Shape& x = op.inShape(0);
  const int64_t axis = normalizeAxis(op.attrs.getInt("axis", -1), static_cast<int64_t>(x.size()));
  const Shape norm(x.begin() + axis, x.end());
  for (int i = 1; i < 3; ++i) {
    if (!op.hasInput(i)) continue;
    Shape b;
    try {
      b = npOut(norm, op.inShape(i));
    } catch (const error&) {
    }
    if (b != norm)
      throw error("input {} ('{}') with shape {} does not broadcast to the normalized shape {}", i, op.input(i)->id,
                  op.inShape(i), norm);
  }
  setupSameAsInput0(op);
  Shape stat = x;
  for (size_t i = static_cast<size_t>(axis); i < stat.size(); ++i) stat[i] = 1;
  const int64_t stash = op.attrs.getInt("stash_type", 1);
  const DataType st = stash == 1 ? DataType::FLOAT : op.inType(0);
  setOutput(op, 1, st, stat);
  setOutput(op, 2, st, stat);
}

void setupDropout(Op& op) {
  if (op.opset() >= 12) {
    requireFloat(op, 0);
    if (op.hasInput(1) && op.inInfo(1).nelms() != 1) throw error("ratio must be a scalar");
    if (op.hasInput(2)) requireType(op, 2, {DataType::BOOL});
  } else {
    const float ratio = op.attrs.getFloat("ratio", 0.5f);
    if (ratio < 0.0f || ratio >= 1.0f) throw error("ratio {} must be in [0, 1)", ratio);
  }
  setupSameAsInput0(op);
  setOutput(op, 1, op.opset() >= 10 ? DataType::BOOL : op.inType(0), op.inShape(0));
}

}  // namespace

void define_BatchNormalization(OpDef& d) {
  d.minInputs = d.maxInputs = 5;
  d.maxOutputs = 5;
  d.setup = setupBatchNorm;
}
void define_InstanceNormalization(OpDef& d) {
  d.minInputs = d.maxInputs = 3;
  d.setup = setupInstanceNorm;
}
void define_LayerNormalization(OpDef& d) {
  d.minInputs = 2;
  d.maxInputs = 3;
  d.maxOutputs = 3;
  d.sinceOpset = 17;
  d.setup = setupLayerNorm;
}
void define_Dropout(OpDef& d) {
  d.minInputs = 1;
  d.maxInputs = 3;
  d.maxOutputs = 2;
  d.setup = setupDropout;
  d.foldable = false;
}

}  // namespace popart
