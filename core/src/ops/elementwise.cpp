// Elementwise ops: unary math, binary arithmetic / comparison / logic with numpy broadcasting,
// variadic Max/Min/Mean/Sum, Where, and Graphcore's Scale/ScaledAdd/Atan2/Fmod/Remainder/Round/
// NearbyInt/IncrementMod and bitwise ops.
#include "ir/graph.hpp"
#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace {

using namespace ops;

enum class In { Float, Numeric, Signed };

void checkUnary(const Op& op, In in) {
  switch (in) {
    case In::Float:
      requireFloat(op, 0);
      break;
    case In::Signed:
      if (!isFloatType(op.inType(0)) && !isSignedInteger(op.inType(0)))
        throw error("input 0 ('{}') must be a signed number, but it is {}", op.input(0)->id, op.inInfo(0).toString());
      break;
    case In::Numeric:
      if (op.inType(0) == DataType::BOOL || op.inType(0) == DataType::STRING)
        throw error("input 0 ('{}') must be numeric, but it is {}", op.input(0)->id, op.inInfo(0).toString());
      break;
  }
}

template <In in>
void setupUnary(Op& op) {
  checkUnary(op, in);
  setupSameAsInput0(op);
}

void setupIsNanInf(Op& op) {
  requireFloat(op, 0);
  setOutput(op, 0, DataType::BOOL, op.inShape(0));
}

void unary(OpDef& d, void (*setup)(Op&)) {
  d.setup = setup;
}

// Opset < 7 binary ops broadcast only with broadcast=1, placing B at `axis` of A.
Shape binaryShape(Op& op) {
  if (op.opset() < 7 && op.domain() == "ai.onnx") {
    const Shape& a = op.inShape(0);
    const Shape& b = op.inShape(1);
    if (op.attrs.getInt("broadcast", 0) == 0) {
      if (a != b) throw error("shapes {} and {} differ and the legacy (opset < 7) attribute broadcast is 0", a, b);
      return a;
    }
    const int64_t ra = static_cast<int64_t>(a.size()), rb = static_cast<int64_t>(b.size());
    const int64_t axis = op.attrs.has("axis") ? normalizeAxis(op.attrs.getInt("axis"), ra) : ra - rb;
    if (axis < 0 || axis + rb > ra) throw error("legacy broadcast of {} into {} at axis {} is impossible", b, a, axis);
    Shape eff(static_cast<size_t>(ra), 1);
    for (int64_t i = 0; i < rb; ++i) {
      const int64_t db = b[static_cast<size_t>(i)];
      if (db != 1 && db != a[static_cast<size_t>(axis + i)])
        throw error("legacy broadcast: {} does not match {} at axis {}", b, a, axis);
      eff[static_cast<size_t>(axis + i)] = db;
    }
    op.attrs.set("__bshape", eff);  // the kernel reads B with this shape
    return a;
  }
  return broadcastInputs(op, {0, 1});
}

void setupArith(Op& op) {
  // PopART's types: the inputs' common type, or FLOAT16 for Mul of FLOAT16 by a FLOAT scalar.
  const DataType t = broadcastType(op, 0, 1, op.kind() == OpKind::Mul);
  checkUnary(op, In::Numeric);
  setOutput(op, 0, t, binaryShape(op));
}

void setupPow(Op& op) {
  checkUnary(op, In::Numeric);
  if (op.opset() < 12) requireSameType(op, 0, 1);
  setOutput(op, 0, op.inType(0), binaryShape(op));
}

void setupMod(Op& op) {
  requireSameType(op, 0, 1);
  checkUnary(op, In::Numeric);
  // fmod=0 on floating-point inputs (which ONNX's spec rules out) is accepted as PopART does: the
  // remainder takes the divisor's sign (Python's %, np.mod), as for integers.
  setOutput(op, 0, op.inType(0), binaryShape(op));
}

/// The logical ops' inputs are BOOL; the Builder's shape inference does not check them (ONNX's
/// does not, and PopART's Builder gives And of FLOAT tensors a shape); a session does.
void requireLogicalInput(const Op& op, int i) {
  if (!op.graph().ir().shapeInferenceOnly()) requireType(op, i, {DataType::BOOL});
}

void setupLogical(Op& op) {
  requireLogicalInput(op, 0);
  requireLogicalInput(op, 1);
  setOutput(op, 0, DataType::BOOL, binaryShape(op));
}

void setupNot(Op& op) {
  requireLogicalInput(op, 0);
  setOutput(op, 0, DataType::BOOL, op.inShape(0));
}

void setupCompare(Op& op) {
  broadcastType(op, 0, 1);
  if (op.inType(0) == DataType::STRING) throw error("comparisons of STRING tensors are not supported");
  setOutput(op, 0, DataType::BOOL, binaryShape(op));
}

void binary(OpDef& d, void (*setup)(Op&)) {
  d.setup = setup;
}

void setupVariadic(Op& op) {
  // Max / Min / Mean / Sum before opset 8 (version 6) do not broadcast: every input has input 0's
  // type and shape (PopART's VariadicOp message).
  if (op.opset() < 8) {
    for (int i = 1; i < op.numInputs(); ++i) {
      if (op.hasInput(i) && !(op.inInfo(i) == op.inInfo(0)))
        throw error(
            "Inputs to {}.{}:6 do not all the same type & shape, with opid.version = 6 (input {} ('{}') is {}, input 0 "
            "is {})",
            op.domain(), op.type(), i, op.input(i)->id, op.inInfo(i).toString(), op.inInfo(0).toString());
    }
  }
  std::vector<int> all;
  for (int i = 0; i < op.numInputs(); ++i) {
    broadcastType(op, 0, i);
    all.push_back(i);
  }
  checkUnary(op, In::Numeric);
  setOutput(op, 0, op.inType(0), broadcastInputs(op, all));
}

void variadic(OpDef& d) {
  d.setup = setupVariadic;
}

void setupWhere(Op& op) {
  requireType(op, 0, {DataType::BOOL});
  requireSameType(op, 1, 2);
  setOutput(op, 0, op.inType(1), broadcastInputs(op, {0, 1, 2}));
}

void setupBitShift(Op& op) {
  requireSameType(op, 0, 1);
  requireType(op, 0, {DataType::UINT8, DataType::UINT16, DataType::UINT32, DataType::UINT64});
  const std::string dir = op.attrs.getString("direction");
  if (dir != "LEFT" && dir != "RIGHT") throw error("direction '{}' is not LEFT or RIGHT", dir);
  setOutput(op, 0, op.inType(0), binaryShape(op));
}

void setupScale(Op& op) {
  checkUnary(op, In::Numeric);
  op.attrs.getFloat("scale");  // required
  setupSameAsInput0(op);
}

void setupScaledAdd(Op& op) {
  requireSameType(op, 0, 1);
  checkUnary(op, In::Numeric);
  // PopART's 4-input form: X, Y, then optional one-element tensors for scale0 and scale1.
  for (int i = 2; i < 4; ++i) {
    if (!op.hasInput(i)) continue;
    requireSameType(op, 0, i);
    if (op.inInfo(i).nelms() != 1)
      throw error("input {} ('{}') (the {} tensor) must have one element, but it is {}", i, op.input(i)->id,
                  i == 2 ? "scale0" : "scale1", op.inInfo(i).toString());
  }
  setOutput(op, 0, op.inType(0), broadcastInputs(op, {0, 1}));
}

void setupFloatBinary(Op& op) {
  requireSameType(op, 0, 1);
  requireFloat(op, 0);
  setOutput(op, 0, op.inType(0), binaryShape(op));
}

/// Graphcore's bitwise ops take integer tensors (PopART: INT32 and UINT32; every integer type here).
void requireInteger(const Op& op, int i) {
  if (!isInteger(op.inType(i)))
    throw error("input {} ('{}') must be an integer tensor, but it is {}", i, op.input(i)->id, op.inInfo(i).toString());
}

void setupBitwiseNot(Op& op) {
  requireInteger(op, 0);
  setupSameAsInput0(op);
}

void setupBitwiseBinary(Op& op) {
  requireInteger(op, 0);
  requireSameType(op, 0, 1);
  setOutput(op, 0, op.inType(0), broadcastInputs(op, {0, 1}));
}

/// IncrementMod: y = fmod(x + increment, modulus), in x's type.
void setupIncrementMod(Op& op) {
  checkUnary(op, In::Numeric);
  op.attrs.getFloat("increment");
  if (op.attrs.getFloat("modulus") == 0.0f) throw error("modulus must not be 0");
  setupSameAsInput0(op);
}

// ---------------------------------------------------------------- grad rules
// dz of a broadcasting binary op is reduced back to each input's shape (GradCtx::reduceTo).

void gradAdd(GradCtx& c) {
  Tensor* g = c.outGrad(0);
  c.setInGrad(0, c.reduceTo(g, c.in(0)->info.shape()));
  c.setInGrad(1, c.reduceTo(g, c.in(1)->info.shape()));
}

void gradSub(GradCtx& c) {
  Tensor* g = c.outGrad(0);
  c.setInGrad(0, c.reduceTo(g, c.in(0)->info.shape()));
  if (c.needsInGrad(1)) c.setInGrad(1, c.reduceTo(c.add1(OpKind::Neg, {g}), c.in(1)->info.shape()));
}

void gradMul(GradCtx& c) {
  Tensor* g = c.outGrad(0);
  for (int i = 0; i < 2; ++i) {
    if (!c.needsInGrad(i)) continue;
    Tensor* d = c.reduceTo(c.add1(OpKind::Mul, {g, c.in(1 - i)}), c.in(i)->info.shape());
    // A FLOAT scalar of a FLOAT16 product (PopART's mixed Mul) gets its gradient in FLOAT.
    const DataType t = c.in(i)->info.dataType();
    if (t != d->info.dataType()) {
      Attributes a;
      a.set("to", int64_t(onnxDataType(t)));
      d = c.add1(OpKind::Cast, {d}, a);
    }
    c.setInGrad(i, d);
  }
}

void gradDiv(GradCtx& c) {  // z = a / b: da = g / b, db = -g z / b
  Tensor* g = c.outGrad(0);
  if (c.needsInGrad(0)) c.setInGrad(0, c.reduceTo(c.add1(OpKind::Div, {g, c.in(1)}), c.in(0)->info.shape()));
  if (c.needsInGrad(1)) {
    Tensor* t = c.add1(OpKind::Div, {c.add1(OpKind::Mul, {g, c.out(0)}), c.in(1)});
    c.setInGrad(1, c.reduceTo(c.add1(OpKind::Neg, {t}), c.in(1)->info.shape()));
  }
}

void gradSum(GradCtx& c) {
  for (int i = 0; i < c.op().numInputs(); ++i) c.setInGrad(i, c.reduceTo(c.outGrad(0), c.in(i)->info.shape()));
}

void gradNeg(GradCtx& c) {
  c.setInGrad(0, c.add1(OpKind::Neg, {c.outGrad(0)}));
}

void gradExp(GradCtx& c) {
  c.setInGrad(0, c.add1(OpKind::Mul, {c.outGrad(0), c.out(0)}));
}

void gradLog(GradCtx& c) {
  c.setInGrad(0, c.add1(OpKind::Div, {c.outGrad(0), c.in(0)}));
}

void gradSqrt(GradCtx& c) {  // d sqrt(x) = g / (2 sqrt(x))
  Tensor* two = c.constant(2.0, c.in(0)->info.dataType());
  c.setInGrad(0, c.add1(OpKind::Div, {c.outGrad(0), c.add1(OpKind::Mul, {c.out(0), two})}));
}

void gradScale(GradCtx& c) {
  Attributes a;
  a.set("scale", c.op().attrs.getFloat("scale"));
  c.setInGrad(0, c.add1(OpKind::GcScale, {c.outGrad(0)}, a));
}

/// Where(cond, x, y): the gradient goes to x where cond holds and to y elsewhere.
void gradWhere(GradCtx& c) {
  Tensor* g = c.outGrad(0);
  Tensor* zero = c.constant(0.0, g->info.dataType());
  if (c.needsInGrad(1)) c.setInGrad(1, c.reduceTo(c.add1(OpKind::Where, {c.in(0), g, zero}), c.in(1)->info.shape()));
  if (c.needsInGrad(2)) c.setInGrad(2, c.reduceTo(c.add1(OpKind::Where, {c.in(0), zero, g}), c.in(2)->info.shape()));
}

/// z = a ^ b: da = g b a^(b - 1), db = g z log(a) (an integer exponent is cast to a's type).
void gradPow(GradCtx& c) {
  Tensor* g = c.outGrad(0);
  const DataType t = c.in(0)->info.dataType();
  if (c.needsInGrad(0)) {
    Tensor* b = c.in(1);
    if (b->info.dataType() != t) {
      Attributes a;
      a.set("to", int64_t(onnxDataType(t)));
      b = c.add1(OpKind::Cast, {b}, a);
    }
    Tensor* pm1 = c.add1(OpKind::Pow, {c.in(0), c.add1(OpKind::Sub, {b, c.constant(1.0, t)})});
    Tensor* d = c.add1(OpKind::Mul, {g, c.add1(OpKind::Mul, {b, pm1})});
    c.setInGrad(0, c.reduceTo(d, c.in(0)->info.shape()));
  }
  if (c.needsInGrad(1)) {
    Tensor* d = c.add1(OpKind::Mul, {c.add1(OpKind::Mul, {g, c.out(0)}), c.add1(OpKind::Log, {c.in(0)})});
    c.setInGrad(1, c.reduceTo(d, c.in(1)->info.shape()));
  }
}

/// d erf(x) = 2 / sqrt(pi) exp(-x^2).
void gradErf(GradCtx& c) {
  Tensor* x = c.in(0);
  Tensor* e = c.add1(OpKind::Exp, {c.add1(OpKind::Neg, {c.add1(OpKind::Mul, {x, x})})});
  Tensor* k = c.constant(1.1283791670955126, x->info.dataType());
  c.setInGrad(0, c.add1(OpKind::Mul, {c.outGrad(0), c.add1(OpKind::Mul, {e, k})}));
}

// Shorthands of the rules below.
Tensor* mul(GradCtx& c, Tensor* a, Tensor* b) {
  return c.add1(OpKind::Mul, {a, b});
}
Tensor* div(GradCtx& c, Tensor* a, Tensor* b) {
  return c.add1(OpKind::Div, {a, b});
}
Tensor* addT(GradCtx& c, Tensor* a, Tensor* b) {
  return c.add1(OpKind::Add, {a, b});
}
Tensor* subT(GradCtx& c, Tensor* a, Tensor* b) {
  return c.add1(OpKind::Sub, {a, b});
}
Tensor* cst(GradCtx& c, double v) {
  return c.constant(v, c.in(0)->info.dataType());
}

/// d f(x) = g * f'(x) with f'(x) given.
void chain(GradCtx& c, Tensor* derivative) {
  c.setInGrad(0, mul(c, c.outGrad(0), derivative));
}

// Piecewise-constant ops (Ceil, Floor, Round, Sign): the derivative is 0 wherever it exists, as
// in PyTorch (PopART's Sign gives zeros too).
void gradZero(GradCtx& c) {
  if (isFloatType(c.in(0)->info.dataType()))
    c.setInGrad(0, c.constant(0.0, c.in(0)->info.dataType(), c.in(0)->info.shape()));
}

void gradAbs(GradCtx& c) {
  chain(c, c.add1(OpKind::Sign, {c.in(0)}));
}
void gradSin(GradCtx& c) {
  chain(c, c.add1(OpKind::Cos, {c.in(0)}));
}
void gradCos(GradCtx& c) {
  chain(c, c.add1(OpKind::Neg, {c.add1(OpKind::Sin, {c.in(0)})}));
}
void gradTan(GradCtx& c) {
  chain(c, addT(c, cst(c, 1.0), mul(c, c.out(0), c.out(0))));
}  // 1 + tan^2
void gradSinh(GradCtx& c) {
  chain(c, c.add1(OpKind::Cosh, {c.in(0)}));
}
void gradCosh(GradCtx& c) {
  chain(c, c.add1(OpKind::Sinh, {c.in(0)}));
}
/// 1 / sqrt(s * (x^2 + k)) ... the inverse trigonometric and hyperbolic derivatives.
Tensor* invSqrt(GradCtx& c, Tensor* t) {
  return div(c, cst(c, 1.0), c.add1(OpKind::Sqrt, {t}));
}
Tensor* xx(GradCtx& c) {
  return mul(c, c.in(0), c.in(0));
}
void gradAsin(GradCtx& c) {
  chain(c, invSqrt(c, subT(c, cst(c, 1.0), xx(c))));
}
void gradAcos(GradCtx& c) {
  chain(c, c.add1(OpKind::Neg, {invSqrt(c, subT(c, cst(c, 1.0), xx(c)))}));
}
void gradAtan(GradCtx& c) {
  c.setInGrad(0, div(c, c.outGrad(0), addT(c, cst(c, 1.0), xx(c))));
}
void gradAsinh(GradCtx& c) {
  chain(c, invSqrt(c, addT(c, xx(c), cst(c, 1.0))));
}
void gradAcosh(GradCtx& c) {
  chain(c, invSqrt(c, subT(c, xx(c), cst(c, 1.0))));
}
void gradAtanh(GradCtx& c) {
  c.setInGrad(0, div(c, c.outGrad(0), subT(c, cst(c, 1.0), xx(c))));
}
void gradReciprocal(GradCtx& c) {
  chain(c, c.add1(OpKind::Neg, {mul(c, c.out(0), c.out(0))}));
}  // -1/x^2
void gradExpm1(GradCtx& c) {
  chain(c, addT(c, c.out(0), cst(c, 1.0)));
}  // e^x
void gradLog1p(GradCtx& c) {
  c.setInGrad(0, div(c, c.outGrad(0), addT(c, c.in(0), cst(c, 1.0))));
}

/// a mod b with the C (fmod, trunc) or Python (floor) quotient q: da = g, db = -g q.
void gradModLike(GradCtx& c, bool floorQuotient) {
  if (!isFloatType(c.in(0)->info.dataType())) return;  // integer Mod: no gradient
  Tensor* g = c.outGrad(0);
  c.setInGrad(0, c.reduceTo(g, c.in(0)->info.shape()));
  if (!c.needsInGrad(1)) return;
  Tensor* q = div(c, c.in(0), c.in(1));
  q = floorQuotient ? c.add1(OpKind::Floor, {q})
                    : mul(c, c.add1(OpKind::Sign, {q}), c.add1(OpKind::Floor, {c.add1(OpKind::Abs, {q})}));
  c.setInGrad(1, c.reduceTo(c.add1(OpKind::Neg, {mul(c, g, q)}), c.in(1)->info.shape()));
}
void gradMod(GradCtx& c) {
  gradModLike(c, c.op().attrs.getInt("fmod", 0) == 0);
}
void gradFmod(GradCtx& c) {
  gradModLike(c, false);
}
void gradRemainder(GradCtx& c) {
  gradModLike(c, true);
}

/// atan2(y, x): dy = g x / (x^2 + y^2), dx = -g y / (x^2 + y^2).
void gradAtan2(GradCtx& c) {
  Tensor* y = c.in(0);
  Tensor* x = c.in(1);
  Tensor* r2 = addT(c, mul(c, x, x), mul(c, y, y));
  Tensor* g = div(c, c.outGrad(0), r2);
  if (c.needsInGrad(0)) c.setInGrad(0, c.reduceTo(mul(c, g, x), y->info.shape()));
  if (c.needsInGrad(1)) c.setInGrad(1, c.reduceTo(c.add1(OpKind::Neg, {mul(c, g, y)}), x->info.shape()));
}

/// Max / Min: each input whose value is the result gets the gradient (all of them on a tie, as
/// PopART's MaxArgGrad / MinArgGrad masks do).
void gradMaxMin(GradCtx& c) {
  Tensor* g = c.outGrad(0);
  Tensor* zero = c.constant(0.0, g->info.dataType());
  for (int i = 0; i < c.op().numInputs(); ++i) {
    if (!c.needsInGrad(i)) continue;
    Tensor* mask = c.add1(OpKind::Equal, {c.in(i), c.out(0)});
    c.setInGrad(i, c.reduceTo(c.add1(OpKind::Where, {mask, g, zero}), c.in(i)->info.shape()));
  }
}

void gradMean(GradCtx& c) {
  Tensor* g = c.add1(OpKind::Div, {c.outGrad(0), c.constant(c.op().numInputs(), c.outGrad(0)->info.dataType())});
  for (int i = 0; i < c.op().numInputs(); ++i) c.setInGrad(i, c.reduceTo(g, c.in(i)->info.shape()));
}

/// ScaledAdd: scale0 a + scale1 b, each scale the attribute or (4-input form) a tensor:
/// da = g scale0, db = g scale1, and a scale tensor's gradient is the sum of g times its operand.
void gradScaledAdd(GradCtx& c) {
  for (int i = 0; i < 2; ++i) {
    Tensor* k = c.op().hasInput(i + 2) ? c.in(i + 2) : nullptr;
    if (c.needsInGrad(i)) {
      Tensor* d;
      if (k) {
        d = mul(c, c.outGrad(0), k);
      } else {
        Attributes a;
        a.set("scale", c.op().attrs.getFloat(i == 0 ? "scale0" : "scale1", 1.0f));
        d = c.add1(OpKind::GcScale, {c.outGrad(0)}, a);
      }
      c.setInGrad(i, c.reduceTo(d, c.in(i)->info.shape()));
    }
    if (k && c.needsInGrad(i + 2)) c.setInGrad(i + 2, c.reduceTo(mul(c, c.outGrad(0), c.in(i)), k->info.shape()));
  }
}

}  // namespace

// clang-format off
#define UNARY(E, IN, G) void define_##E(OpDef& d) { unary(d, setupUnary<In::IN>); d.grad = G; }
UNARY(Abs, Numeric, gradAbs) UNARY(Acos, Float, gradAcos) UNARY(Acosh, Float, gradAcosh)
UNARY(Asin, Float, gradAsin) UNARY(Asinh, Float, gradAsinh) UNARY(Atan, Float, gradAtan)
UNARY(Atanh, Float, gradAtanh) UNARY(Ceil, Float, gradZero) UNARY(Cos, Float, gradCos)
UNARY(Cosh, Float, gradCosh) UNARY(Floor, Float, gradZero)
UNARY(Reciprocal, Float, gradReciprocal) UNARY(Round, Float, gradZero) UNARY(Sign, Numeric, gradZero)
UNARY(Sin, Float, gradSin) UNARY(Sinh, Float, gradSinh) UNARY(Tan, Float, gradTan)
UNARY(GcExpm1, Float, gradExpm1) UNARY(GcLog1p, Float, gradLog1p)
#undef UNARY
void define_Not(OpDef& d) { unary(d, setupNot); }
void define_GcRound(OpDef& d) { unary(d, setupUnary<In::Float>); d.grad = gradZero; }
void define_GcNearbyInt(OpDef& d) { unary(d, setupUnary<In::Float>); d.grad = gradZero; }
void define_GcIncrementMod(OpDef& d) { unary(d, setupIncrementMod); }
void define_GcBitwiseNot(OpDef& d) { unary(d, setupBitwiseNot); }
void define_GcBitwiseAnd(OpDef& d) { binary(d, setupBitwiseBinary); }
void define_GcBitwiseOr(OpDef& d) { binary(d, setupBitwiseBinary); }
void define_GcBitwiseXor(OpDef& d) { binary(d, setupBitwiseBinary); }
void define_GcBitwiseXnor(OpDef& d) { binary(d, setupBitwiseBinary); }
void define_IsNaN(OpDef& d) { unary(d, setupIsNanInf); }
void define_IsInf(OpDef& d) { unary(d, setupIsNanInf); }

void define_Erf(OpDef& d) { unary(d, setupUnary<In::Numeric>); d.grad = gradErf; }
void define_Exp(OpDef& d) { unary(d, setupUnary<In::Float>); d.grad = gradExp; }
void define_Log(OpDef& d) { unary(d, setupUnary<In::Float>); d.grad = gradLog; }
void define_Neg(OpDef& d) { unary(d, setupUnary<In::Signed>); d.grad = gradNeg; }
void define_Sqrt(OpDef& d) { unary(d, setupUnary<In::Float>); d.grad = gradSqrt; }
void define_Add(OpDef& d) { binary(d, setupArith); d.grad = gradAdd; }
void define_Sub(OpDef& d) { binary(d, setupArith); d.grad = gradSub; }
void define_Mul(OpDef& d) { binary(d, setupArith); d.grad = gradMul; }
void define_Div(OpDef& d) { binary(d, setupArith); d.grad = gradDiv; }
void define_Pow(OpDef& d) { binary(d, setupPow); d.grad = gradPow; }
void define_Mod(OpDef& d) { binary(d, setupMod); d.grad = gradMod; }
void define_And(OpDef& d) { binary(d, setupLogical); }
void define_Or(OpDef& d) { binary(d, setupLogical); }
void define_Xor(OpDef& d) { binary(d, setupLogical); }
void define_Equal(OpDef& d) { binary(d, setupCompare); }
void define_Greater(OpDef& d) { binary(d, setupCompare); }
void define_GreaterOrEqual(OpDef& d) { binary(d, setupCompare); }
void define_Less(OpDef& d) { binary(d, setupCompare); }
void define_LessOrEqual(OpDef& d) { binary(d, setupCompare); }
void define_GcAtan2(OpDef& d) { binary(d, setupFloatBinary); d.grad = gradAtan2; }
void define_GcFmod(OpDef& d) { binary(d, setupArith); d.grad = gradFmod; }
void define_GcRemainder(OpDef& d) { binary(d, setupArith); d.grad = gradRemainder; }
void define_Max(OpDef& d) { variadic(d); d.grad = gradMaxMin; }
void define_Min(OpDef& d) { variadic(d); d.grad = gradMaxMin; }
void define_Mean(OpDef& d) { variadic(d); d.grad = gradMean; }
void define_Sum(OpDef& d) { variadic(d); d.grad = gradSum; }
void define_BitShift(OpDef& d) { binary(d, setupBitShift); }
void define_Where(OpDef& d) { d.setup = setupWhere; d.grad = gradWhere; }
void define_GcScale(OpDef& d) { unary(d, setupScale); d.grad = gradScale; }
void define_GcScaledAdd(OpDef& d) { d.setup = setupScaledAdd; d.grad = gradScaledAdd; }
// clang-format on

}  // namespace popart
