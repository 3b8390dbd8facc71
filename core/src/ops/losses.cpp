// Graphcore losses: Nll, L1, IdentityLoss (forward; gradients come with training).
#include "ops/losses.hpp"

#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
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

// ONNX's NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss: input [N, C, d..], target [N, d..].
void setupOnnxLoss(Op& op) {
  requireFloat(op, 0);
  requireType(op, 1, {DataType::INT32, DataType::INT64});
  const Shape& x = op.inShape(0);
  if (x.size() < 2) throw error("the input must have rank >= 2 ([N, C, ...]), got {}", x);
  Shape t = x;
  t.erase(t.begin() + 1);
  if (op.inShape(1) != t)
    throw error("the target must have shape {} (the input {} without C), got {}", t, x, op.inShape(1));
  if (op.hasInput(2)) {
    requireSameType(op, 0, 2);
    if (op.inShape(2) != Shape{x[1]}) throw error("the weights must have shape [{}], got {}", x[1], op.inShape(2));
  }
  const std::string red = op.attrs.getString("reduction", "mean");
  if (red != "mean" && red != "sum" && red != "none") throw error("reduction '{}' is not mean, sum or none", red);
  setOutput(op, 0, op.inType(0), red == "none" ? t : Shape{});
  setOutput(op, 1, op.inType(0), x);  // SoftmaxCrossEntropyLoss's log_prob
}

}  // namespace

void define_NegativeLogLikelihoodLoss(OpDef& d) {
  d.setup = setupOnnxLoss;
}
void define_SoftmaxCrossEntropyLoss(OpDef& d) {
  d.setup = setupOnnxLoss;
}

namespace {

Attributes lossAttrs(const Op& op) {
  return op.attrs;
}

void gradNll(GradCtx& c) {
  c.setInGrad(0, c.add1(OpKind::GcNllGrad, {c.in(0), c.in(1), c.outGrad(0)}, lossAttrs(c.op())));
}
void gradL1(GradCtx& c) {
  c.setInGrad(0, c.add1(OpKind::GcL1Grad, {c.in(0), c.outGrad(0)}, lossAttrs(c.op())));
}
void gradIdentityLoss(GradCtx& c) {
  c.setInGrad(0, c.add1(OpKind::GcIdentityLossGrad, {c.in(0), c.outGrad(0)}, lossAttrs(c.op())));
}

}  // namespace

void define_GcNll(OpDef& d) {
  d.setup = setupNll;
  d.grad = gradNll;
}
void define_GcL1(OpDef& d) {
  d.setup = setupL1;
  d.grad = gradL1;
}
void define_GcIdentityLoss(OpDef& d) {
  d.setup = setupIdentityLoss;
  d.grad = gradIdentityLoss;
}

}  // namespace popart
