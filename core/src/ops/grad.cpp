// Internal training ops: gradient ops that grad rules use where composing forward ops would be
// slow or numerically worse, and the optimizers' weight updates.
#include "ir/op_def.hpp"
#include "ops/losses.hpp"
#include "ops/op_util.hpp"
#include "ops/optim.hpp"

namespace popart {
namespace {

using namespace ops;

/// (dy, y) -> dx, same shape and type as y.
void setupActivationGrad(Op& op) {
  requireFloat(op, 0);
  requireSameType(op, 0, 1);
  if (op.inShape(0) != op.inShape(1))
    throw error("the gradient {} and the activation {} must have the same shape", op.inShape(0), op.inShape(1));
  setOutput(op, 0, op.inInfo(1));
}

void setupSoftmaxGrad(Op& op) {
  setupActivationGrad(op);
  normalizeAxis(op.attrs.getInt("axis", -1), static_cast<int64_t>(op.inShape(1).size()));
}

/// (probs, label, dLoss) -> dProbs
void setupNllGrad(Op& op) {
  requireFloat(op, 0);
  setOutput(op, 0, op.inInfo(0));
}

/// (x, dLoss) -> dx
void setupLossGrad(Op& op) {
  requireFloat(op, 0);
  setOutput(op, 0, op.inInfo(0));
}

/// IdentityLoss's gradient: also of an integer (INT32 / INT64) loss, in its type.
void setupIdentityLossGrad(Op& op) {
  if (!isFloatType(op.inType(0))) requireType(op, 0, {DataType::INT32, DataType::INT64});
  setOutput(op, 0, op.inInfo(0));
}

/// Inputs and attributes: ops/optim.hpp. The velocity (kState0) is the weight's shape.
void setupSGDVarUpdate(Op& op) {
  optim::setupVarUpdate(op);
  const int64_t mode = op.attrs.getInt("mode", 0);
  if (mode < 0 || mode > 2) throw error("unknown SGD mode {}", mode);
  if (mode != 0 && !op.hasInput(optim::kState0)) throw error("SGD{} needs its velocity tensor", mode);
}

}  // namespace

void define_ReluGrad(OpDef& d) {
  d.setup = setupActivationGrad;
}
void define_SigmoidGrad(OpDef& d) {
  d.setup = setupActivationGrad;
}
void define_TanhGrad(OpDef& d) {
  d.setup = setupActivationGrad;
}
void define_SoftmaxGrad(OpDef& d) {
  d.setup = setupSoftmaxGrad;
}
void define_LogSoftmaxGrad(OpDef& d) {
  d.setup = setupSoftmaxGrad;
}
void define_GcNllGrad(OpDef& d) {
  d.setup = setupNllGrad;
}
void define_GcL1Grad(OpDef& d) {
  d.setup = setupLossGrad;
}
void define_GcIdentityLossGrad(OpDef& d) {
  d.setup = setupIdentityLossGrad;
}
void define_SGDVarUpdate(OpDef& d) {
  // The op list's input count must match the layout of ops/optim.hpp.
  if (d.maxInputs != optim::kSgdFirstScalar + 4)
    throw internal_error("SGDVarUpdate: the op list gives {} inputs, the layout has {}", d.maxInputs,
                         optim::kSgdFirstScalar + 4);
  d.setup = setupSGDVarUpdate;
  d.foldable = false;
  d.sideEffect = true;
}

}  // namespace popart
