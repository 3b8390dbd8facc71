// Convolution: ONNX Conv and ConvTranspose, Graphcore's MultiConv.
#include <algorithm>

#include "common/checked_size.hpp"
#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/multiconv_params.hpp"
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

/// MultiConv: each convolution's output (its data input's type); see multiconv_params.hpp.
void setupMultiConv(Op& op) {
  const std::vector<MultiConvPart> parts = multiConvParts(op);
  if (op.numOutputs() != static_cast<int>(parts.size()))
    throw error("MultiConv has {} outputs but numConvs = {} convolutions", op.numOutputs(), parts.size());
  for (size_t i = 0; i < parts.size(); ++i) setOutput(op, static_cast<int>(i), op.inType(parts[i].x), parts[i].out);
}

/// `x` with `d[k] - 1` zeros between its elements along spatial axis k + 2 (the input dilation),
/// composed of forward ops: per dilated axis, a new axis padded to d, merged and the tail cut.
Tensor* dilateSpatial(GradCtx& c, Tensor* x, const std::vector<int64_t>& d) {
  for (size_t k = 0; k < d.size(); ++k) {
    if (d[k] == 1) continue;
    const Shape s = x->info.shape();
    const size_t a = k + 2;
    Shape withAxis(s.begin(), s.begin() + static_cast<long>(a) + 1);
    withAxis.push_back(1);
    withAxis.insert(withAxis.end(), s.begin() + static_cast<long>(a) + 1, s.end());
    std::vector<int64_t> pads(2 * withAxis.size(), 0);
    pads[withAxis.size() + a + 1] = d[k] - 1;  // after the new axis
    Tensor* padded = c.add1(OpKind::Pad, {c.reshape(x, withAxis), c.constInts(pads)});
    Shape merged = s;
    merged[a] = s[a] * d[k];
    Tensor* flat = c.reshape(padded, merged);
    x = c.add1(OpKind::Slice,
               {flat, c.constInts({0}), c.constInts({(s[a] - 1) * d[k] + 1}), c.constInts({static_cast<int64_t>(a)})});
  }
  return x;
}

/// MultiConv: each convolution's gradients as Conv's rule gives them (ConvDataGrad,
/// ConvWeightGrad, ReduceSum for the bias), the output padding sliced off the output gradient
/// first; with input dilations the weight gradient reads the dilated X and the data gradient is
/// subsampled back to X (PopART's MultiConvDataGrad / MultiConvWeightsGrad compute the same).
void gradMultiConv(GradCtx& c) {
  const std::vector<MultiConvPart> parts = multiConvParts(c.op());
  for (size_t i = 0; i < parts.size(); ++i) {
    const MultiConvPart& p = parts[i];
    Tensor* dy = c.outGrad(static_cast<int>(i));
    if (!dy) continue;
    const size_t n = p.strides.size();
    if (!std::all_of(p.outPads.begin(), p.outPads.end(), [](int64_t v) { return v == 0; })) {
      std::vector<int64_t> starts, ends, axes;
      for (size_t k = 0; k < n; ++k) {
        starts.push_back(p.outPads[k]);
        ends.push_back(p.outPads[k] + p.convOut[k + 2]);
        axes.push_back(static_cast<int64_t>(k + 2));
      }
      dy = c.add1(OpKind::Slice, {dy, c.constInts(starts), c.constInts(ends), c.constInts(axes)});
    }
    Attributes a;
    a.set("pads", p.pads);
    a.set("strides", p.strides);
    a.set("dilations", p.dilations);
    a.set("group", p.group);
    const bool dilated = p.dilatedIn != c.in(p.x)->info.shape();
    if (c.needsInGrad(p.x)) {
      Attributes ad = a;
      ad.set("x_shape", p.dilatedIn);
      Tensor* dx = c.add1(OpKind::ConvDataGrad, {dy, c.in(p.w)}, ad);
      if (dilated) {
        Attributes sub;
        std::vector<int64_t> steps{1, 1};
        steps.insert(steps.end(), p.inDilations.begin(), p.inDilations.end());
        sub.set("strides", steps);
        dx = c.add1(OpKind::GcSubsample, {dx}, sub);
      }
      c.setInGrad(p.x, dx);
    }
    if (c.needsInGrad(p.w)) {
      Attributes aw = a;
      aw.set("w_shape", c.in(p.w)->info.shape());
      Tensor* xd = dilated ? dilateSpatial(c, c.in(p.x), p.inDilations) : c.in(p.x);
      c.setInGrad(p.w, c.add1(OpKind::ConvWeightGrad, {dy, xd}, aw));
    }
    if (p.b >= 0 && c.needsInGrad(p.b)) {
      std::vector<int64_t> axes{0};
      for (size_t k = 0; k < n; ++k) axes.push_back(static_cast<int64_t>(k + 2));
      Attributes r;
      r.set("keepdims", int64_t(0));
      c.setInGrad(p.b, c.add1(OpKind::ReduceSum, {dy, c.constInts(axes)}, r));
    }
  }
}

}  // namespace

namespace ops {

bool MultiConvPart::plain() const {
  return std::all_of(inDilations.begin(), inDilations.end(), [](int64_t v) { return v == 1; }) &&
         std::all_of(outPads.begin(), outPads.end(), [](int64_t v) { return v == 0; });
}

std::vector<MultiConvPart> multiConvParts(const Op& op) {
  const int64_t numConvs = op.attrs.getInt("numConvs", 1);
  if (numConvs < 1) throw error("MultiConvOp '{}' has no input tensors. Provide at least one set of inputs", op.name());
  if (op.numInputs() < 3 * numConvs - 1 || op.numInputs() > 3 * numConvs)
    throw error("MultiConv with numConvs = {} takes {} inputs (x, w, b for each convolution; \"\" for no bias), got {}",
                numConvs, 3 * numConvs, op.numInputs());
  std::vector<MultiConvPart> parts(static_cast<size_t>(numConvs));
  int64_t totalSpatial = 0;
  for (int64_t i = 0; i < numConvs; ++i) {
    MultiConvPart& p = parts[static_cast<size_t>(i)];
    p.x = static_cast<int>(3 * i);
    p.w = p.x + 1;
    p.b = op.hasInput(p.x + 2) ? p.x + 2 : -1;
    if (!op.hasInput(p.x) || !op.hasInput(p.w))
      throw error(
          "Each convolution of MultiConvOp '{}' must have at least two inputs - data and weights (convolution "
          "{} has none at input {})",
          op.name(), i, op.hasInput(p.x) ? p.w : p.x);
    const Shape& xs = op.inShape(p.x);
    if (xs.size() < 3) throw error("convolution {}: input X must have rank >= 3 ([N, C, spatial...]), got {}", i, xs);
    totalSpatial += static_cast<int64_t>(xs.size()) - 2;
  }
  // PopART's MultiConvBaseOp::checkParameters: every flattened list is empty or unpacks exactly.
  auto flat = [&](const char* attr, const char* word, int64_t per) {
    std::vector<int64_t> v = op.attrs.getInts(attr, {});
    if (!v.empty() && static_cast<int64_t>(v.size()) != per * totalSpatial)
      throw error(
          "Unexpected number of {} parameters for convolution op '{}': {} {} must have {} entries ({} per "
          "spatial dimension of the convolutions)",
          word, op.name(), attr, v, per * totalSpatial, per);
    return v;
  };
  const std::vector<int64_t> strides = flat("strides", "stride", 1), pads = flat("pads", "pad", 2),
                             outPads = flat("outPads", "pad", 2), dilations = flat("dilations", "dilation", 1),
                             inDilations = flat("inDilations", "dilation", 1);
  size_t at = 0;
  for (int64_t i = 0; i < numConvs; ++i) {
    MultiConvPart& p = parts[static_cast<size_t>(i)];
    requireFloat(op, p.x);
    requireSameType(op, p.x, p.w);
    const Shape& xs = op.inShape(p.x);
    const Shape& ws = op.inShape(p.w);
    const size_t n = xs.size() - 2;
    if (ws.size() != xs.size()) throw error("convolution {}: weights W {} must have the same rank as X {}", i, ws, xs);
    if (ws[1] <= 0 || xs[1] % ws[1] != 0)
      throw error(
          "convolution {}: the input channels of X {} are not a multiple of W's second dimension {} (the "
          "group count is C / W[1])",
          i, xs, ws);
    p.group = xs[1] / ws[1];
    if (ws[0] % p.group != 0)
      throw error("convolution {}: the output channels of W {} are not divisible by the group count {}", i, ws,
                  p.group);
    if (p.b >= 0) {
      requireSameType(op, p.x, p.b);
      if (op.inShape(p.b) != Shape{ws[0]})
        throw error("convolution {}: bias B must have shape [{}], got {}", i, ws[0], op.inShape(p.b));
    }
    auto slice = [&](const std::vector<int64_t>& v, size_t per, int64_t dflt) {
      if (v.empty()) return std::vector<int64_t>(per * n, dflt);
      return std::vector<int64_t>(v.begin() + static_cast<long>(per * at),
                                  v.begin() + static_cast<long>(per * (at + n)));
    };
    p.strides = slice(strides, 1, 1);
    p.dilations = slice(dilations, 1, 1);
    p.inDilations = slice(inDilations, 1, 1);
    p.pads = slice(pads, 2, 0);
    p.outPads = slice(outPads, 2, 0);
    at += n;
    p.dilatedIn = xs;
    p.convOut = Shape{xs[0], ws[0]};
    p.out = p.convOut;
    for (size_t k = 0; k < n; ++k) {
      const int64_t s = p.strides[k], d = p.dilations[k], di = p.inDilations[k];
      if (s <= 0 || d <= 0 || di <= 0)
        throw error("convolution {}: strides {}, dilations {} and inDilations {} must be positive", i, p.strides,
                    p.dilations, p.inDilations);
      if (p.pads[k] < 0 || p.pads[k + n] < 0 || p.outPads[k] < 0 || p.outPads[k + n] < 0)
        throw error("convolution {}: pads {} and outPads {} must be >= 0", i, p.pads, p.outPads);
      int64_t dil = 0, eff = 0, span = 0;
      if (!checkedMul(xs[k + 2] - 1, di, &dil) || !checkedMul(ws[k + 2] - 1, d, &eff) ||
          !checkedAdd(dil + 1, p.pads[k], &span) || !checkedAdd(span, p.pads[k + n], &span))
        throw error("convolution {}: the window of W {} (dilations {}) and the padding of X {} overflow a 64-bit size",
                    i, ws, p.dilations, xs);
      p.dilatedIn[k + 2] = xs[k + 2] == 0 ? 0 : dil + 1;
      span -= eff + 1;
      if (span < 0 || xs[k + 2] == 0)
        throw error(
            "Window parameter values combine to give invalid spatial output shape: convolution {} (X {}, W {}, "
            "pads {}, dilations {}, inDilations {}) has a window larger than its padded input",
            i, xs, ws, p.pads, p.dilations, p.inDilations);
      const int64_t o = span / s + 1;
      p.convOut.push_back(o);
      p.out.push_back(o + p.outPads[k] + p.outPads[k + n]);
    }
  }
  return parts;
}

}  // namespace ops

void define_GcMultiConv(OpDef& d) {
  d.setup = setupMultiConv;
  d.grad = gradMultiConv;
}

void define_ConvTranspose(OpDef& d) {
  d.setup = setupConvTranspose;
  d.grad = gradConvTranspose;
}

void define_Conv(OpDef& d) {
  d.setup = setupConv;
  d.grad = gradConv;
}

}  // namespace popart
