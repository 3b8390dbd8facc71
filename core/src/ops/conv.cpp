// Convolution.
#include "ops/op_def.hpp"
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
  if (group <= 0) throw error("group must be positive, got {}", group);
  if (x[1] != w[1] * group)
    throw error("X has {} channels but W {} with group {} expects {}", x[1], w, group, w[1] * group);
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

}  // namespace

void define_ConvTranspose(OpDef& d) {
  d.minInputs = 2;
  d.maxInputs = 3;
  d.setup = setupConvTranspose;
}

void define_Conv(OpDef& d) {
  d.minInputs = 2;
  d.maxInputs = 3;
  d.setup = setupConv;
}

}  // namespace popart
