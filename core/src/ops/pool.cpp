// Pooling: MaxPool (with optional indices; INT8 / UINT8 too from opset 12), AveragePool, GlobalAveragePool,
// GlobalMaxPool.
#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"
#include "ops/window.hpp"

namespace popart {
namespace {

using namespace ops;

void setupPool(Op& op) {
  const DataType t = op.inType(0);
  if (op.kind() == OpKind::MaxPool && (t == DataType::INT8 || t == DataType::UINT8)) {
    if (op.opset() < 12)
      throw error("input 0 ('{}') is {}, which MaxPool takes from opset 12 (the model's is {})", op.input(0)->id,
                  dataTypeToString(t), op.opset());
  } else if (op.kind() == OpKind::MaxPool && !isFloatType(t)) {
    throw error(
        "input 0 ('{}') must be a floating-point tensor (FLOAT, FLOAT16, DOUBLE) or, from opset 12, INT8 or "
        "UINT8, but it is {}",
        op.input(0)->id, op.inInfo(0).toString());
  } else {
    requireFloat(op, 0);
  }
  const Shape& x = op.inShape(0);
  if (x.size() < 3) throw error("input X must have rank >= 3 ([N, C, spatial...]), got {}", x);
  const auto kernel = op.attrs.getInts("kernel_shape");
  const bool ceil = op.attrs.getInt("ceil_mode", 0) != 0;
  const bool allowDil = op.kind() == OpKind::MaxPool && op.opset() >= 10;
  const Window w = computeWindow(op, std::vector<int64_t>(x.begin() + 2, x.end()), kernel, ceil, allowDil);
  Shape out{x[0], x[1]};
  out.insert(out.end(), w.outSpatial.begin(), w.outSpatial.end());
  setOutput(op, 0, op.inType(0), out);
  setOutput(op, 1, DataType::INT64, out);  // MaxPool indices
}

void setupGlobalPool(Op& op) {
  requireFloat(op, 0);
  Shape s = op.inShape(0);
  if (s.size() < 3) throw error("input X must have rank >= 3 ([N, C, spatial...]), got {}", s);
  for (size_t i = 2; i < s.size(); ++i) s[i] = 1;
  setOutput(op, 0, op.inType(0), s);
}

// ---------------------------------------------------------------- grad rules
// The grad ops get the forward window with explicit pads (auto_pad resolved); ceil_mode stays
// so that they find the same output size.

Attributes poolGradAttrs(const Op& op, const Shape& x, const std::vector<int64_t>& kernel, bool ceil) {
  const bool allowDil = op.kind() == OpKind::MaxPool && op.opset() >= 10;
  const Window w = computeWindow(op, Shape(x.begin() + 2, x.end()), kernel, ceil, allowDil);
  Attributes a;
  std::vector<int64_t> pads = w.padBegin;
  pads.insert(pads.end(), w.padEnd.begin(), w.padEnd.end());
  a.set("kernel_shape", kernel);
  a.set("pads", pads);
  a.set("strides", w.strides);
  a.set("dilations", w.dilations);
  a.set("ceil_mode", int64_t(ceil ? 1 : 0));
  return a;
}

/// MaxPool: the gradient of each output goes to the (first) maximum of its window.
void gradMaxPool(GradCtx& c) {
  const Op& op = c.op();
  const Attributes a =
      poolGradAttrs(op, op.inShape(0), op.attrs.getInts("kernel_shape"), op.attrs.getInt("ceil_mode", 0) != 0);
  c.setInGrad(0, c.add1(OpKind::MaxPoolGrad, {c.outGrad(0), c.in(0)}, a));
}

/// AveragePool: each output's gradient shared by its window, divided as the forward divides
/// (count_include_pad counts the explicit padding, never the ceil_mode overhang).
void gradAveragePool(GradCtx& c) {
  const Op& op = c.op();
  Attributes a =
      poolGradAttrs(op, op.inShape(0), op.attrs.getInts("kernel_shape"), op.attrs.getInt("ceil_mode", 0) != 0);
  a.set("count_include_pad", op.attrs.getInt("count_include_pad", 0));
  a.set("x_shape", op.inShape(0));
  c.setInGrad(0, c.add1(OpKind::AveragePoolGrad, {c.outGrad(0)}, a));
}

/// Global pooling: the window is the whole plane.
void gradGlobalPool(GradCtx& c, bool max) {
  const Shape& x = c.in(0)->info.shape();
  Attributes a = poolGradAttrs(c.op(), x, Shape(x.begin() + 2, x.end()), false);
  if (max) {
    c.setInGrad(0, c.add1(OpKind::MaxPoolGrad, {c.outGrad(0), c.in(0)}, a));
  } else {
    a.set("x_shape", x);
    c.setInGrad(0, c.add1(OpKind::AveragePoolGrad, {c.outGrad(0)}, a));
  }
}

void gradGlobalAveragePool(GradCtx& c) {
  gradGlobalPool(c, false);
}
void gradGlobalMaxPool(GradCtx& c) {
  gradGlobalPool(c, true);
}

}  // namespace

void define_MaxPool(OpDef& d) {
  d.setup = setupPool;
  d.grad = gradMaxPool;
}
void define_AveragePool(OpDef& d) {
  d.setup = setupPool;
  d.grad = gradAveragePool;
}
void define_GlobalAveragePool(OpDef& d) {
  d.setup = setupGlobalPool;
  d.grad = gradGlobalAveragePool;
}
void define_GlobalMaxPool(OpDef& d) {
  d.setup = setupGlobalPool;
  d.grad = gradGlobalMaxPool;
}

}  // namespace popart
