// Signal processing: HannWindow, HammingWindow, BlackmanWindow, DFT, STFT, MelWeightMatrix; the
// gradients of DFT (the adjoint transform) and STFT (through its framing, window and DFT).
#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"
#include "ops/signal_params.hpp"

namespace popart {
namespace ops {
namespace {

/// The value of the scalar integer input i, which must be constant ("what" says why).
int64_t constScalarInt(const Op& op, int i, const char* what) {
  requireType(op, i, {DataType::INT32, DataType::INT64});
  const TensorData& d = op.requireInData(i, what);
  if (d.info().nelms() != 1)
    throw error("input {} ('{}', {}) must be a scalar, got {}", i, op.input(i)->id, what, d.info().toString());
  return d.toInt64()[0];
}

}  // namespace

int64_t windowLength(const Op& op) {
  const int64_t n = constScalarInt(op, 0, "the window length");
  if (n < 0) throw error("the window length must not be negative, got {}", n);
  return n;
}

DftParams dftParams(const Op& op) {
  requireFloat(op, 0);
  const Shape& x = op.inShape(0);
  const int64_t r = static_cast<int64_t>(x.size());
  if (r < 3 || (x.back() != 1 && x.back() != 2))
    throw error("the input must be [batch, signal dims..., 1] (real) or [batch, signal dims..., 2] (complex), got {}",
                x);
  DftParams p;
  p.complexIn = x.back() == 2;
  const int64_t attrAxis = op.attrs.getInt("axis", 1);
  const int64_t axis = attrAxis < 0 ? attrAxis + r : attrAxis;
  if (axis < 0 || axis > r - 2)
    throw error("axis {} is out of range for an input of rank {} (it must name a signal dimension: {} to {})", attrAxis,
                r, -r, r - 2);
  p.axis = axis;
  p.length = x[static_cast<size_t>(axis)];
  if (op.hasInput(1)) {
    p.length = constScalarInt(op, 1, "the DFT length");
    if (p.length <= 0) throw error("dft_length must be positive, got {}", p.length);
  }
  if (p.length <= 0) throw error("the signal dimension {} of {} is empty", axis, x);
  p.inverse = op.attrs.getInt("inverse", 0) != 0;
  const bool onesided = op.attrs.getInt("onesided", 0) != 0;
  if (onesided && p.inverse) throw error("an inverse DFT with onesided=1 is not supported");
  p.outLen = onesided ? p.length / 2 + 1 : p.length;
  return p;
}

StftParams stftParams(const Op& op) {
  requireFloat(op, 0);
  const Shape& x = op.inShape(0);
  if (x.size() != 3 || (x[2] != 1 && x[2] != 2))
    throw error("the signal must be [batch, length, 1] (real) or [batch, length, 2] (complex), got {}", x);
  StftParams p;
  p.batch = x[0];
  p.signalLength = x[1];
  p.complexIn = x[2] == 2;
  p.step = constScalarInt(op, 1, "the frame step");
  if (p.step <= 0) throw error("frame_step must be positive, got {}", p.step);
  int64_t windowLen = -1;
  if (op.hasInput(2)) {
    requireSameType(op, 0, 2);
    requireRank(op, 2, 1);
    windowLen = op.inShape(2)[0];
  }
  if (op.hasInput(3)) {
    p.length = constScalarInt(op, 3, "the frame length");
    if (windowLen >= 0 && windowLen != p.length)
      throw error("the window has {} elements but frame_length is {}", windowLen, p.length);
  } else if (windowLen >= 0) {
    p.length = windowLen;
  } else {
    throw error("either a window or frame_length must be given");
  }
  if (p.length <= 0) throw error("the frame length must be positive, got {}", p.length);
  if (p.length > p.signalLength)
    throw error("the frame length {} is longer than the signal ({} samples)", p.length, p.signalLength);
  const bool onesided = op.attrs.getInt("onesided", 1) != 0;
  if (onesided && p.complexIn) throw error("onesided=1 needs a real signal, got a complex one {}", x);
  p.frames = (p.signalLength - p.length) / p.step + 1;
  p.outLen = onesided ? p.length / 2 + 1 : p.length;
  return p;
}

}  // namespace ops

namespace {

using namespace ops;

DataType outputDatatype(const Op& op) {
  return dataTypeFromOnnx(static_cast<int>(op.attrs.getInt("output_datatype", 1)));
}

void setupWindow(Op& op) {
  const DataType t = outputDatatype(op);
  if (t == DataType::BOOL || t == DataType::STRING)
    throw error("output_datatype {} is not a numeric type", dataTypeToString(t));
  setOutput(op, 0, t, {windowLength(op)});
}

void setupDFT(Op& op) {
  const DftParams p = dftParams(op);
  Shape out = op.inShape(0);
  out[static_cast<size_t>(p.axis)] = p.outLen;
  out.back() = 2;
  setOutput(op, 0, op.inType(0), out);
}

void setupSTFT(Op& op) {
  const StftParams p = stftParams(op);
  setOutput(op, 0, op.inType(0), {p.batch, p.frames, p.outLen, 2});
}

void setupMelWeightMatrix(Op& op) {
  const int64_t bins = constScalarInt(op, 0, "the number of mel bins");
  const int64_t dft = constScalarInt(op, 1, "the DFT length");
  requireType(op, 2, {DataType::INT32, DataType::INT64});
  requireFloat(op, 3);
  requireFloat(op, 4);
  for (int i = 2; i < 5; ++i) {
    if (op.inInfo(i).nelms() != 1)
      throw error("input {} ('{}') must be a scalar, got {}", i, op.input(i)->id, op.inInfo(i).toString());
  }
  if (bins <= 0) throw error("num_mel_bins must be positive, got {}", bins);
  if (dft <= 0) throw error("dft_length must be positive, got {}", dft);
  if (const TensorData* rate = op.inData(2)) {
    if (rate->getDouble(0) <= 0) throw error("sample_rate must be positive, got {}", rate->getDouble(0));
  }
  const DataType t = outputDatatype(op);
  if (t == DataType::BOOL || t == DataType::STRING)
    throw error("output_datatype {} is not a numeric type", dataTypeToString(t));
  setOutput(op, 0, t, {dft / 2 + 1, bins});
}

// ---------------------------------------------------------------- gradients

/// `v` along `axis` cut to `to` entries or padded with zeros to them (it has `from`).
Tensor* toLength(GradCtx& c, Tensor* v, int64_t axis, int64_t from, int64_t to) {
  if (from == to) return v;
  if (from > to) return c.slice(v, axis, 0, to);
  Shape zeros = v->info.shape();
  zeros[static_cast<size_t>(axis)] = to - from;
  Attributes a;
  a.set("axis", axis);
  return c.add1(OpKind::Concat, {v, c.constant(0.0, v->info.dataType(), zeros)}, a);
}

/// DFT is linear, so its gradient is the adjoint transform of the output's gradient: the
/// frequencies a onesided output leaves out get none (zero-padded), the forward transform's
/// adjoint is n times the inverse one and the inverse's is 1 / n times the forward one, then the
/// input's length is restored (what dft_length cut off gets none; its padding is dropped) and a
/// real input takes the real part.
void gradDFT(GradCtx& c) {
  if (!c.needsInGrad(0) || !c.outGrad(0)) return;
  const DftParams p = dftParams(c.op());
  const Shape& xs = c.in(0)->info.shape();
  Tensor* g = toLength(c, c.outGrad(0), p.axis, p.outLen, p.length);
  Attributes a;
  a.set("axis", p.axis);
  a.set("inverse", int64_t{p.inverse ? 0 : 1});
  a.set("onesided", int64_t{0});
  Tensor* dx = c.add1(OpKind::DFT, {g}, a, 17);
  const double n = static_cast<double>(p.length);
  dx = c.add1(OpKind::Mul, {dx, c.constant(p.inverse ? 1.0 / n : n, dx->info.dataType())});
  dx = toLength(c, dx, p.axis, p.length, xs[static_cast<size_t>(p.axis)]);
  if (!p.complexIn) dx = toLength(c, dx, static_cast<int64_t>(xs.size()) - 1, 2, 1);
  c.setInGrad(0, dx);
}

/// STFT as frames gathered from the signal, times the window, then a DFT along the frame; the
/// gradient backpropagates through that decomposition (to the signal and the window).
void gradSTFT(GradCtx& c) {
  const Op& op = c.op();
  const bool needSignal = c.needsInGrad(0), needWindow = op.hasInput(2) && c.needsInGrad(2);
  if (!c.outGrad(0) || (!needSignal && !needWindow)) return;
  const StftParams p = stftParams(op);
  const size_t mark = c.numAdded();
  std::vector<int64_t> rows(static_cast<size_t>(p.frames * p.length));
  for (int64_t f = 0; f < p.frames; ++f) {
    for (int64_t m = 0; m < p.length; ++m) rows[static_cast<size_t>(f * p.length + m)] = f * p.step + m;
  }
  Attributes axis1;
  axis1.set("axis", int64_t{1});
  Tensor* frames = c.add1(OpKind::Gather, {c.in(0), c.reshape(c.constInts(rows), {p.frames, p.length})}, axis1);
  if (op.hasInput(2)) frames = c.add1(OpKind::Mul, {frames, c.reshape(c.in(2), {1, 1, p.length, 1})});
  Attributes a;
  a.set("axis", int64_t{2});
  a.set("onesided", op.attrs.getInt("onesided", 1));
  Tensor* y = c.add1(OpKind::DFT, {frames}, a, 17);
  const std::vector<Tensor*> g =
      c.backprop(mark, {{y, c.outGrad(0)}}, {needSignal ? c.in(0) : nullptr, needWindow ? c.in(2) : nullptr});
  if (g[0]) c.setInGrad(0, g[0]);
  if (g[1]) c.setInGrad(2, g[1]);
}

void windowDef(OpDef& d) {
  d.setup = setupWindow;
  d.shapeInputsMask = 1;
}

}  // namespace

void define_HannWindow(OpDef& d) {
  windowDef(d);
}
void define_HammingWindow(OpDef& d) {
  windowDef(d);
}
void define_BlackmanWindow(OpDef& d) {
  windowDef(d);
}
void define_DFT(OpDef& d) {
  d.setup = setupDFT;
  d.grad = gradDFT;
  d.shapeInputsMask = 2;
}
void define_STFT(OpDef& d) {
  d.setup = setupSTFT;
  d.grad = gradSTFT;
  d.shapeInputsMask = 0xa;
}
void define_MelWeightMatrix(OpDef& d) {
  d.setup = setupMelWeightMatrix;
  d.shapeInputsMask = 3;
}

}  // namespace popart
