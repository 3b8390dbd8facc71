// Convolution.
#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"
#include "ops/window.hpp"

namespace popart {
namespace {

using namespace ops;

void setupConv(Op& op) {
  requireFloat(op, 0);
  requireSameType(op, 0, 1);
  const Shape& x = op.inShape(0);
  const Shape& w = op.inShape(1);
  if (x.size() < 3) throw error("input X must have rank >= 3 ([N, C, spatial...]), got {}", x);
  if (w.size() != x.size()) throw error("weights W {} must have the same rank as X {}", w, x);
  const int64_t group = op.attrs.getInt("group", 1);
  // PopART's messages first (ConvOp::setup), then the shapes.
  if (group <= 0) throw error("group attribute in {} must be greater than zero (got {})", op.name(), group);
  if (x[1] != w[1] * group)
    throw error(
        "Invalid value for group ({}) in {}. number of input channels ({}) / group ({}) should be equal to the weight "
        "inputs second dimension ({}): X has {} channels but W {} with group {} expects {}",
        group, op.name(), x[1], group, w[1], x[1], w, group, w[1] * group);
  if (w[0] % group != 0) throw error("the output channels of W {} are not divisible by group {}", w, group);
  const std::vector<int64_t> kernel(w.begin() + 2, w.end());
  if (op.attrs.has("kernel_shape") && op.attrs.getInts("kernel_shape") != kernel)
    throw error("kernel_shape {} does not match the weights' spatial shape {}", op.attrs.getInts("kernel_shape"),
                kernel);
  if (op.hasInput(2)) {
    requireSameType(op, 0, 2);
    if (op.inShape(2) != Shape{w[0]}) throw error("bias B must have shape [{}], got {}", w[0], op.inShape(2));
  }
  const Window win = computeWindow(op, std::vector<int64_t>(x.begin() + 2, x.end()), kernel, false, true);
  Shape out{x[0], w[0]};
  out.insert(out.end(), win.outSpatial.begin(), win.outSpatial.end());
  setOutput(op, 0, op.inType(0), out);
}

void setupConvTranspose(Op& op) {
  requireFloat(op, 0);
  requireSameType(op, 0, 1);
  const Shape& x = op.inShape(0);
  const Shape& w = op.inShape(1);
  if (x.size() < 3 || w.size() != x.size()) throw error("X {} and W {} must both have rank >= 3", x, w);
  const int64_t group = op.attrs.getInt("group", 1);
  if (group <= 0 || x[1] != w[0]) throw error("X has {} channels but W {} expects {}", x[1], w, w[0]);
  const int64_t m = w[1] * group;
  if (op.hasInput(2) && op.inShape(2) != Shape{m}) throw error("bias B must have shape [{}], got {}", m, op.inShape(2));
  const std::vector<int64_t> kernel(w.begin() + 2, w.end());
  const Window win = computeTransposeWindow(op, std::vector<int64_t>(x.begin() + 2, x.end()), kernel);
  Shape out{x[0], m};
  out.insert(out.end(), win.outSpatial.begin(), win.outSpatial.end());
  setOutput(op, 0, op.inType(0), out);
}

/// The forward window as explicit attributes of a grad op (auto_pad resolved).
Attributes windowAttrs(const Window& w) {
  Attributes a;
  std::vector<int64_t> pads = w.padBegin;
  pads.insert(pads.end(), w.padEnd.begin(), w.padEnd.end());
  a.set("pads", pads);
  a.set("strides", w.strides);
  a.set("dilations", w.dilations);
  return a;
}

/// Conv: dX = ConvDataGrad(dY, W), dW = ConvWeightGrad(dY, X), dB = dY summed over all but the
/// channel axis.
void gradConv(GradCtx& c) {
  const Op& op = c.op();
  const Shape& x = op.inShape(0);
  const Shape& w = op.inShape(1);
  const Window win = computeWindow(op, Shape(x.begin() + 2, x.end()), Shape(w.begin() + 2, w.end()), false, true);
  Attributes a = windowAttrs(win);
  a.set("group", op.attrs.getInt("group", 1));
  Tensor* dy = c.outGrad(0);
  if (c.needsInGrad(0)) {
    Attributes ad = a;
    ad.set("x_shape", x);
    c.setInGrad(0, c.add1(OpKind::ConvDataGrad, {dy, c.in(1)}, ad));
  }
  if (c.needsInGrad(1)) {
    Attributes aw = a;
    aw.set("w_shape", w);
    c.setInGrad(1, c.add1(OpKind::ConvWeightGrad, {dy, c.in(0)}, aw));
  }
  if (c.needsInGrad(2)) {
    std::vector<int64_t> axes{0};
    for (size_t d = 2; d < x.size(); ++d) axes.push_back(static_cast<int64_t>(d));
    Attributes r;
    r.set("keepdims", int64_t(0));
    c.setInGrad(2, c.add1(OpKind::ReduceSum, {dy, c.constInts(axes)}, r));
  }
}

/// ConvTranspose is the adjoint of a Conv whose weights are W ([C, M / group, k...]) in the same
/// window: dX = Conv(dY, W), dW = ConvWeightGrad with the roles of X and dY swapped, dB = dY
/// summed over all but the channel axis.
void gradConvTranspose(GradCtx& c) {
  const Op& op = c.op();
  const Shape& x = op.inShape(0);
  const Shape& w = op.inShape(1);
  const Window win = computeTransposeWindow(op, Shape(x.begin() + 2, x.end()), Shape(w.begin() + 2, w.end()));
  Attributes a = windowAttrs(win);
  a.set("group", op.attrs.getInt("group", 1));
  Tensor* dy = c.outGrad(0);
  if (c.needsInGrad(0)) {
    Tensor* dx = c.add1(OpKind::Conv, {dy, c.in(1)}, a, 11);
    if (dx->info.shape() != x)
      throw error("the gradient of this ConvTranspose (output {} for input {}) is not supported",
                  c.out(0)->info.shape(), x);
    c.setInGrad(0, dx);
  }
  if (c.needsInGrad(1)) {
    Attributes aw = a;
    aw.set("w_shape", w);
    c.setInGrad(1, c.add1(OpKind::ConvWeightGrad, {c.in(0), dy}, aw));
  }
  if (c.needsInGrad(2)) {
    std::vector<int64_t> axes{0};
    for (size_t d = 2; d < x.size(); ++d) axes.push_back(static_cast<int64_t>(d));
    Attributes r;
    r.set("keepdims", int64_t(0));
    c.setInGrad(2, c.add1(OpKind::ReduceSum, {dy, c.constInts(axes)}, r));
  }
}

}  // namespace

void define_ConvTranspose(OpDef& d) {
  d.setup = setupConvTranspose;
  d.grad = gradConvTranspose;
}

void define_Conv(OpDef& d) {
  d.setup = setupConv;
  d.grad = gradConv;
}

}  // namespace popart
