// Activations: Relu family, Sigmoid/Tanh, Clip, PRelu, Softmax/LogSoftmax/Hardmax, Gelu, GeluErf,
// Swish.
#include <limits>

#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace {

using namespace ops;

void setupFloatUnary(Op& op) {
  requireFloat(op, 0);
  setupSameAsInput0(op);
}

void setupRelu(Op& op) {
  if (op.inType(0) == DataType::BOOL || op.inType(0) == DataType::STRING ||
      !(isFloatType(op.inType(0)) || isSignedInteger(op.inType(0))))
    throw error("input 0 ('{}') must be a float or signed integer tensor, but it is {}", op.input(0)->id,
                op.inInfo(0).toString());
  setupSameAsInput0(op);
}

void floatUnary(OpDef& d) {
  d.setup = setupFloatUnary;
}

/// Clip's min and max inputs (opset 11 on) are scalars of x's type, constant or not (PopART
/// refuses bounds that are not constants; they run here).
void setupClip(Op& op) {
  if (op.opset() < 11) {
    requireFloat(op, 0);
    setupSameAsInput0(op);
    return;
  }
  for (int i = 1; i < 3; ++i) {
    if (!op.hasInput(i)) continue;
    requireSameType(op, 0, i);
    if (op.inInfo(i).nelms() != 1)
      throw error("input {} ('{}') must be a scalar, but it is {}", i, op.input(i)->id, op.inInfo(i).toString());
  }
  setupSameAsInput0(op);
}

void setupPRelu(Op& op) {
  requireSameType(op, 0, 1);
  // Before opset 7 a 1-D slope of size C is per channel (axis 1), not numpy-broadcast.
  const Shape& x = op.inShape(0);
  if (op.opset() < 7 && op.inInfo(1).rank() == 1 && x.size() > 2 && op.inShape(1)[0] == x[1] && x[1] != x.back()) {
    Shape b(x.size() - 1, 1);
    b[0] = x[1];
    op.attrs.set("__bshape", b);  // the binary kernel reads the slope with this shape
    setupSameAsInput0(op);
    return;
  }
  const Shape out = broadcastInputs(op, {0, 1});
  if (out != op.inShape(0))
    throw error("slope shape {} must broadcast to the input shape {} (unidirectionally)", op.inShape(1), op.inShape(0));
  setupSameAsInput0(op);
}

void setupSoftmax(Op& op) {
  requireFloat(op, 0);
  const int64_t r = op.inInfo(0).rank();
  const int64_t dflt = op.opset() >= 13 ? -1 : 1;
  normalizeAxis(op.attrs.getInt("axis", dflt), r);
  setupSameAsInput0(op);
}

void softmaxDef(OpDef& d) {
  d.setup = setupSoftmax;
}

}  // namespace

namespace {

void gradRelu(GradCtx& c) {
  c.setInGrad(0, c.add1(OpKind::ReluGrad, {c.outGrad(0), c.out(0)}));
}
void gradSigmoid(GradCtx& c) {
  c.setInGrad(0, c.add1(OpKind::SigmoidGrad, {c.outGrad(0), c.out(0)}));
}
void gradTanh(GradCtx& c) {
  c.setInGrad(0, c.add1(OpKind::TanhGrad, {c.outGrad(0), c.out(0)}));
}

/// Softmax / LogSoftmax: along `axis` from opset 13; before, over the dimensions from `axis` on
/// (the input seen as 2-D), which the grad op handles on a 2-D view.
void gradSoftmaxLike(GradCtx& c, OpKind gradKind) {
  const Shape& s = c.out(0)->info.shape();
  const int64_t r = static_cast<int64_t>(s.size());
  const int64_t axis = normalizeAxis(c.op().attrs.getInt("axis", c.op().opset() >= 13 ? -1 : 1), r);
  Attributes a;
  if (c.op().opset() >= 13 || axis == r - 1) {
    a.set("axis", axis);
    c.setInGrad(0, c.add1(gradKind, {c.outGrad(0), c.out(0)}, a));
    return;
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < r; ++d) (d < axis ? outer : inner) *= s[static_cast<size_t>(d)];
  a.set("axis", int64_t(1));
  Tensor* g2 = c.add1(gradKind, {c.reshape(c.outGrad(0), {outer, inner}), c.reshape(c.out(0), {outer, inner})}, a);
  c.setInGrad(0, c.reshape(g2, s));
}

void gradGelu(GradCtx& c) {
  c.setInGrad(0, c.add1(OpKind::GeluGrad, {c.outGrad(0), c.in(0)}));
}

/// GeluErf: d/dx x Phi(x) = Phi(x) + x phi(x), with Phi(x) = (1 + erf(x / sqrt(2))) / 2 and
/// phi(x) = exp(-x^2 / 2) / sqrt(2 pi), composed of forward ops.
void gradGeluErf(GradCtx& c) {
  Tensor* x = c.in(0);
  const DataType t = x->info.dataType();
  Tensor* erf = c.add1(OpKind::Erf, {c.add1(OpKind::Mul, {x, c.constant(0.7071067811865476, t)})});
  Tensor* cdf = c.add1(OpKind::Mul, {c.add1(OpKind::Add, {erf, c.constant(1.0, t)}), c.constant(0.5, t)});
  Tensor* sq = c.add1(OpKind::Mul, {x, x});
  Tensor* pdf = c.add1(OpKind::Mul, {c.add1(OpKind::Exp, {c.add1(OpKind::Mul, {sq, c.constant(-0.5, t)})}),
                                     c.constant(0.3989422804014327, t)});
  Tensor* d = c.add1(OpKind::Add, {cdf, c.add1(OpKind::Mul, {x, pdf})});
  c.setInGrad(0, c.add1(OpKind::Mul, {c.outGrad(0), d}));
}

/// Swish: d/dx x s(x) = s (1 + x (1 - s)) with s = sigmoid(x), composed of forward ops (finite
/// for every finite x: s is 0 or 1 where x (1 - s) would be large).
void gradSwish(GradCtx& c) {
  Tensor* x = c.in(0);
  const DataType t = x->info.dataType();
  Tensor* s = c.add1(OpKind::Sigmoid, {x});
  Tensor* oneMinusS = c.add1(OpKind::Sub, {c.constant(1.0, t), s});
  Tensor* inner = c.add1(OpKind::Add, {c.constant(1.0, t), c.add1(OpKind::Mul, {x, oneMinusS})});
  c.setInGrad(0, c.add1(OpKind::Mul, {c.outGrad(0), c.add1(OpKind::Mul, {s, inner})}));
}

void gradSoftmax(GradCtx& c) {
  gradSoftmaxLike(c, OpKind::SoftmaxGrad);
}
void gradLogSoftmax(GradCtx& c) {
  gradSoftmaxLike(c, OpKind::LogSoftmaxGrad);
}

// Shorthands.
Tensor* scalarOf(GradCtx& c, double v) {
  return c.constant(v, c.in(0)->info.dataType());
}
Tensor* gt(GradCtx& c, Tensor* a, double v) {
  return c.add1(OpKind::Greater, {a, scalarOf(c, v)});
}
Tensor* lt(GradCtx& c, Tensor* a, double v) {
  return c.add1(OpKind::Less, {a, scalarOf(c, v)});
}
Tensor* mulT(GradCtx& c, Tensor* a, Tensor* b) {
  return c.add1(OpKind::Mul, {a, b});
}
Tensor* mulS(GradCtx& c, Tensor* a, double v) {
  return mulT(c, a, scalarOf(c, v));
}
Tensor* addS(GradCtx& c, Tensor* a, double v) {
  return c.add1(OpKind::Add, {a, scalarOf(c, v)});
}
Tensor* where(GradCtx& c, Tensor* m, Tensor* a, Tensor* b) {
  return c.add1(OpKind::Where, {m, a, b});
}
double attr(GradCtx& c, const char* k, float dflt) {
  return c.op().attrs.getFloat(k, dflt);
}

void gradLeakyRelu(GradCtx& c) {
  Tensor* g = c.outGrad(0);
  c.setInGrad(0, where(c, gt(c, c.in(0), 0.0), g, mulS(c, g, attr(c, "alpha", 0.01f))));
}
void gradElu(GradCtx& c) {  // x <= 0: alpha e^x = y + alpha
  Tensor* g = c.outGrad(0);
  c.setInGrad(0, where(c, gt(c, c.in(0), 0.0), g, mulT(c, g, addS(c, c.out(0), attr(c, "alpha", 1.0f)))));
}
void gradSelu(GradCtx& c) {  // x <= 0: gamma alpha e^x = y + gamma alpha
  Tensor* g = c.outGrad(0);
  const double alpha = attr(c, "alpha", 1.67326319217681884765625f),
               gamma = attr(c, "gamma", 1.05070102214813232421875f);
  c.setInGrad(0, where(c, gt(c, c.in(0), 0.0), mulS(c, g, gamma), mulT(c, g, addS(c, c.out(0), gamma * alpha))));
}
void gradCelu(GradCtx& c) {  // x <= 0: e^(x / alpha) = y / alpha + 1
  Tensor* g = c.outGrad(0);
  const double alpha = attr(c, "alpha", 1.0f);
  c.setInGrad(0, where(c, gt(c, c.in(0), 0.0), g, mulT(c, g, addS(c, mulS(c, c.out(0), 1.0 / alpha), 1.0))));
}
/// 0 < alpha x + beta < 1, the linear part of HardSigmoid.
Tensor* hardLinear(GradCtx& c, double alpha, double beta) {
  Tensor* t = addS(c, mulS(c, c.in(0), alpha), beta);
  return c.add1(OpKind::And, {gt(c, t, 0.0), lt(c, t, 1.0)});
}
void gradHardSigmoid(GradCtx& c) {
  const double alpha = attr(c, "alpha", 0.2f), beta = attr(c, "beta", 0.5f);
  Tensor* g = c.outGrad(0);
  c.setInGrad(0, where(c, hardLinear(c, alpha, beta), mulS(c, g, alpha), scalarOf(c, 0.0)));
}
void gradHardSwish(GradCtx& c) {  // x hs(x): hs(x) + x / 6 on the linear part
  Attributes a;
  a.set("alpha", 1.0f / 6.0f);
  a.set("beta", 0.5f);
  Tensor* hs = c.add1(OpKind::HardSigmoid, {c.in(0)}, a);
  Tensor* lin = where(c, hardLinear(c, 1.0 / 6.0, 0.5), mulS(c, c.in(0), 1.0 / 6.0), scalarOf(c, 0.0));
  c.setInGrad(0, mulT(c, c.outGrad(0), c.add1(OpKind::Add, {hs, lin})));
}
void gradSoftplus(GradCtx& c) {
  c.setInGrad(0, mulT(c, c.outGrad(0), c.add1(OpKind::Sigmoid, {c.in(0)})));
}
void gradSoftsign(GradCtx& c) {  // 1 / (1 + |x|)^2
  Tensor* d = addS(c, c.add1(OpKind::Abs, {c.in(0)}), 1.0);
  c.setInGrad(0, c.add1(OpKind::Div, {c.outGrad(0), mulT(c, d, d)}));
}
void gradThresholdedRelu(GradCtx& c) {
  c.setInGrad(0, where(c, gt(c, c.in(0), attr(c, "alpha", 1.0f)), c.outGrad(0), scalarOf(c, 0.0)));
}
void gradShrink(GradCtx& c) {
  const double lambd = attr(c, "lambd", 0.5f);
  Tensor* outside = c.add1(OpKind::Or, {lt(c, c.in(0), -lambd), gt(c, c.in(0), lambd)});
  c.setInGrad(0, where(c, outside, c.outGrad(0), scalarOf(c, 0.0)));
}
/// Clip: x gets the gradient where it is not clipped; the min / max inputs (opset 11) where it is.
void gradClip(GradCtx& c) {
  Tensor* g = c.outGrad(0);
  Tensor* zero = scalarOf(c, 0.0);
  Tensor* x = c.in(0);
  if (c.needsInGrad(0)) c.setInGrad(0, where(c, c.add1(OpKind::Equal, {x, c.out(0)}), g, zero));
  if (c.op().opset() < 11) return;
  Tensor* lo = c.op().hasInput(1) ? c.in(1) : nullptr;
  Tensor* hi = c.op().hasInput(2) ? c.in(2) : nullptr;
  if (lo && c.needsInGrad(1)) {
    Tensor* below = c.add1(OpKind::Less, {x, lo});
    if (hi) below = c.add1(OpKind::And, {below, c.add1(OpKind::LessOrEqual, {lo, hi})});
    c.setInGrad(1, c.reduceTo(where(c, below, g, zero), lo->info.shape()));
  }
  if (hi && c.needsInGrad(2)) {
    Tensor* above = c.add1(OpKind::Greater, {x, hi});
    if (lo) above = c.add1(OpKind::Or, {above, c.add1(OpKind::Greater, {lo, hi})});  // min > max: all max
    c.setInGrad(2, c.reduceTo(where(c, above, g, zero), hi->info.shape()));
  }
}
/// PRelu: x < 0 ? x slope : x. Before opset 7 a per-channel slope is read with the shape __bshape.
void gradPRelu(GradCtx& c) {
  Tensor* g = c.outGrad(0);
  Tensor* x = c.in(0);
  Tensor* slope = c.in(1);
  const Shape slopeShape = slope->info.shape();
  const Shape bshape = c.op().attrs.has("__bshape") ? c.op().attrs.getInts("__bshape") : slopeShape;
  Tensor* s = c.reshape(slope, bshape);
  Tensor* neg = lt(c, x, 0.0);
  if (c.needsInGrad(0)) c.setInGrad(0, where(c, neg, mulT(c, g, s), g));
  if (c.needsInGrad(1))
    c.setInGrad(1, c.reshape(c.reduceTo(where(c, neg, mulT(c, g, x), scalarOf(c, 0.0)), bshape), slopeShape));
}
/// Hardmax is piecewise constant: a zero gradient.
void gradHardmax(GradCtx& c) {
  c.setInGrad(0, c.constant(0.0, c.in(0)->info.dataType(), c.in(0)->info.shape()));
}

}  // namespace

// clang-format off
void define_Relu(OpDef& d) { d.setup = setupRelu; d.grad = gradRelu; }
void define_LeakyRelu(OpDef& d) { floatUnary(d); d.grad = gradLeakyRelu; }
void define_Elu(OpDef& d) { floatUnary(d); d.grad = gradElu; }
void define_Selu(OpDef& d) { floatUnary(d); d.grad = gradSelu; }
void define_Celu(OpDef& d) { floatUnary(d); d.grad = gradCelu; }
void define_Sigmoid(OpDef& d) { floatUnary(d); d.grad = gradSigmoid; }
void define_HardSigmoid(OpDef& d) { floatUnary(d); d.grad = gradHardSigmoid; }
void define_HardSwish(OpDef& d) { floatUnary(d); d.grad = gradHardSwish; }
void define_Tanh(OpDef& d) { floatUnary(d); d.grad = gradTanh; }
void define_Softplus(OpDef& d) { floatUnary(d); d.grad = gradSoftplus; }
void define_Softsign(OpDef& d) { floatUnary(d); d.grad = gradSoftsign; }
void define_ThresholdedRelu(OpDef& d) { floatUnary(d); d.grad = gradThresholdedRelu; }
void define_GcGelu(OpDef& d) { floatUnary(d); d.grad = gradGelu; }
void define_GcSwish(OpDef& d) { floatUnary(d); d.grad = gradSwish; }
void define_GcGeluErf(OpDef& d) { floatUnary(d); d.grad = gradGeluErf; }
void define_Shrink(OpDef& d) {
  d.setup = [](Op& op) {
    if (op.inType(0) == DataType::BOOL || op.inType(0) == DataType::STRING)
      throw error("input 0 must be numeric, got {}", op.inInfo(0).toString());
    setupSameAsInput0(op);
  };
  d.grad = gradShrink;
}
void define_PRelu(OpDef& d) { d.setup = setupPRelu; d.grad = gradPRelu; }
void define_Clip(OpDef& d) { d.setup = setupClip; d.grad = gradClip; }
void define_Softmax(OpDef& d) { softmaxDef(d); d.grad = gradSoftmax; }
void define_LogSoftmax(OpDef& d) { softmaxDef(d); d.grad = gradLogSoftmax; }
void define_Hardmax(OpDef& d) { softmaxDef(d); d.grad = gradHardmax; }
// clang-format on

}  // namespace popart
