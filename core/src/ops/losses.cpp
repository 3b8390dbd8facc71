// Graphcore losses: Nll, L1, IdentityLoss (forward; gradients come with training).
#include "ops/losses.hpp"

#include "ops/op_def.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace ops {

ReductionType lossReduction(const Op& op) {
  return reductionTypeFromString(op.attrs.getString("reduction", "Mean"));
}

}  // namespace ops

namespace {

using namespace ops;

Shape reducedShape(const Op& op, const Shape& perSample) {
  return lossReduction(op) == ReductionType::NoReduction ? perSample : Shape{};
}

void setupNll(Op& op) {
  requireFloat(op, 0);
  requireType(op, 1, {DataType::INT32, DataType::INT64, DataType::UINT32});
  const Shape& probs = op.inShape(0);
  const Shape& label = op.inShape(1);
  if (probs.empty()) throw error("the probabilities tensor must have rank >= 1 ([N.., C]), got {}", probs);
  const Shape expect(probs.begin(), probs.end() - 1);
  if (label != expect)
    throw error(
        "The label tensor ({}) must have shape {} to match all but the final dimension of the "
        "probabilities tensor ({})",
        op.inInfo(1).toString(), expect, op.inInfo(0).toString());
  setOutput(op, 0, op.inType(0), reducedShape(op, expect));
}

void setupL1(Op& op) {
  requireFloat(op, 0);
  op.attrs.getFloat("lambda");
  setOutput(op, 0, op.inType(0), reducedShape(op, op.inShape(0)));
}

void setupIdentityLoss(Op& op) {
  requireFloat(op, 0);
  setOutput(op, 0, op.inType(0), reducedShape(op, op.inShape(0)));
}

}  // namespace

void define_GcNll(OpDef& d) {
  d.minInputs = d.maxInputs = 2;
  d.setup = setupNll;
}
void define_GcL1(OpDef& d) {
  d.setup = setupL1;
}
void define_GcIdentityLoss(OpDef& d) {
  d.setup = setupIdentityLoss;
}

}  // namespace popart
