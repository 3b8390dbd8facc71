// Quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger,
// ConvInteger, QLinearMatMul, QLinearConv.
#include "ir/op_def.hpp"
#include "ops/op_util.hpp"
#include "ops/quant_params.hpp"
#include "ops/window.hpp"

namespace popart {
namespace ops {

QuantLayout quantLayout(const Op& op, int scaleIdx, int zpIdx) {
  const Shape& x = op.inShape(0);
  const TensorInfo& scale = op.inInfo(scaleIdx);
  if (op.hasInput(zpIdx) && op.inShape(zpIdx) != scale.shape())
    throw error("the zero point {} must have the same shape as the scale {}", op.inInfo(zpIdx).toString(),
                scale.toString());
  QuantLayout l;
  l.outer = x.empty() ? 1 : TensorInfo(DataType::FLOAT, x).nelms();
  if (scale.rank() == 0 || (scale.rank() == 1 && scale.nelms() == 1 && op.opset() < 13)) {
    if (scale.nelms() != 1) throw error("the scale {} must hold one value", scale.toString());
    return l;
  }
  if (op.opset() < 13)
    throw error("the scale must be a scalar before opset 13 (per-axis quantization needs opset 13), got {}",
                scale.toString());
  if (scale.rank() != 1)
    throw error("the scale must be a scalar (per tensor) or a 1-D tensor (per axis), got {}", scale.toString());
  const int64_t r = static_cast<int64_t>(x.size());
  if (r == 0) {
    if (scale.nelms() != 1) throw error("the scale {} of a scalar input must hold one value", scale.toString());
    return l;
  }
  const int64_t axis = normalizeAxis(op.attrs.getInt("axis", 1), r);
  const int64_t len = x[static_cast<size_t>(axis)];
  if (scale.nelms() != len) {
    if (scale.nelms() == 1) return l;
    throw error("the per-axis scale {} must have {} elements (dimension {} of the input {})", scale.toString(), len,
                axis, x);
  }
  l.perAxis = true;
  l.outer = l.inner = 1;
  l.len = len;
  for (int64_t i = 0; i < axis; ++i) l.outer *= x[static_cast<size_t>(i)];
  for (int64_t i = axis + 1; i < r; ++i) l.inner *= x[static_cast<size_t>(i)];
  return l;
}

Shape matmulOutShape(const Shape& a0, const Shape& b0) {
  Shape a = a0, b = b0;
  if (a.empty() || b.empty()) throw error("the matrix inputs must have rank >= 1, got {} and {}", a0, b0);
  const bool aVec = a.size() == 1, bVec = b.size() == 1;
  if (aVec) a.insert(a.begin(), 1);
  if (bVec) b.push_back(1);
  if (b[b.size() - 2] != a.back())
    throw error(
        "the inner dimensions differ: {} x {} (the last dimension of the first input must equal the second-to-last "
        "of the second)",
        a0, b0);
  const Shape batchA(a.begin(), a.end() - 2), batchB(b.begin(), b.end() - 2);
  Shape out;
  try {
    out = npOut(batchA, batchB);
  } catch (const error&) {
    throw error("the batch dimensions {} and {} do not broadcast", batchA, batchB);
  }
  if (!aVec) out.push_back(a[a.size() - 2]);
  if (!bVec) out.push_back(b.back());
  return out;
}

Shape matmulParamShape(const Op& op, int paramIdx, int operandIdx, bool isA) {
  const TensorInfo& p = op.inInfo(paramIdx);
  const Shape& x = op.inShape(operandIdx);
  const std::string pid = op.input(paramIdx)->id;
  if (p.nelms() == 1) return {};
  if (x.size() < 2)
    throw error("input {} ('{}') must hold one value because its operand {} is a vector, got {}", paramIdx, pid, x,
                p.toString());
  const int64_t m = x[x.size() - 2], n = x.back();
  if (p.rank() == 1) {
    if (isA && p.nelms() == m) return {m, 1};
    if (!isA && p.nelms() == n) return {n};
    throw error("input {} ('{}') {} must hold one value or one per {} ({})", paramIdx, pid, p.toString(),
                isA ? "row of A" : "column of B", isA ? m : n);
  }
  const Shape& ps = p.shape();
  Shape b;
  try {
    b = npOut(x, ps);
  } catch (const error&) {
    b = {};
  }
  const bool reducedIsOne = isA ? ps.back() == 1 : (ps.size() < 2 || ps[ps.size() - 2] == 1);
  if (b != x || !reducedIsOne)
    throw error("input {} ('{}') {} must broadcast to its operand {} per {} ({})", paramIdx, pid, p.toString(), x,
                isA ? "row" : "column", isA ? "shape [..., M, 1]" : "shape [..., 1, N]");
  return ps;
}

}  // namespace ops

namespace {

using namespace ops;

void require8Bit(const Op& op, int i) {
  requireType(op, i, {DataType::UINT8, DataType::INT8});
}

void requireScalarParam(const Op& op, int i, const char* what) {
  if (op.inInfo(i).nelms() != 1)
    throw error("input {} ('{}', {}) must hold one value ({})", i, op.input(i)->id, what, op.inInfo(i).toString());
}

void setupQuantizeLinear(Op& op) {
  requireType(op, 0, {DataType::FLOAT, DataType::FLOAT16, DataType::BFLOAT16, DataType::DOUBLE, DataType::INT32});
  requireFloat(op, 1);
  DataType out = DataType::UINT8;
  if (op.hasInput(2)) {
    require8Bit(op, 2);
    out = op.inType(2);
  }
  quantLayout(op, 1, 2);
  setOutput(op, 0, out, op.inShape(0));
}

void setupDequantizeLinear(Op& op) {
  requireType(op, 0, {DataType::UINT8, DataType::INT8, DataType::INT32});
  requireFloat(op, 1);
  if (op.hasInput(2)) requireSameType(op, 0, 2);
  quantLayout(op, 1, 2);
  setOutput(op, 0, op.inType(1), op.inShape(0));
}

void setupDynamicQuantizeLinear(Op& op) {
  requireType(op, 0, {DataType::FLOAT});
  setOutput(op, 0, DataType::UINT8, op.inShape(0));
  setOutput(op, 1, DataType::FLOAT, {});
  setOutput(op, 2, DataType::UINT8, {});
}

void setupMatMulInteger(Op& op) {
  require8Bit(op, 0);
  require8Bit(op, 1);
  const Shape out = matmulOutShape(op.inShape(0), op.inShape(1));
  if (op.hasInput(2)) {
    requireSameType(op, 0, 2);
    matmulParamShape(op, 2, 0, true);
  }
  if (op.hasInput(3)) {
    requireSameType(op, 1, 3);
    matmulParamShape(op, 3, 1, false);
  }
  setOutput(op, 0, DataType::INT32, out);
}

void setupQLinearMatMul(Op& op) {
  require8Bit(op, 0);
  require8Bit(op, 3);
  require8Bit(op, 7);
  for (int i : {1, 4, 6}) requireFloat(op, i);
  requireSameType(op, 0, 2);
  requireSameType(op, 3, 5);
  const Shape out = matmulOutShape(op.inShape(0), op.inShape(3));
  if (matmulParamShape(op, 1, 0, true) != matmulParamShape(op, 2, 0, true))
    throw error("a_scale {} and a_zero_point {} must have the same shape", op.inInfo(1).toString(),
                op.inInfo(2).toString());
  if (matmulParamShape(op, 4, 3, false) != matmulParamShape(op, 5, 3, false))
    throw error("b_scale {} and b_zero_point {} must have the same shape", op.inInfo(4).toString(),
                op.inInfo(5).toString());
  requireScalarParam(op, 6, "y_scale");
  requireScalarParam(op, 7, "y_zero_point");
  setOutput(op, 0, op.inType(7), out);
}

/// Conv geometry of x (input xi) and w (input wi): the output shape.
Shape setupIntegerConv(const Op& op, int xi, int wi) {
  require8Bit(op, xi);
  require8Bit(op, wi);
  const Shape& x = op.inShape(xi);
  const Shape& w = op.inShape(wi);
  if (x.size() < 3) throw error("input x must have rank >= 3 ([N, C, spatial...]), got {}", x);
  if (w.size() != x.size()) throw error("weights w {} must have the same rank as x {}", w, x);
  const int64_t group = op.attrs.getInt("group", 1);
  if (group <= 0) throw error("group must be positive, got {}", group);
  if (x[1] != w[1] * group)
    throw error("x has {} channels but w {} with group {} expects {}", x[1], w, group, w[1] * group);
  if (w[0] % group != 0) throw error("the output channels of w {} are not divisible by group {}", w, group);
  const std::vector<int64_t> kernel(w.begin() + 2, w.end());
  if (op.attrs.has("kernel_shape") && op.attrs.getInts("kernel_shape") != kernel)
    throw error("kernel_shape {} does not match the weights' spatial shape {}", op.attrs.getInts("kernel_shape"),
                kernel);
  const Window win = computeWindow(op, std::vector<int64_t>(x.begin() + 2, x.end()), kernel, false, true);
  Shape out{x[0], w[0]};
  out.insert(out.end(), win.outSpatial.begin(), win.outSpatial.end());
  return out;
}

/// A per-output-channel parameter of the weights: one value or M values (1-D).
void requireChannelParam(const Op& op, int i, int64_t m, const char* what) {
  const TensorInfo& p = op.inInfo(i);
  if (p.nelms() == 1) return;
  if (p.rank() != 1 || p.nelms() != m)
    throw error("input {} ('{}', {}) must hold one value or one per output channel ({}), got {}", i, op.input(i)->id,
                what, m, p.toString());
}

void setupConvInteger(Op& op) {
  const Shape out = setupIntegerConv(op, 0, 1);
  if (op.hasInput(2)) {
    requireSameType(op, 0, 2);
    requireScalarParam(op, 2, "x_zero_point");
  }
  if (op.hasInput(3)) {
    requireSameType(op, 1, 3);
    requireChannelParam(op, 3, op.inShape(1)[0], "w_zero_point");
  }
  setOutput(op, 0, DataType::INT32, out);
}

void setupQLinearConv(Op& op) {
  const Shape out = setupIntegerConv(op, 0, 3);
  require8Bit(op, 7);
  for (int i : {1, 4, 6}) requireFloat(op, i);
  requireSameType(op, 0, 2);
  requireSameType(op, 3, 5);
  requireScalarParam(op, 1, "x_scale");
  requireScalarParam(op, 2, "x_zero_point");
  requireScalarParam(op, 6, "y_scale");
  requireScalarParam(op, 7, "y_zero_point");
  const int64_t m = op.inShape(3)[0];
  requireChannelParam(op, 4, m, "w_scale");
  requireChannelParam(op, 5, m, "w_zero_point");
  if (op.hasInput(8)) {
    requireType(op, 8, {DataType::INT32});
    if (op.inShape(8) != Shape{m}) throw error("bias B must have shape [{}], got {}", m, op.inInfo(8).toString());
  }
  setOutput(op, 0, op.inType(7), out);
}

}  // namespace

void define_QuantizeLinear(OpDef& d) {
  d.setup = setupQuantizeLinear;
}
void define_DequantizeLinear(OpDef& d) {
  d.setup = setupDequantizeLinear;
}
void define_DynamicQuantizeLinear(OpDef& d) {
  d.setup = setupDynamicQuantizeLinear;
}
void define_MatMulInteger(OpDef& d) {
  d.setup = setupMatMulInteger;
}
void define_ConvInteger(OpDef& d) {
  d.setup = setupConvInteger;
}
void define_QLinearMatMul(OpDef& d) {
  d.setup = setupQLinearMatMul;
}
void define_QLinearConv(OpDef& d) {
  d.setup = setupQLinearConv;
}

}  // namespace popart
