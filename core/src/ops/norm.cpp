// Normalization: BatchNormalization (ONNX's and Graphcore's), InstanceNormalization,
// LayerNormalization, Graphcore's GroupNormalization; Dropout.
#include <algorithm>

#include "ir/graph.hpp"
#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace {

using namespace ops;

/// BatchNormalization's parameter (scale, B, mean or var) `i` must have shape `c`: PopART's
/// BatchNormOp message ("expected shape of batch norm input tensor var ([1]) to be [2] to match
/// dimension 1 of X ([2 2 2 2])") at its opsets, ours after it naming the input.
void requireBatchNormParamShape(const Op& op, int i, const Shape& c, bool spatial) {
  if (op.inShape(i) == c) return;
  static const char* names[] = {"", "scale", "B", "mean", "var"};
  const Shape& x = op.inShape(0);
  throw error("expected shape of batch norm input tensor {} ({}) to be {} to match {} of X ({}): input {} ('{}')",
              names[i], op.inShape(i), c, spatial ? "dimension 1" : "all but the first dimension", x, i,
              op.input(i)->id);
}

// The scale, B, mean and var may be of another floating-point type than X (FLOAT statistics of
// FLOAT16 activations, as PopART allows).
void setupBatchNorm(Op& op) {
  requireFloat(op, 0);
  const Shape& x = op.inShape(0);
  if (x.size() < 2) throw error("input X must have rank >= 2 ([N, C, ...]), got {}", x);
  // spatial = 0 (opset < 9): mean and variance per activation, parameters of shape [C, D1, ...].
  const bool spatial = op.opset() >= 9 || op.attrs.getInt("spatial", 1) != 0;
  const Shape c = spatial ? Shape{x[1]} : Shape(x.begin() + 1, x.end());
  for (int i = 1; i < 5; ++i) {
    requireFloat(op, i);
    requireBatchNormParamShape(op, i, c, spatial);
  }
  setupSameAsInput0(op);
  // The running and saved mean have mean's type, the variances var's (PopART: FLOAT16 mean, FLOAT var).
  for (int i = 1; i < op.numOutputs(); ++i) setOutput(op, i, op.inType(i % 2 == 1 ? 3 : 4), c);
}

void setupInstanceNorm(Op& op) {
  requireFloat(op, 0);
  const Shape& x = op.inShape(0);
  if (x.size() < 3) throw error("input X must have rank >= 3 ([N, C, spatial...]), got {}", x);
  for (int i = 1; i < 3; ++i) {
    requireParamType(op, i, 0);
    if (op.inShape(i) != Shape{x[1]})
      throw error("input {} ('{}') must have shape [{}], got {}", i, op.input(i)->id, x[1], op.inShape(i));
  }
  setupSameAsInput0(op);
}

/// MeanVarianceNormalization's axes (default [0, 2, 3]: per channel of NCHW), normalised.
std::vector<int64_t> mvnAxes(const Op& op) {
  return normalizeAxes(op.attrs.getInts("axes", {0, 2, 3}), op.inInfo(0).rank());
}

void setupMeanVarianceNorm(Op& op) {
  requireFloat(op, 0);
  if (op.inType(0) == DataType::BFLOAT16 && op.opset() < 13)
    throw error("input 0 ('{}') is BFLOAT16, which MeanVarianceNormalization takes from opset 13 (the model's is {})",
                op.input(0)->id, op.opset());
  const Shape& x = op.inShape(0);
  if (!op.attrs.has("axes") && x.size() < 4)
    throw error("the default axes [0, 2, 3] need X of rank >= 4, got {}; give the axes attribute", x);
  mvnAxes(op);
  setupSameAsInput0(op);
}

void setupLayerNorm(Op& op) {
  requireFloat(op, 0);
  const Shape& x = op.inShape(0);
  const int64_t axis = normalizeAxis(op.attrs.getInt("axis", -1), static_cast<int64_t>(x.size()));
  const Shape norm(x.begin() + axis, x.end());
  for (int i = 1; i < 3; ++i) {
    if (!op.hasInput(i)) continue;
    requireParamType(op, i, 0);
    Shape b;
    try {
      b = npOut(norm, op.inShape(i));
    } catch (const error&) {
    }
    if (b != norm)
      throw error("input {} ('{}') with shape {} does not broadcast to the normalized shape {}", i, op.input(i)->id,
                  op.inShape(i), norm);
  }
  setupSameAsInput0(op);
  Shape stat = x;
  for (size_t i = static_cast<size_t>(axis); i < stat.size(); ++i) stat[i] = 1;
  const int64_t stash = op.attrs.getInt("stash_type", 1);
  const DataType st = stash == 1 ? DataType::FLOAT : op.inType(0);
  setOutput(op, 1, st, stat);
  setOutput(op, 2, st, stat);
}

/// Graphcore's GroupNormalization: {X [N, C, ...], scale [C], bias [C]} -> [Y, mean [N * G],
/// invStdDev [N * G]] (PopART's GroupNormOp: statistics per sample and group, n-major).
void setupGroupNorm(Op& op) {
  requireFloat(op, 0);
  const Shape& x = op.inShape(0);
  if (x.size() < 2) throw error("input X must have rank >= 2 ([N, C, ...]), got {}", x);
  const int64_t groups = op.attrs.getInt("num_groups");
  if (groups <= 0 || x[1] % groups != 0)
    throw error("num_groups = {} must be positive and divide the channel count C = {} of X {}", groups, x[1], x);
  const char* names[] = {"", "scale", "bias"};
  for (int i = 1; i < 3; ++i) {
    requireParamType(op, i, 0);
    if (op.inShape(i) != Shape{x[1]})
      throw error("input {} ({} '{}') must have shape [{}] (the channel count of X {}), got {}", i, names[i],
                  op.input(i)->id, x[1], x, op.inShape(i));
  }
  setupSameAsInput0(op);
  for (int i = 1; i < op.numOutputs(); ++i) setOutput(op, i, op.inType(0), Shape{x[0] * groups});
}

void setupDropout(Op& op) {
  if (op.opset() >= 12) {
    requireFloat(op, 0);
    if (op.hasInput(1) && op.inInfo(1).nelms() != 1) throw error("ratio must be a scalar");
    if (const TensorData* r = op.hasInput(1) ? op.inConstData(1) : nullptr) {
      const double ratio = r->toDouble().at(0);
      if (!(ratio >= 0.0 && ratio < 1.0))
        throw error("ratio value {} is not valid. Please use a value in the interval [0,1)", ratio);
    }
    if (op.hasInput(2)) requireType(op, 2, {DataType::BOOL});
  } else {
    const float ratio = op.attrs.getFloat("ratio", 0.5f);
    if (!(ratio >= 0.0f && ratio < 1.0f))  // PopART's message (as ShapedDropout's)
      throw error("ratio value {} is not valid. Please use a value in the interval [0,1)", ratio);
  }
  setupSameAsInput0(op);
  setOutput(op, 1, op.opset() >= 10 ? DataType::BOOL : op.inType(0), op.inShape(0));
}

// ---------------------------------------------------------------- grad rules

void noStatisticsGradients(const GradCtx& c, const char* what) {
  for (int o = 1; o < c.op().numOutputs(); ++o) {
    if (c.outGrad(o))
      throw error(
          "gradients through {}'s output {} ('{}') are not supported; only the normalized output {} is "
          "differentiable",
          what, o, c.out(o)->id, c.out(0)->id);
  }
}

/// BatchNormalization: BatchNormGrad gives dX, dScale, dB. In training mode (training_mode = 1
/// from opset 14, more than one output before, as the forward kernel decides) Y uses the batch
/// statistics, so dX has the terms of the batch mean and variance; otherwise the statistics are
/// the mean / var inputs, which get no gradient (PopART never trains them; it refuses an
/// inference-mode op the gradient reaches, which trains here: fine-tuning with frozen statistics).
/// The running
/// statistics are outputs of the forward op (momentum * input + (1 - momentum) * batch); they
/// are not differentiated.
void gradBatchNorm(GradCtx& c) {
  const Op& op = c.op();
  noStatisticsGradients(c, "BatchNormalization");
  const bool training = op.opset() >= 14 ? op.attrs.getInt("training_mode", 0) != 0 : op.numOutputs() > 1;
  Attributes a;
  a.set("epsilon", op.attrs.getFloat("epsilon", 1e-5f));
  a.set("training", int64_t(training ? 1 : 0));
  const auto g = c.add(OpKind::BatchNormGrad, {c.outGrad(0), c.in(0), c.in(1), c.in(3), c.in(4)}, a, 3);
  for (int i = 0; i < 3; ++i) c.setInGrad(i, g[static_cast<size_t>(i)]);
}

/// LayerNormalization: LayerNormGrad gives dX, dScale and dBias (in scale's shape).
void gradLayerNorm(GradCtx& c) {
  const Op& op = c.op();
  noStatisticsGradients(c, "LayerNormalization");
  Attributes a;
  a.set("axis", op.attrs.getInt("axis", -1));
  a.set("epsilon", op.attrs.getFloat("epsilon", 1e-5f));
  const auto g = c.add(OpKind::LayerNormGrad, {c.outGrad(0), c.in(0), c.in(1)}, a, 3);
  c.setInGrad(0, g[0]);
  c.setInGrad(1, g[1]);
  if (c.needsInGrad(2)) c.setInGrad(2, c.reshape(g[2], c.in(2)->info.shape()));
}

/// Dropout: the identity where the forward kernel is (opset 7 to 11 outside a TrainingSession (no
/// "training" attribute), no training_mode input, a constant training_mode of false or ratio of
/// 0); otherwise DropoutGrad applies the forward
/// op's mask (the op gets a mask output if it has none) and its 1 / (1 - ratio) scale, deciding
/// at run time as the forward kernel does.
void gradDropout(GradCtx& c) {
  const Op& op = c.op();
  const int opset = op.opset();
  bool identity = false;
  if (opset >= 12) {
    const TensorData* train = op.hasInput(2) ? op.inData(2) : nullptr;
    const TensorData* ratio = op.hasInput(1) ? op.inData(1) : nullptr;
    identity = !op.hasInput(2) || (train && train->toInt64().at(0) == 0) || (ratio && ratio->getDouble(0) == 0.0);
  } else if (opset >= 7) {
    identity = op.attrs.getInt("training", 0) == 0 || op.attrs.getFloat("ratio", 0.5f) == 0.0f;
  } else {
    identity = op.attrs.getInt("is_test", 0) != 0 || op.attrs.getFloat("ratio", 0.5f) == 0.0f;
  }
  if (identity) {
    c.setInGrad(0, c.outGrad(0));
    return;
  }
  Tensor* mask = op.hasOutput(1) ? op.output(1) : nullptr;
  if (!mask) {
    // The forward op also writes its mask (the grad op cannot draw the same random numbers).
    Op& fwd = const_cast<Op&>(op);
    Graph& g = fwd.graph();
    mask = &g.addTensor(g.uniqueTensorId(op.name() + "/mask"), TensorKind::ActGrad, TensorInfo());
    fwd.connectOutput(1, mask);
    fwd.setup();
  }
  Attributes a;
  a.set("ratio", opset < 12 ? op.attrs.getFloat("ratio", 0.5f) : 0.5f);
  a.set("training", int64_t(opset < 12 ? 1 : 0));  // (opset 12 on: its training_mode input)
  Tensor* ratio = opset >= 12 && op.hasInput(1) ? c.in(1) : nullptr;
  Tensor* train = opset >= 12 && op.hasInput(2) ? c.in(2) : nullptr;
  c.setInGrad(0, c.add1(OpKind::DropoutGrad, {c.outGrad(0), mask, ratio, train}, a));
}

}  // namespace

void define_BatchNormalization(OpDef& d) {
  d.setup = setupBatchNorm;
  d.grad = gradBatchNorm;
}
namespace {

/// InstanceNormalization recomputed from forward ops (mean and biased variance over the spatial
/// dimensions) and differentiated by backprop: dX, dScale, dB.
void gradInstanceNorm(GradCtx& c) {
  const Shape& x = c.in(0)->info.shape();
  const DataType t = c.in(0)->info.dataType();
  std::vector<int64_t> axes;
  for (size_t d = 2; d < x.size(); ++d) axes.push_back(static_cast<int64_t>(d));
  Shape perChannel(x.size(), 1);
  perChannel[1] = x[1];
  const size_t mark = c.numAdded();
  Attributes mean;
  mean.set("axes", axes);
  mean.set("keepdims", int64_t(1));
  Tensor* centred = c.add1(OpKind::Sub, {c.in(0), c.add1(OpKind::ReduceMean, {c.in(0)}, mean)});
  Tensor* var = c.add1(OpKind::ReduceMean, {c.add1(OpKind::Mul, {centred, centred})}, mean);
  Tensor* sd =
      c.add1(OpKind::Sqrt, {c.add1(OpKind::Add, {var, c.constant(c.op().attrs.getFloat("epsilon", 1e-5f), t)})});
  Tensor* y =
      c.add1(OpKind::Add, {c.add1(OpKind::Mul, {c.add1(OpKind::Div, {centred, sd}), c.reshape(c.in(1), perChannel)}),
                           c.reshape(c.in(2), perChannel)});
  std::vector<Tensor*> wrt;
  for (int i = 0; i < 3; ++i) wrt.push_back(c.needsInGrad(i) ? c.in(i) : nullptr);
  const std::vector<Tensor*> g = c.backprop(mark, {{y, c.outGrad(0)}}, wrt);
  for (int i = 0; i < 3; ++i) {
    if (g[static_cast<size_t>(i)]) c.setInGrad(i, g[static_cast<size_t>(i)]);
  }
}

/// GroupNormalization recomputed from forward ops (X as [N, G, C / G * spatial], mean and
/// biased variance over the last axis) and differentiated by backprop: dX, dScale, dBias (what
/// PopART's GroupNormGradOp gives). The mean / invStdDev outputs are not differentiable.
void gradGroupNorm(GradCtx& c) {
  noStatisticsGradients(c, "GroupNormalization");
  const Shape& x = c.in(0)->info.shape();
  const DataType t = c.in(0)->info.dataType();
  const int64_t groups = c.op().attrs.getInt("num_groups");
  const int64_t per = c.in(0)->info.nelms() / std::max<int64_t>(1, x[0] * groups);
  Shape perChannel(x.size(), 1);
  perChannel[1] = x[1];
  const size_t mark = c.numAdded();
  Attributes mean;
  mean.set("axes", std::vector<int64_t>{2});
  mean.set("keepdims", int64_t(1));
  Tensor* xg = c.reshape(c.in(0), {x[0], groups, per});
  Tensor* centred = c.add1(OpKind::Sub, {xg, c.add1(OpKind::ReduceMean, {xg}, mean)});
  Tensor* var = c.add1(OpKind::ReduceMean, {c.add1(OpKind::Mul, {centred, centred})}, mean);
  Tensor* sd =
      c.add1(OpKind::Sqrt, {c.add1(OpKind::Add, {var, c.constant(c.op().attrs.getFloat("epsilon", 1e-5f), t)})});
  Tensor* normed = c.reshape(c.add1(OpKind::Div, {centred, sd}), x);
  Tensor* y = c.add1(OpKind::Add,
                     {c.add1(OpKind::Mul, {normed, c.reshape(c.in(1), perChannel)}), c.reshape(c.in(2), perChannel)});
  std::vector<Tensor*> wrt;
  for (int i = 0; i < 3; ++i) wrt.push_back(c.needsInGrad(i) ? c.in(i) : nullptr);
  const std::vector<Tensor*> g = c.backprop(mark, {{y, c.outGrad(0)}}, wrt);
  for (int i = 0; i < 3; ++i) {
    if (g[static_cast<size_t>(i)]) c.setInGrad(i, g[static_cast<size_t>(i)]);
  }
}

}  // namespace

void define_GcGroupNormalization(OpDef& d) {
  d.setup = setupGroupNorm;
  d.grad = gradGroupNorm;
}

/// Graphcore's BatchNormalization: ONNX's (the pre-14 form: more than one output is training)
/// whose running variance takes the unbiased batch variance (the kernel).
void define_GcBatchNormalization(OpDef& d) {
  d.setup = setupBatchNorm;
  d.grad = gradBatchNorm;
}
void define_InstanceNormalization(OpDef& d) {
  d.setup = setupInstanceNorm;
  d.grad = gradInstanceNorm;
}
namespace {

/// MeanVarianceNormalization recomputed from forward ops ((X - mean) / (sqrt(variance) + 1e-9)
/// over the axes, ONNX's definition) and differentiated by backprop.
void gradMeanVarianceNorm(GradCtx& c) {
  const DataType t = c.in(0)->info.dataType();
  const size_t mark = c.numAdded();
  Attributes mean;
  mean.set("axes", mvnAxes(c.op()));
  mean.set("keepdims", int64_t(1));
  Tensor* centred = c.add1(OpKind::Sub, {c.in(0), c.add1(OpKind::ReduceMean, {c.in(0)}, mean)});
  Tensor* var = c.add1(OpKind::ReduceMean, {c.add1(OpKind::Mul, {centred, centred})}, mean);
  Tensor* sd = c.add1(OpKind::Add, {c.add1(OpKind::Sqrt, {var}), c.constant(1e-9, t)});
  Tensor* y = c.add1(OpKind::Div, {centred, sd});
  c.setInGrad(0, c.backprop(mark, {{y, c.outGrad(0)}}, {c.in(0)})[0]);
}

}  // namespace

void define_MeanVarianceNormalization(OpDef& d) {
  d.setup = setupMeanVarianceNorm;
  d.grad = gradMeanVarianceNorm;
}
void define_LayerNormalization(OpDef& d) {
  d.setup = setupLayerNorm;
  d.grad = gradLayerNorm;
}
void define_Dropout(OpDef& d) {
  d.setup = setupDropout;
  d.foldable = false;
  d.grad = gradDropout;
}

}  // namespace popart
