// Internal gradient ops of the convolutional and transformer ops: their shape inference. The
// grad rules that create them live in the forward ops' families (conv.cpp, pool.cpp, norm.cpp,
// gather.cpp, shape.cpp, activations.cpp); every window attribute is explicit (auto_pad is
// resolved by the rule), so the kernels see the forward op's exact geometry.
#include "ir/op_def.hpp"
#include "ops/op_util.hpp"
#include "ops/window.hpp"

namespace popart {
namespace {

using namespace ops;

Shape spatialOf(const Shape& s) {
  return Shape(s.begin() + 2, s.end());
}

/// The output spatial dims of a window of `op` (explicit pads) over X of shape `x` must be
/// those of the gradient dY.
void checkWindow(const Op& op, const Shape& x, const std::vector<int64_t>& kernel, bool ceil, const Shape& dy) {
  if (x.size() < 3 || dy.size() != x.size())
    throw error("the gradient {} and the input shape {} must have the same rank >= 3", dy, x);
  const Window w = computeWindow(op, spatialOf(x), kernel, ceil, true);
  if (w.outSpatial != spatialOf(dy))
    throw error("the gradient {} does not match the window over {} (output spatial dims {})", dy, x, w.outSpatial);
}

/// (dY [N, M, ...], W [M, C/group, k...]) -> dX of shape attribute x_shape.
void setupConvDataGrad(Op& op) {
  requireFloat(op, 0);
  requireSameType(op, 0, 1);
  const Shape x = op.attrs.getInts("x_shape");
  const Shape& w = op.inShape(1);
  const Shape& dy = op.inShape(0);
  const int64_t group = op.attrs.getInt("group", 1);
  if (w.size() != x.size() || x.size() < 3 || x[1] != w[1] * group || dy[1] != w[0] || dy[0] != x[0])
    throw error("the gradient {}, the weights {} and the input shape {} (group {}) do not match", dy, w, x, group);
  checkWindow(op, x, Shape(w.begin() + 2, w.end()), false, dy);
  setOutput(op, 0, op.inType(0), x);
}

/// (dY [N, M, ...], X [N, C, ...]) -> dW of shape attribute w_shape.
void setupConvWeightGrad(Op& op) {
  requireFloat(op, 0);
  requireSameType(op, 0, 1);
  const Shape w = op.attrs.getInts("w_shape");
  const Shape& x = op.inShape(1);
  const Shape& dy = op.inShape(0);
  const int64_t group = op.attrs.getInt("group", 1);
  if (w.size() != x.size() || x.size() < 3 || x[1] != w[1] * group || dy[1] != w[0] || dy[0] != x[0])
    throw error("the gradient {}, the input {} and the weight shape {} (group {}) do not match", dy, x, w, group);
  checkWindow(op, x, Shape(w.begin() + 2, w.end()), false, dy);
  setOutput(op, 0, op.inType(0), w);
}

/// (dY, X) -> dX: the gradient goes to the first maximum of each window.
void setupMaxPoolGrad(Op& op) {
  requireFloat(op, 0);
  requireSameType(op, 0, 1);
  checkWindow(op, op.inShape(1), op.attrs.getInts("kernel_shape"), op.attrs.getInt("ceil_mode", 0) != 0, op.inShape(0));
  setOutput(op, 0, op.inInfo(1));
}

/// (dY) -> dX of shape attribute x_shape.
void setupAveragePoolGrad(Op& op) {
  requireFloat(op, 0);
  const Shape x = op.attrs.getInts("x_shape");
  checkWindow(op, x, op.attrs.getInts("kernel_shape"), op.attrs.getInt("ceil_mode", 0) != 0, op.inShape(0));
  setOutput(op, 0, op.inType(0), x);
}

/// (dY, X, scale, mean, var) -> (dX, dScale, dB).
void setupBatchNormGrad(Op& op) {
  requireFloat(op, 0);
  const Shape& x = op.inShape(1);
  if (op.inShape(0) != x) throw error("the gradient {} must have the shape of X {}", op.inShape(0), x);
  if (x.size() < 2) throw error("X must have rank >= 2, got {}", x);
  requireSameType(op, 0, 1);
  // Per channel ([C]) or, for spatial = 0, per activation (X's shape without N); scale, mean
  // and var may be of another floating-point type than X (ops/norm.cpp).
  const Shape perActivation(x.begin() + 1, x.end());
  const Shape c = op.inShape(2) == perActivation ? perActivation : Shape{x[1]};
  for (int i = 2; i < 5; ++i) {
    requireFloat(op, i);
    if (op.inShape(i) != c) throw error("input {} must have shape {}, got {}", i, c, op.inShape(i));
  }
  setOutput(op, 0, op.inInfo(1));
  setOutput(op, 1, op.inInfo(2));
  setOutput(op, 2, op.inInfo(2));
}

/// (dY, X, scale) -> (dX, dScale, dBias); dBias has the shape of scale.
void setupLayerNormGrad(Op& op) {
  requireFloat(op, 0);
  requireSameType(op, 0, 1);
  requireParamType(op, 2, 1);
  const Shape& x = op.inShape(1);
  if (op.inShape(0) != x) throw error("the gradient {} must have the shape of X {}", op.inShape(0), x);
  const int64_t axis = normalizeAxis(op.attrs.getInt("axis", -1), static_cast<int64_t>(x.size()));
  int64_t len = 1;
  for (size_t i = static_cast<size_t>(axis); i < x.size(); ++i) len *= x[i];
  if (op.inInfo(2).nelms() != len)
    throw error("scale {} must have the {} elements of the normalized dimensions of {}", op.inShape(2), len, x);
  setOutput(op, 0, op.inInfo(1));
  setOutput(op, 1, op.inInfo(2));
  setOutput(op, 2, op.inInfo(2));
}

/// (dY, indices) -> dData of shape attribute data_shape: dY scatter-added at the indices.
void setupGatherGrad(Op& op) {
  requireFloat(op, 0);
  requireType(op, 1, {DataType::INT32, DataType::INT64, DataType::UINT32});
  const Shape data = op.attrs.getInts("data_shape");
  const int64_t axis = normalizeAxis(op.attrs.getInt("axis", 0), static_cast<int64_t>(data.size()));
  Shape out(data.begin(), data.begin() + axis);
  out.insert(out.end(), op.inShape(1).begin(), op.inShape(1).end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  if (op.inShape(0) != out)
    throw error("the gradient {} does not match data {} gathered at indices {}", op.inShape(0), data, op.inShape(1));
  setOutput(op, 0, op.inType(0), data);
}

/// (dY) -> dX of shape attribute x_shape: dY placed at starts + i * steps, zeros elsewhere.
void setupSliceGrad(Op& op) {
  requireFloat(op, 0);
  const Shape x = op.attrs.getInts("x_shape");
  const auto starts = op.attrs.getInts("starts");
  const auto steps = op.attrs.getInts("steps");
  const Shape& dy = op.inShape(0);
  if (starts.size() != x.size() || steps.size() != x.size() || dy.size() != x.size())
    throw error("starts {}, steps {} and the gradient {} must have the rank of {}", starts, steps, dy, x);
  for (size_t i = 0; i < x.size(); ++i) {
    if (dy[i] == 0) continue;
    const int64_t last = starts[i] + (dy[i] - 1) * steps[i];
    if (starts[i] < 0 || starts[i] >= x[i] || last < 0 || last >= x[i])
      throw error("the slice of {} elements from {} by {} leaves dimension {} of size {}", dy[i], starts[i], steps[i],
                  i, x[i]);
  }
  setOutput(op, 0, op.inType(0), x);
}

/// (dY, X) -> dX, same shape and type.
void setupGeluGrad(Op& op) {
  requireFloat(op, 0);
  requireSameType(op, 0, 1);
  if (op.inShape(0) != op.inShape(1))
    throw error("the gradient {} and the input {} must have the same shape", op.inShape(0), op.inShape(1));
  setOutput(op, 0, op.inInfo(1));
}

/// (dY, mask[, ratio, training_mode]) -> dX.
void setupDropoutGrad(Op& op) {
  requireFloat(op, 0);
  if (op.inShape(0) != op.inShape(1))
    throw error("the gradient {} and the mask {} must have the same shape", op.inShape(0), op.inShape(1));
  if (op.hasInput(2)) requireFloat(op, 2);
  if (op.hasInput(3)) requireType(op, 3, {DataType::BOOL});
  setOutput(op, 0, op.inInfo(0));
}

}  // namespace

void define_ConvDataGrad(OpDef& d) {
  d.setup = setupConvDataGrad;
}
void define_ConvWeightGrad(OpDef& d) {
  d.setup = setupConvWeightGrad;
}
void define_MaxPoolGrad(OpDef& d) {
  d.setup = setupMaxPoolGrad;
}
void define_AveragePoolGrad(OpDef& d) {
  d.setup = setupAveragePoolGrad;
}
void define_BatchNormGrad(OpDef& d) {
  d.setup = setupBatchNormGrad;
}
void define_LayerNormGrad(OpDef& d) {
  d.setup = setupLayerNormGrad;
}
void define_GatherGrad(OpDef& d) {
  d.setup = setupGatherGrad;
}
void define_SliceGrad(OpDef& d) {
  d.setup = setupSliceGrad;
}
void define_GeluGrad(OpDef& d) {
  d.setup = setupGeluGrad;
}
void define_DropoutGrad(OpDef& d) {
  d.setup = setupDropoutGrad;
}

}  // namespace popart
