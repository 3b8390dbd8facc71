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
  if (label != expect)  // PopART's message, with its TensorInfo printing ("INT32   [2 5]")
    throw error(
        "The label tensor ({}) must have shape {} to match all but the final dimension of the "
        "probabilities tensor ({})",
        popartInfo(op.inInfo(1)), expect, popartInfo(op.inInfo(0)));
  setOutput(op, 0, op.inType(0), reducedShape(op, expect));
}

/// SoftmaxGradDirect (probs, label, dLoss) -> dLogits: the gradient of Nll(Softmax(logits)) by
/// the logits, with the Nll's attributes.
void setupSoftmaxGradDirect(Op& op) {
  setupNll(op);
  setOutput(op, 0, op.inInfo(0));
}

/// NlllWithSoftmaxGradDirect (probs, label, dLoss) -> (loss, dLogits): the Nll and that gradient.
void setupNlllWithSoftmaxGradDirect(Op& op) {
  setupNll(op);
  setOutput(op, 1, op.inInfo(0));
}

void setupL1(Op& op) {
  requireFloat(op, 0);
  op.attrs.getFloat("lambda");
  setOutput(op, 0, op.inType(0), reducedShape(op, op.inShape(0)));
}

void setupIdentityLoss(Op& op) {
  // Any numeric type: PopART's IdentityLoss of an integer tensor is an integer loss (differentiated
  // in the integer type, as its reducemedian tests train on INT32 data).
  if (!isFloatType(op.inType(0))) requireType(op, 0, {DataType::INT32, DataType::INT64});
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

namespace {

/// ONNX's NegativeLogLikelihoodLoss recomputed from forward ops (as the CPU kernel computes it):
/// per-sample weights w[t] (0 where ignored), the picked log-probabilities through a one-hot mask,
/// then the reduction (mean: divided by the weights' sum, 0 when that is 0).
Tensor* composedNll(GradCtx& c, Tensor* lp) {
  const Op& op = c.op();
  Tensor* target = c.in(1);
  const DataType t = lp->info.dataType();
  const int64_t C = lp->info.shape()[1];
  Attributes toT;
  toT.set("to", int64_t(onnxDataType(t)));
  Tensor* valid = nullptr;
  Tensor* safe = target;
  if (op.attrs.has("ignore_index")) {
    const int64_t ig = op.attrs.getInt("ignore_index");
    Tensor& it = c.graph().addTensor(c.graph().uniqueTensorId(op.name() + "/grad/ignore_index"), TensorKind::Const,
                                     TensorInfo(target->info.dataType(), {}));
    it.data = TensorData::scalarInt64(ig).castTo(target->info.dataType());
    valid = c.add1(OpKind::Not, {c.add1(OpKind::Equal, {target, &it})});
    Tensor& zero = c.graph().addTensor(c.graph().uniqueTensorId(op.name() + "/grad/zero_index"), TensorKind::Const,
                                       TensorInfo(target->info.dataType(), {}));
    zero.data = TensorData::scalarInt64(0).castTo(target->info.dataType());
    safe = c.add1(OpKind::Where, {valid, target, &zero});
  }
  Attributes ax0;
  ax0.set("axis", int64_t(0));
  Tensor* wt = op.hasInput(2) ? c.add1(OpKind::Gather, {c.in(2), safe}, ax0) : c.constant(1.0, t, target->info.shape());
  if (valid) wt = c.add1(OpKind::Mul, {wt, c.add1(OpKind::Cast, {valid}, toT)});
  const double zo[2] = {0.0, 1.0};
  Tensor& zeroOne =
      c.graph().addTensor(c.graph().uniqueTensorId(op.name() + "/grad/zeroOne"), TensorKind::Const, TensorInfo(t, {2}));
  zeroOne.data = TensorData(TensorInfo(DataType::DOUBLE, {2}), zo).castTo(t);
  Attributes ax1;
  ax1.set("axis", int64_t(1));
  Tensor* hot = c.add1(OpKind::OneHot, {safe, c.constInts({C}), &zeroOne}, ax1, 11);
  Attributes keep0;
  keep0.set("keepdims", int64_t(0));
  Tensor* picked = c.add1(OpKind::ReduceSum, {c.add1(OpKind::Mul, {lp, hot}), c.constInts({1})}, keep0);
  Tensor* per = c.add1(OpKind::Neg, {c.add1(OpKind::Mul, {picked, wt})});
  const std::string red = op.attrs.getString("reduction", "mean");
  if (red == "none") return per;
  Tensor* sum = c.add1(OpKind::ReduceSum, {per}, keep0);
  if (red == "sum") return sum;
  Tensor* wsum = c.add1(OpKind::ReduceSum, {wt}, keep0);
  Tensor* zeroT = c.constant(0.0, t);
  Tensor* denom = c.add1(OpKind::Where, {c.add1(OpKind::Equal, {wsum, zeroT}), c.constant(1.0, t), wsum});
  return c.add1(OpKind::Div, {sum, denom});
}

/// NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss: the gradients of the input and the
/// weights through the composed loss (and SoftmaxCrossEntropyLoss's log_prob output).
void gradOnnxLoss(GradCtx& c, bool softmax) {
  const size_t mark = c.numAdded();
  Tensor* lp = c.in(0);
  if (softmax) {
    Attributes a;
    a.set("axis", int64_t(1));
    lp = c.add1(OpKind::LogSoftmax, {c.in(0)}, a);
  }
  Tensor* loss = composedNll(c, lp);
  std::vector<std::pair<Tensor*, Tensor*>> seeds{{loss, c.outGrad(0)}};
  if (softmax && c.op().hasOutput(1)) seeds.emplace_back(lp, c.outGrad(1));
  const std::vector<Tensor*> g =
      c.backprop(mark, seeds, {c.needsInGrad(0) ? c.in(0) : nullptr, c.needsInGrad(2) ? c.in(2) : nullptr});
  if (g[0]) c.setInGrad(0, g[0]);
  if (g[1]) c.setInGrad(2, g[1]);
}
void gradNegativeLogLikelihoodLoss(GradCtx& c) {
  gradOnnxLoss(c, false);
}
void gradSoftmaxCrossEntropyLoss(GradCtx& c) {
  gradOnnxLoss(c, true);
}

}  // namespace

void define_NegativeLogLikelihoodLoss(OpDef& d) {
  d.setup = setupOnnxLoss;
  d.grad = gradNegativeLogLikelihoodLoss;
}
void define_SoftmaxCrossEntropyLoss(OpDef& d) {
  d.setup = setupOnnxLoss;
  d.grad = gradSoftmaxCrossEntropyLoss;
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
void define_SoftmaxGradDirect(OpDef& d) {
  d.setup = setupSoftmaxGradDirect;
}
void define_NlllWithSoftmaxGradDirect(OpDef& d) {
  d.setup = setupNlllWithSoftmaxGradDirect;
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
