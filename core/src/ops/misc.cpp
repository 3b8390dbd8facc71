// Miscellaneous ops: LRN, ReverseSequence, MaxUnpool, Unique, NonZero, NonMaxSuppression,
// Graphcore's NormalizeImage.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "common/tensor_data.hpp"
#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/misc_params.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace ops {

UniqueGeometry uniqueGeometry(const Op& op) {
  UniqueGeometry g;
  const Shape& x = op.inShape(0);
  if (op.attrs.has("axis")) {
    g.hasAxis = true;
    g.axis = normalizeAxis(op.attrs.getInt("axis"), static_cast<int64_t>(x.size()));
    g.n = x[static_cast<size_t>(g.axis)];
    for (int64_t i = 0; i < g.axis; ++i) g.outer *= x[static_cast<size_t>(i)];
    for (size_t i = static_cast<size_t>(g.axis) + 1; i < x.size(); ++i) g.inner *= x[i];
  } else {
    g.n = op.inInfo(0).nelms();
  }
  return g;
}

Shape maxUnpoolInferredShape(const Op& op) {
  const Shape& x = op.inShape(0);
  const size_t spatial = x.size() - 2;
  const auto kernel = op.attrs.getInts("kernel_shape");
  if (kernel.size() != spatial)
    throw error("kernel_shape has {} value(s) for {} spatial dimension(s)", kernel.size(), spatial);
  const auto strides = op.attrs.getInts("strides", std::vector<int64_t>(spatial, 1));
  const auto pads = op.attrs.getInts("pads", std::vector<int64_t>(2 * spatial, 0));
  if (strides.size() != spatial)
    throw error("strides has {} value(s) for {} spatial dimension(s)", strides.size(), spatial);
  if (pads.size() != 2 * spatial) throw error("pads has {} value(s) for {} spatial dimension(s)", pads.size(), spatial);
  Shape out = x;
  for (size_t i = 0; i < spatial; ++i) {
    if (kernel[i] <= 0 || strides[i] <= 0) throw error("kernel_shape and strides must be positive");
    out[i + 2] = (x[i + 2] - 1) * strides[i] + kernel[i] - pads[i] - pads[i + spatial];
    if (out[i + 2] < 0) throw error("the output size of spatial dimension {} is negative ({})", i, out[i + 2]);
  }
  return out;
}

NmsParams nmsParams(const Op& op, const int64_t* maxPerClass, const float* iouThreshold, const float* scoreThreshold) {
  NmsParams p;
  const int64_t center = op.attrs.getInt("center_point_box", 0);
  if (center != 0 && center != 1) throw error("center_point_box must be 0 or 1, got {}", center);
  p.centerPointBox = center == 1;
  if (maxPerClass) p.maxPerClass = *maxPerClass;
  if (iouThreshold) {
    p.iouThreshold = *iouThreshold;
    if (!(p.iouThreshold >= 0 && p.iouThreshold <= 1))
      throw error("iou_threshold must be in [0, 1], got {}", p.iouThreshold);
  }
  if (scoreThreshold) {
    p.hasScoreThreshold = true;
    p.scoreThreshold = *scoreThreshold;
  }
  return p;
}

std::vector<int64_t> nonMaxSuppression(const float* boxes, const float* scores, int64_t batches, int64_t classes,
                                       int64_t boxCount, const NmsParams& p) {
  std::vector<int64_t> out;
  if (p.maxPerClass <= 0) return out;
  // Each box as (y_min, x_min, y_max, x_max, area), in double.
  std::vector<std::array<double, 5>> corners(static_cast<size_t>(boxCount));
  std::vector<int64_t> order, kept;
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t i = 0; i < boxCount; ++i) {
      const float* q = boxes + (b * boxCount + i) * 4;
      double y0, x0, y1, x1;
      if (p.centerPointBox) {
        x0 = double(q[0]) - double(q[2]) / 2;
        x1 = double(q[0]) + double(q[2]) / 2;
        y0 = double(q[1]) - double(q[3]) / 2;
        y1 = double(q[1]) + double(q[3]) / 2;
      } else {  // any two diagonal corners (y, x)
        y0 = std::min<double>(q[0], q[2]);
        y1 = std::max<double>(q[0], q[2]);
        x0 = std::min<double>(q[1], q[3]);
        x1 = std::max<double>(q[1], q[3]);
      }
      corners[static_cast<size_t>(i)] = {y0, x0, y1, x1, (y1 - y0) * (x1 - x0)};
    }
    auto overlaps = [&](int64_t i, int64_t j) {
      const auto& a = corners[static_cast<size_t>(i)];
      const auto& c = corners[static_cast<size_t>(j)];
      if (a[4] <= 0 || c[4] <= 0) return false;  // an empty box overlaps nothing
      const double h = std::min(a[2], c[2]) - std::max(a[0], c[0]);
      const double w = std::min(a[3], c[3]) - std::max(a[1], c[1]);
      if (h <= 0 || w <= 0) return false;
      const double inter = h * w;
      return inter / (a[4] + c[4] - inter) > p.iouThreshold;
    };
    for (int64_t c = 0; c < classes; ++c) {
      const float* sc = scores + (b * classes + c) * boxCount;
      order.clear();
      for (int64_t i = 0; i < boxCount; ++i) {
        // NaN scores are never candidates.
        if (!std::isnan(sc[i]) && (!p.hasScoreThreshold || double(sc[i]) > p.scoreThreshold)) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return sc[i] > sc[j]; });
      kept.clear();
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= p.maxPerClass) break;
        if (std::none_of(kept.begin(), kept.end(), [&](int64_t k) { return overlaps(k, i); })) kept.push_back(i);
      }
      for (int64_t i : kept) out.insert(out.end(), {b, c, i});
    }
  }
  return out;
}

namespace {

void setupLRN(Op& op) {
  requireFloat(op, 0);
  requireRank(op, 0, 2, true);
  const int64_t size = op.attrs.getInt("size");
  if (size <= 0) throw error("size must be positive, got {}", size);
  setupSameAsInput0(op);
}

void setupReverseSequence(Op& op) {
  requireRank(op, 0, 2, true);
  requireType(op, 1, {DataType::INT64, DataType::INT32});
  requireRank(op, 1, 1);
  const int64_t rank = op.inInfo(0).rank();
  const int64_t batchAxis = normalizeAxis(op.attrs.getInt("batch_axis", 1), rank, "batch_axis");
  const int64_t timeAxis = normalizeAxis(op.attrs.getInt("time_axis", 0), rank, "time_axis");
  if (batchAxis > 1 || timeAxis > 1 || batchAxis == timeAxis)
    throw error("batch_axis and time_axis must be 0 and 1 in some order, got {} and {}", batchAxis, timeAxis);
  const int64_t batch = op.inShape(0)[static_cast<size_t>(batchAxis)];
  if (op.inShape(1) != Shape{batch})
    throw error("sequence_lens must have shape [{}] (the batch dimension), got {}", batch, op.inShape(1));
  setupSameAsInput0(op);
}

void setupMaxUnpool(Op& op) {
  requireFloat(op, 0);
  requireType(op, 1, {DataType::INT64});
  requireRank(op, 0, 3, true);
  const Shape& x = op.inShape(0);
  if (op.inShape(1) != x) throw error("the indices (shape {}) must have the shape of X ({})", op.inShape(1), x);
  Shape out = maxUnpoolInferredShape(op);
  if (op.hasInput(2)) {
    out = op.requireInData(2, "the output shape").toInt64();
    if (out.size() != x.size()) throw error("output_shape {} must have the rank of X ({})", out, x.size());
    if (out[0] != x[0] || out[1] != x[1])
      throw error("output_shape {} must keep the batch and channel dimensions of X {}", out, x);
    for (auto d : out) {
      if (d < 0) throw error("output_shape {} has a negative dimension", out);
    }
  }
  setOutput(op, 0, op.inType(0), out);
}

void setupUnique(Op& op) {
  const UniqueGeometry g = uniqueGeometry(op);
  const TensorData& data = op.requireInData(0, "the values (Unique's output sizes depend on them)");
  const bool sorted = op.attrs.getInt("sorted", 1) != 0;
  const int64_t u = visitNumeric(op.inType(0), [&](auto tag) {
    using T = decltype(tag);
    return static_cast<int64_t>(computeUnique(data.as<T>(), g.outer, g.n, g.inner, sorted).first.size());
  });
  Shape y{u};
  if (g.hasAxis) {
    y = op.inShape(0);
    y[static_cast<size_t>(g.axis)] = u;
  }
  setOutput(op, 0, op.inType(0), y);
  setOutput(op, 1, DataType::INT64, {u});
  setOutput(op, 2, DataType::INT64, {g.n});
  setOutput(op, 3, DataType::INT64, {u});
}

/// NonZero(X): the indices of X's non-zero elements, INT64 [rank, count] in row-major order
/// (NumPy's nonzero stacked). Its output size depends on the values: the data must be known
/// (a constant, or on the CPU device a value the run gives).
int64_t countNonZero(const TensorData& data) {
  return visitNumeric(data.info().dataType(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = data.as<T>();
    int64_t n = 0;
    for (int64_t i = 0; i < data.info().nelms(); ++i) n += p[i] != T(0);
    return n;
  });
}

void setupNonZero(Op& op) {
  const TensorData& data = op.requireInData(0, "the values (NonZero's output size depends on them)");
  setOutput(op, 0, DataType::INT64, {op.inInfo(0).rank(), countNonZero(data)});
}

/// A scalar input of NonMaxSuppression (a scalar or one value, as ONNX's tests give) of type t,
/// when present: its known value.
const void* nmsScalar(const Op& op, int i, DataType t, const char* name) {
  if (!op.hasInput(i)) return nullptr;
  if (op.inType(i) != t || op.inInfo(i).nelms() != 1)
    throw error("input {} ('{}', {}) must be one {} value, got {}", i, op.input(i)->id, name, dataTypeToString(t),
                op.inInfo(i).toString());
  return op.requireInData(i, "a selection parameter (NonMaxSuppression's output size depends on it)").data();
}

/// NonMaxSuppression(boxes [B, N, 4], scores [B, C, N], max_output_boxes_per_class, iou_threshold,
/// score_threshold): INT64 [selected, 3]. Its output size depends on every input's values, so all
/// must be known (constants, or on the CPU device values the run gives).
void setupNonMaxSuppression(Op& op) {
  requireType(op, 0, {DataType::FLOAT});
  requireType(op, 1, {DataType::FLOAT});
  const Shape& b = op.inShape(0);
  const Shape& s = op.inShape(1);
  if (b.size() != 3 || b[2] != 4) throw error("boxes must have shape [num_batches, spatial_dimension, 4], got {}", b);
  if (s.size() != 3 || s[0] != b[0] || s[2] != b[1])
    throw error(
        "scores must have shape [num_batches, num_classes, spatial_dimension] = [{}, C, {}] for boxes {}, got {}", b[0],
        b[1], b, s);
  const auto* maxOut = static_cast<const int64_t*>(nmsScalar(op, 2, DataType::INT64, "max_output_boxes_per_class"));
  const auto* iou = static_cast<const float*>(nmsScalar(op, 3, DataType::FLOAT, "iou_threshold"));
  const auto* scoreThr = static_cast<const float*>(nmsScalar(op, 4, DataType::FLOAT, "score_threshold"));
  const NmsParams p = nmsParams(op, maxOut, iou, scoreThr);
  const char* why = "the boxes and scores (NonMaxSuppression's output size depends on them)";
  const TensorData& boxes = op.requireInData(0, why);
  const TensorData& scores = op.requireInData(1, why);
  const auto selected = nonMaxSuppression(boxes.as<float>(), scores.as<float>(), b[0], s[1], b[1], p);
  setOutput(op, 0, DataType::INT64, {static_cast<int64_t>(selected.size() / 3), 3});
}

/// NormalizeImage(image [..., 3], offsets [3], scales [3]): ((image * scale) - offsets) * scales,
/// padded to 4 channels with zeros. UINT8 images give FLOAT16 (PopART), others their own type;
/// offsets and scales have the output's type.
void setupNormalizeImage(Op& op) {
  requireType(op, 0, {DataType::UINT8, DataType::FLOAT16, DataType::FLOAT});
  const Shape& x = op.inShape(0);
  if (x.size() < 2 || x.back() != 3)
    throw error("NormalizeImage requires the inner dimension to be 3 (an image [..., 3] of rank >= 2), got {}", x);
  const float scale = op.attrs.getFloat("scale", 1.0f);
  if (std::fabs(scale) < std::numeric_limits<float>::epsilon())
    throw error("NormalizeImage: scale should be greater than 0 (got {})", scale);
  const DataType out = op.inType(0) == DataType::UINT8 ? DataType::FLOAT16 : op.inType(0);
  const char* names[] = {"", "offsets", "scales"};
  for (int i = 1; i < 3; ++i) {
    if (op.inType(i) != out || op.inInfo(i).nelms() != 3)
      throw error("input {} ({} '{}') must hold 3 {} values (one per channel), got {}", i, names[i], op.input(i)->id,
                  dataTypeToString(out), op.inInfo(i).toString());
  }
  Shape y = x;
  y.back() = 4;
  setOutput(op, 0, out, y);
}

}  // namespace
}  // namespace ops

namespace {

/// ReverseSequence is its own adjoint.
void gradReverseSequence(GradCtx& c) {
  c.setInGrad(0, c.add1(OpKind::ReverseSequence, {c.outGrad(0), c.in(1)}, c.op().attrs));
}

/// MaxUnpool: each X element's gradient is dY at its index (dY padded back to the inferred
/// shape when output_shape cropped it: cropped elements get 0).
void gradMaxUnpool(GradCtx& c) {
  const Shape inferred = ops::maxUnpoolInferredShape(c.op());
  const Shape& out = c.out(0)->info.shape();
  Tensor* g = c.outGrad(0);
  if (out != inferred) {
    std::vector<int64_t> pads(2 * out.size(), 0);
    for (size_t d = 0; d < out.size(); ++d) pads[out.size() + d] = inferred[d] - out[d];
    g = c.add1(OpKind::Pad, {g, c.constInts(pads)});
  }
  Attributes a;
  a.set("axis", int64_t(0));
  const int64_t n = TensorInfo(DataType::FLOAT, inferred).nelms();
  c.setInGrad(0, c.add1(OpKind::Gather, {c.reshape(g, {n}), c.in(1)}, a));
}

/// The sum over channels c - before .. c + after of t (zeros outside), from Pad and Slices.
Tensor* channelWindowSum(GradCtx& c, Tensor* t, int64_t before, int64_t after) {
  const Shape& s = t->info.shape();
  const int64_t C = s[1];
  std::vector<int64_t> pads(2 * s.size(), 0);
  pads[1] = before;
  pads[s.size() + 1] = after;
  Tensor* p = (before || after) ? c.add1(OpKind::Pad, {t, c.constInts(pads)}) : t;
  std::vector<Tensor*> parts;
  for (int64_t k = 0; k <= before + after; ++k) parts.push_back(c.slice(p, 1, k, k + C));
  return parts.size() == 1 ? parts[0] : c.add1(OpKind::Sum, parts);
}

/// LRN: y = x d^-beta with d = bias + alpha / size * (window sum of x^2); composed of forward ops:
/// dx = g d^-beta - 2 alpha beta / size * x * (transposed window sum of g x d^(-beta - 1)).
void gradLRN(GradCtx& c) {
  const int64_t size = c.op().attrs.getInt("size");
  const double alpha = c.op().attrs.getFloat("alpha", 1e-4f), beta = c.op().attrs.getFloat("beta", 0.75f),
               bias = c.op().attrs.getFloat("bias", 1.0f);
  const int64_t below = (size - 1) / 2, above = size - 1 - below;
  Tensor* x = c.in(0);
  const DataType t = x->info.dataType();
  auto k = [&](double v) { return c.constant(v, t); };
  Tensor* sq = channelWindowSum(c, c.add1(OpKind::Mul, {x, x}), below, above);
  Tensor* d = c.add1(OpKind::Add, {k(bias), c.add1(OpKind::Mul, {k(alpha / static_cast<double>(size)), sq})});
  Tensor* dpow = c.add1(OpKind::Pow, {d, k(-beta)});
  Tensor* g = c.outGrad(0);
  Tensor* tt = c.add1(OpKind::Div, {c.add1(OpKind::Mul, {c.add1(OpKind::Mul, {g, x}), dpow}), d});
  Tensor* s = channelWindowSum(c, tt, above, below);
  Tensor* second =
      c.add1(OpKind::Mul, {k(2.0 * alpha * beta / static_cast<double>(size)), c.add1(OpKind::Mul, {x, s})});
  c.setInGrad(0, c.add1(OpKind::Sub, {c.add1(OpKind::Mul, {g, dpow}), second}));
}

}  // namespace

void define_LRN(OpDef& d) {
  d.setup = ops::setupLRN;
  d.grad = gradLRN;
}
void define_ReverseSequence(OpDef& d) {
  d.setup = ops::setupReverseSequence;
  d.grad = gradReverseSequence;
}
void define_MaxUnpool(OpDef& d) {
  d.setup = ops::setupMaxUnpool;
  d.shapeInputsMask = 4;
  d.grad = gradMaxUnpool;
}
void define_Unique(OpDef& d) {
  d.setup = ops::setupUnique;
  d.shapeInputsMask = 1;
}
void define_NonZero(OpDef& d) {
  d.setup = ops::setupNonZero;
  d.shapeInputsMask = 1;
}
void define_NonMaxSuppression(OpDef& d) {
  d.setup = ops::setupNonMaxSuppression;
  d.shapeInputsMask = 0x1f;
}
void define_GcNormalizeImage(OpDef& d) {
  d.setup = ops::setupNormalizeImage;
}

}  // namespace popart
