// Shape and data-movement ops: Identity, Reshape, Flatten, Squeeze, Unsqueeze, Transpose,
// Concat, Split, Slice, Expand, Tile, Pad, Shape, Size, Cast, Constant, ConstantOfShape, Range,
// and Graphcore's Detach/Nop/Subsample/Reshape/Slice.
#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "common/checked_size.hpp"
#include "ir/graph.hpp"
#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "ir/runtime_info.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"
#include "ops/shape_params.hpp"
#include "popart/error_context.hpp"

namespace popart {
namespace ops {

SliceParams sliceParams(const Op& op) {
  const Shape& in = op.inShape(0);
  const int64_t r = static_cast<int64_t>(in.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (op.opset() < 10 || op.kind() == OpKind::GcSlice) {  // attributes (Graphcore's Slice: always)
    starts = op.attrs.getInts("starts");
    ends = op.attrs.getInts("ends");
    axes = op.attrs.getInts("axes", {});
  } else {
    // PopART's message for an input it cannot read while building (streamed or computed), then
    // this runtime's (which says what kind of tensor it is).
    auto known = [&](int i, const char* name, const char* what) {
      if (op.inData(i)) return op.inData(i)->toInt64();
      try {
        op.requireInData(i, what);
      } catch (const RunTimeInfoNeeded& e) {
        throw RunTimeInfoNeeded(
            format("Need the value of the {}.{}:{} input '{}' to determine the output shape, but was unable because "
                   "[Tensor::getDataViaGraphTraversal] Could not work out tensor data for {}. ({})",
                   op.domain(), op.type(), op.opset(), name, op.input(i)->id, e.what()),
            format("Need the value of the {}.{}:{} input '{}' to determine the output shape, but was unable because "
                   "[Tensor::getDataViaGraphTraversal] Could not work out tensor data for {}.",
                   op.domain(), op.type(), op.opset(), name, op.input(i)->id),
            e);
      }
      return op.requireInData(i, what).toInt64();
    };
    starts = known(1, "starts", "the slice starts");
    ends = known(2, "ends", "the slice ends");
    if (op.hasInput(3)) axes = known(3, "axes", "the slice axes");
    if (op.hasInput(4)) steps = known(4, "steps", "the slice steps");
  }
  if (starts.size() != ends.size()) throw error("starts {} and ends {} must have the same length", starts, ends);
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    throw error("starts {}, ends {}, axes {} and steps {} must have the same length", starts, ends, axes, steps);
  axes = normalizeAxes(axes, r);
  SliceParams p;
  p.start.assign(static_cast<size_t>(r), 0);
  p.step.assign(static_cast<size_t>(r), 1);
  p.len = in;
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t a = static_cast<size_t>(axes[i]);
    const int64_t d = in[a];
    const int64_t st = steps[i];
    if (st == 0) throw error("slice step 0 on axis {}", axes[i]);
    int64_t s = starts[i], e = ends[i];
    if (s < 0) s += d;
    if (e < 0) e += d;
    if (st > 0) {
      s = std::clamp<int64_t>(s, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      p.len[a] = e > s ? (e - s + st - 1) / st : 0;
    } else {
      s = std::clamp<int64_t>(s, -1, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      p.len[a] = s > e ? (s - e + (-st) - 1) / (-st) : 0;
    }
    p.start[a] = s;
    p.step[a] = st;
  }
  return p;
}

PadParams padParams(const Op& op) {
  const Shape& in = op.inShape(0);
  const size_t r = in.size();
  PadParams p;
  std::vector<int64_t> pads;
  if (op.opset() < 11) {
    pads = op.attrs.has("pads") ? op.attrs.getInts("pads") : op.attrs.getInts("paddings");
    p.value = op.attrs.getFloat("value", 0.0f);
  } else {
    pads = op.requireInData(1, "the pads").toInt64();
    if (op.hasInput(2)) p.value = op.requireInData(2, "the pad value").getDouble(0);
  }
  p.mode = op.attrs.getString("mode", "constant");
  if (p.mode != "constant" && p.mode != "reflect" && p.mode != "edge")
    throw error("Pad mode '{}' is not one of constant, reflect, edge", p.mode);
  if (pads.size() != 2 * r) throw error("pads {} must have {} entries (2 x rank)", pads, 2 * r);
  p.begin.assign(pads.begin(), pads.begin() + static_cast<long>(r));
  p.end.assign(pads.begin() + static_cast<long>(r), pads.end());
  for (size_t i = 0; i < r; ++i) {
    int64_t padded = 0;
    if (!checkedAdd(in[i], p.begin[i], &padded) || !checkedAdd(padded, p.end[i], &padded))
      throw error("pads {} make dimension {} larger than a 64-bit count holds", pads, i);
    if (padded < 0) throw error("pads {} remove more than dimension {} holds", pads, i);
    if (p.mode == "reflect" && (p.begin[i] >= in[i] || p.end[i] >= in[i]) && (p.begin[i] > 0 || p.end[i] > 0))
      throw error("reflect padding of {} needs pads smaller than the dimension {}", pads, in[i]);
    if (p.mode == "edge" && in[i] == 0 && (p.begin[i] > 0 || p.end[i] > 0))
      throw error("edge padding of an empty dimension");
  }
  return p;
}

std::vector<int64_t> splitSizes(const Op& op, int64_t* axisOut) {
  const Shape& in = op.inShape(0);
  const int64_t axis = normalizeAxis(op.attrs.getInt("axis", 0), static_cast<int64_t>(in.size()));
  *axisOut = axis;
  std::vector<int64_t> split;
  if (op.opset() >= 13) {
    if (op.hasInput(1)) split = op.requireInData(1, "the split sizes").toInt64();
  } else {
    split = op.attrs.getInts("split", {});
  }
  const int64_t d = in[static_cast<size_t>(axis)];
  const int64_t n = op.numOutputs();
  if (split.empty()) {
    if (d % n != 0) throw error("dimension {} of size {} cannot be split into {} equal parts", axis, d, n);
    split.assign(static_cast<size_t>(n), d / n);
  }
  if (static_cast<int64_t>(split.size()) != n)
    throw error("split {} has {} entries but the node has {} outputs", split, split.size(), n);
  int64_t sum = 0;
  for (auto s : split) {
    if (s < 0) throw error("split {} has a negative size", split);
    if (!checkedAdd(sum, s, &sum)) throw error("split {} adds up to more than a 64-bit count holds", split);
  }
  if (sum != d) throw error("split {} adds up to {}, but dimension {} has size {}", split, sum, axis, d);
  return split;
}

std::vector<int64_t> transposePerm(const Op& op) {
  const int64_t r = op.inInfo(0).rank();
  std::vector<int64_t> perm = op.attrs.getInts("perm", {});
  if (perm.empty()) {
    for (int64_t i = r - 1; i >= 0; --i) perm.push_back(i);
  }
  if (static_cast<int64_t>(perm.size()) != r)  // PopART's TransposeOp message
    throw error("Rank of permutation tensor {}, rank {} must be equal to rank of input tensor, shape {}, rank {}.",
                perm, perm.size(), op.inShape(0), r);
  return normalizeAxes(perm, r, "perm");
}

std::vector<int64_t> squeezeAxes(const Op& op) {
  const bool unsqueeze = op.kind() == OpKind::Unsqueeze;
  std::vector<int64_t> axes;
  bool given;
  if (op.opset() >= 13) {
    given = op.hasInput(1);
    if (given) axes = op.requireInData(1, "the axes").toInt64();
  } else {
    given = op.attrs.has("axes");
    if (given) axes = op.attrs.getInts("axes");
  }
  const int64_t r = op.inInfo(0).rank();
  if (unsqueeze) {
    if (!given || axes.empty()) throw error("Unsqueeze needs axes");
    return normalizeAxes(axes, r + static_cast<int64_t>(axes.size()));
  }
  if (!given) {
    for (int64_t i = 0; i < r; ++i) {
      if (op.inShape(0)[static_cast<size_t>(i)] == 1) axes.push_back(i);
    }
    return axes;
  }
  return normalizeAxes(axes, r);
}

}  // namespace ops

namespace {

using namespace ops;

void setupIdentity(Op& op) {
  setupSameAsInput0(op);
}

Shape reshapeTarget(const Shape& in, const std::vector<int64_t>& spec, bool allowZero) {
  Shape out(spec.size());
  int64_t known = 1;
  int inferAt = -1;
  int64_t inN = 1;
  for (auto d : in) inN *= d;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == 0 && !allowZero) {
      if (i >= in.size())
        throw error("shape {} copies dimension {} (0) but the input {} has rank {}", spec, i, in, in.size());
      d = in[i];
    }
    if (d == -1) {
      if (inferAt >= 0)  // PopART's ReshapeOp message, then the shape
        throw error("shape input to ReshapeOp can only use -1 to specify one unknown dimension (shape {})", spec);
      inferAt = static_cast<int>(i);
      continue;
    }
    if (d < 0) throw error("shape {} has an invalid dimension {}", spec, d);
    out[i] = d;
    if (!checkedMul(known, d, &known)) throw error("shape {} has more elements than a 64-bit count holds", spec);
  }
  if (inferAt >= 0) {
    if (known == 0 || inN % known != 0)
      throw error("cannot reshape {} ({} elements) into {}: -1 cannot be inferred", in, inN, spec);
    out[static_cast<size_t>(inferAt)] = inN / known;
  } else if (known != inN) {
    throw error("cannot reshape {} ({} elements) into {} ({} elements)", in, inN, spec, known);
  }
  return out;
}

void setupReshape(Op& op) {
  std::vector<int64_t> spec;
  if (op.opset() < 5)
    spec = op.attrs.getInts("shape");
  else
    spec = op.requireInData(1, "the target shape").toInt64();
  const bool allowZero = op.attrs.getInt("allowzero", 0) != 0;
  setOutput(op, 0, op.inType(0), reshapeTarget(op.inShape(0), spec, allowZero));
}

void setupGcReshape(Op& op) {
  setOutput(op, 0, op.inType(0), reshapeTarget(op.inShape(0), op.attrs.getInts("shape"), false));
}

void setupFlatten(Op& op) {
  const Shape& in = op.inShape(0);
  const int64_t r = static_cast<int64_t>(in.size());
  int64_t axis = op.attrs.getInt("axis", 1);
  if (axis < -r || axis > r)
    throw error("axis {} is out of range for a tensor of rank {} (valid: {} to {})", axis, r, -r, r);
  if (axis < 0) axis += r;
  int64_t a = 1, b = 1;
  for (int64_t i = 0; i < r; ++i) (i < axis ? a : b) *= in[static_cast<size_t>(i)];
  setOutput(op, 0, op.inType(0), {a, b});
}

void setupSqueeze(Op& op) {
  const auto axes = squeezeAxes(op);
  const Shape& in = op.inShape(0);
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    const bool sq = std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end();
    if (sq && in[i] != 1) throw error("cannot squeeze axis {} of shape {}: its size is not 1", i, in);
    if (!sq) out.push_back(in[i]);
  }
  setOutput(op, 0, op.inType(0), out);
}

void setupUnsqueeze(Op& op) {
  const auto axes = squeezeAxes(op);
  const Shape& in = op.inShape(0);
  const size_t r = in.size() + axes.size();
  Shape out;
  size_t j = 0;
  for (size_t i = 0; i < r; ++i) {
    if (std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end())
      out.push_back(1);
    else
      out.push_back(in[j++]);
  }
  setOutput(op, 0, op.inType(0), out);
}

void setupTranspose(Op& op) {
  const auto perm = transposePerm(op);
  const Shape& in = op.inShape(0);
  Shape out;
  for (auto p : perm) out.push_back(in[static_cast<size_t>(p)]);
  setOutput(op, 0, op.inType(0), out);
}

void setupConcat(Op& op) {
  const Shape& first = op.inShape(0);
  const int64_t r = static_cast<int64_t>(first.size());
  if (op.opset() >= 4 && !op.attrs.has("axis")) throw error("required attribute 'axis' is missing");
  const int64_t axis = normalizeAxis(op.attrs.getInt("axis", 1), r);
  Shape out = first;
  out[static_cast<size_t>(axis)] = 0;
  for (int i = 0; i < op.numInputs(); ++i) {
    if (!op.hasInput(i)) continue;
    requireSameType(op, 0, i);
    const Shape& s = op.inShape(i);
    if (static_cast<int64_t>(s.size()) != r)
      throw error("input {} has rank {} but input 0 has rank {}", i, s.size(), r);
    for (int64_t d = 0; d < r; ++d) {
      if (d != axis && s[static_cast<size_t>(d)] != first[static_cast<size_t>(d)])
        throw error("input {} ('{}') has shape {}, which differs from input 0's {} outside the concat axis {}", i,
                    op.input(i)->id, s, first, axis);
    }
    auto& along = out[static_cast<size_t>(axis)];
    if (!checkedAdd(along, s[static_cast<size_t>(axis)], &along))
      throw error("the inputs' sizes along the concat axis {} add up to more than a 64-bit count holds", axis);
  }
  setOutput(op, 0, op.inType(0), out);
}

void setupSplit(Op& op) {
  int64_t axis = 0;
  const auto sizes = splitSizes(op, &axis);
  for (int i = 0; i < op.numOutputs(); ++i) {
    Shape s = op.inShape(0);
    s[static_cast<size_t>(axis)] = sizes[static_cast<size_t>(i)];
    setOutput(op, i, op.inType(0), s);
  }
}

void setupSlice(Op& op) {
  setOutput(op, 0, op.inType(0), sliceParams(op).len);
}

void setupExpand(Op& op) {
  const auto shape = op.requireInData(1, "the target shape").toInt64();
  Shape out;
  try {
    out = npOut(op.inShape(0), shape);
  } catch (const error&) {
    throw error(  // PopART's ExpandOp message, then the shapes
        "Expand shape constraint: corresponding dimensions must have the same value or one of them must be 1 (input "
        "shape {} cannot be expanded to {})",
        op.inShape(0), shape);
  }
  setOutput(op, 0, op.inType(0), out);
}

void setupTile(Op& op) {
  // PopART's TileOp messages: the repeats are known when the model is built, one per dimension.
  if (!op.inData(1)) {
    // PopART's sentence, then this runtime's reason (what kind of tensor it is).
    const std::string popart = format("The 'Repeats' Tensor `{}' must be of type Constant", op.input(1)->id);
    try {
      op.requireInData(1, "the repeats");
    } catch (const RunTimeInfoNeeded& e) {
      throw RunTimeInfoNeeded(format("{} ({})", popart, e.what()), popart, e);
    }
  }
  const auto reps = op.requireInData(1, "the repeats").toInt64();
  const Shape& in = op.inShape(0);
  if (reps.size() != in.size())
    throw error("'Repeats' tensor `{}' should have one element for each dimension of the data tensor", op.input(1)->id);
  Shape out = in;
  for (size_t i = 0; i < in.size(); ++i) {
    if (reps[i] < 0) throw error("repeats {} must be >= 0", reps);
    if (!checkedMul(in[i], reps[i], &out[i]))
      throw error("repeats {} make dimension {} ({} x {}) larger than a 64-bit count holds", reps, i, in[i], reps[i]);
  }
  setOutput(op, 0, op.inType(0), out);
}

void setupPad(Op& op) {
  const PadParams p = padParams(op);
  Shape out = op.inShape(0);
  for (size_t i = 0; i < out.size(); ++i) out[i] += p.begin[i] + p.end[i];
  setOutput(op, 0, op.inType(0), out);
}

void setupShape(Op& op) {
  const int64_t r = op.inInfo(0).rank();
  int64_t start = op.attrs.getInt("start", 0), end = op.attrs.getInt("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  setOutput(op, 0, DataType::INT64, {std::max<int64_t>(end - start, 0)});
}

void setupSize(Op& op) {
  setOutput(op, 0, DataType::INT64, {});
}

void setupCast(Op& op) {
  const int64_t to = op.attrs.getInt("to");
  DataType t;
  try {
    t = dataTypeFromOnnx(static_cast<int>(to));
  } catch (const error&) {
    throw error("attribute 'to' = {} is not a known ONNX data type", to);
  }
  if (t == DataType::UNDEFINED) throw error("attribute 'to' = {} (UNDEFINED) is not a type to cast to", to);
  setOutput(op, 0, t, op.inShape(0));
}

void setupCastLike(Op& op) {
  setOutput(op, 0, op.inType(1), op.inShape(0));
}

void setupConstant(Op& op) {
  const auto& a = op.attrs;
  int set = 0;
  for (const char* k : {"value", "value_float", "value_floats", "value_int", "value_ints", "value_string",
                        "value_strings", "sparse_value"}) {
    set += a.has(k) ? 1 : 0;
  }
  if (set != 1) throw error("Constant needs exactly one of value, value_float(s), value_int(s), value_string(s)");
  if (a.has("value"))
    setOutput(op, 0, a.getTensor("value").info());
  else if (a.has("value_float"))
    setOutput(op, 0, DataType::FLOAT, {});
  else if (a.has("value_floats"))
    setOutput(op, 0, DataType::FLOAT, {static_cast<int64_t>(a.getFloats("value_floats").size())});
  else if (a.has("value_int"))
    setOutput(op, 0, DataType::INT64, {});
  else if (a.has("value_ints"))
    setOutput(op, 0, DataType::INT64, {static_cast<int64_t>(a.getInts("value_ints").size())});
  else if (a.has("value_string"))
    setOutput(op, 0, DataType::STRING, {});
  else if (a.has("value_strings"))
    setOutput(op, 0, DataType::STRING, {static_cast<int64_t>(a.getStrings("value_strings").size())});
  else
    throw error("sparse Constant values are not supported");
}

void setupConstantOfShape(Op& op) {
  const auto shape = op.requireInData(0, "the output shape").toInt64();
  for (auto d : shape) {
    if (d < 0) throw error("shape {} has a negative dimension", shape);
  }
  DataType t = DataType::FLOAT;
  if (op.attrs.has("value")) {
    const TensorData& v = op.attrs.getTensor("value");
    if (v.info().nelms() != 1) throw error("attribute 'value' must hold one element, it holds {}", v.info().nelms());
    t = v.info().dataType();
  }
  setOutput(op, 0, t, shape);
}

/// A model input without a value (a stream) that tensor t is computed from, or nullptr.
const Tensor* upstreamStream(const Tensor* t) {
  std::vector<const Tensor*> todo{t};
  std::set<const Tensor*> seen;
  while (!todo.empty()) {
    const Tensor* c = todo.back();
    todo.pop_back();
    if (!seen.insert(c).second) continue;
    if (c->kind == TensorKind::Stream && !c->hasHostValue()) return c;
    if (c->producer) {
      for (const Tensor* i : c->producer->inputs()) {
        if (i) todo.push_back(i);
      }
    }
  }
  return nullptr;
}

/// Range's input i, which must be known. A value computed from a model input (the expanded
/// window functions cast their size input to float) names that input, so that a caller can
/// bind it as a constant.
const TensorData& rangeInput(const Op& op, int i, const char* what) {
  if (const TensorData* d = op.inData(i)) return *d;
  const Tensor* t = op.input(i);
  if (const Tensor* src = t->producer ? upstreamStream(t) : nullptr)
    throw RunTimeInfoNeeded(
        format("{} (input {}, '{}') is computed at run time from model input ('{}'), which must be known when the "
               "model is compiled (a constant or an initializer). This runtime needs static shapes.",
               what, i, t->id, src->id),
        RunTimeInfoNeeded::Kind::Value, t->id);
  return op.requireInData(i, what);
}

void setupRange(Op& op) {
  for (int i = 0; i < 3; ++i) {
    requireSameType(op, 0, i);
    if (op.inInfo(i).nelms() != 1) throw error("input {} must be a scalar, got {}", i, op.inInfo(i).toString());
  }
  const double start = rangeInput(op, 0, "the range start").getDouble(0);
  const double limit = rangeInput(op, 1, "the range limit").getDouble(0);
  const double delta = rangeInput(op, 2, "the range delta").getDouble(0);
  if (delta == 0) throw error("Range delta must not be 0");
  // The count as a double first: NaN, inf or 1e30 elements would not fit the int64 cast.
  const double count = std::ceil((limit - start) / delta);
  if (!(count < 9.2e18))
    throw error("Range from {} to {} by {} has {} elements, more than a 64-bit count holds", start, limit, delta,
                count);
  setOutput(op, 0, op.inType(0), {count > 0 ? static_cast<int64_t>(count) : 0});
}

/// Subsample keeps every strides[d]-th element from the first: ceil(in / stride) of them (PopART's
/// SubsampleOp, Poplar's). The Builder's shape inference gives floor(in / stride), as PopART's
/// Builder does (its ONNX shape-inference function divides): PopART's scripts check that shape.
void setupSubsample(Op& op) {
  const auto strides = op.attrs.getInts("strides");
  const Shape& in = op.inShape(0);
  if (strides.size() != in.size()) throw error("strides {} must have one entry per dimension of {}", strides, in);
  const bool builder = op.graph().ir().shapeInferenceOnly();
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (strides[i] == 0) throw error("Strides invalid. 0 stride at index {} (strides {})", i, strides);
    if (strides[i] < 0)
      throw error("Strides invalid. Negative stride {} at index {} (strides {})", strides[i], i, strides);
    // ceil(in / stride) computed without overflow
    out.push_back(builder ? in[i] / strides[i] : (in[i] == 0 ? 0 : (in[i] - 1) / strides[i] + 1));
  }
  setOutput(op, 0, op.inType(0), out);
}

void view(OpDef& d, void (*setup)(Op&)) {
  d.setup = setup;
  d.view = ViewKind::Reshape;
}

}  // namespace

// clang-format off
namespace {

/// Views (Reshape, Flatten, Squeeze, Unsqueeze, Identity): the gradient is reshaped back.
void gradView(GradCtx& c) { c.setInGrad(0, c.reshape(c.outGrad(0), c.in(0)->info.shape())); }

void gradTranspose(GradCtx& c) {
  const int64_t r = static_cast<int64_t>(c.in(0)->info.shape().size());
  std::vector<int64_t> perm = c.op().attrs.getInts("perm", {});
  if (perm.empty()) {
    for (int64_t i = r - 1; i >= 0; --i) perm.push_back(i);
  }
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  Attributes a;
  a.set("perm", inv);
  c.setInGrad(0, c.add1(OpKind::Transpose, {c.outGrad(0)}, a));
}

/// Concat: each input's gradient is its slice of dY along the axis.
void gradConcat(GradCtx& c) {
  const Op& op = c.op();
  const int64_t axis = normalizeAxis(op.attrs.getInt("axis", 1), static_cast<int64_t>(c.out(0)->info.rank()));
  int64_t off = 0;
  for (int i = 0; i < op.numInputs(); ++i) {
    if (!op.hasInput(i)) continue;
    const int64_t len = c.in(i)->info.shape()[static_cast<size_t>(axis)];
    if (c.needsInGrad(i))
      c.setInGrad(i, c.add1(OpKind::Slice, {c.outGrad(0), c.constInts({off}), c.constInts({off + len}),
                                            c.constInts({axis})}));
    off += len;
  }
}

/// Split: the outputs' gradients concatenated (zeros for outputs that do not reach the loss).
void gradSplit(GradCtx& c) {
  const Op& op = c.op();
  int64_t axis = 0;
  splitSizes(op, &axis);
  std::vector<Tensor*> parts;
  for (int o = 0; o < op.numOutputs(); ++o) {
    Tensor* g = c.outGrad(o);
    if (!g) g = c.constant(0.0, c.out(o)->info.dataType(), c.out(o)->info.shape());
    parts.push_back(g);
  }
  Attributes a;
  a.set("axis", axis);
  c.setInGrad(0, c.add1(OpKind::Concat, parts, a));
}

/// Slice (any steps): dY placed back at the sliced positions, zeros elsewhere (SliceGrad).
void gradSlice(GradCtx& c) {
  const SliceParams p = sliceParams(c.op());
  Attributes a;
  a.set("starts", p.start);
  a.set("steps", p.step);
  a.set("x_shape", c.in(0)->info.shape());
  c.setInGrad(0, c.add1(OpKind::SliceGrad, {c.outGrad(0)}, a));
}

/// Cast / CastLike between floating-point types: the gradient cast back to the input's type.
void gradCast(GradCtx& c) {
  const DataType t = c.in(0)->info.dataType();
  if (!isFloatType(t)) return;
  if (c.outGrad(0)->info.dataType() == t) {
    c.setInGrad(0, c.outGrad(0));
    return;
  }
  Attributes a;
  a.set("to", int64_t(onnxDataType(t)));
  c.setInGrad(0, c.add1(OpKind::Cast, {c.outGrad(0)}, a));
}

/// Expand: the gradient summed over the broadcast dimensions.
void gradExpand(GradCtx& c) { c.setInGrad(0, c.reduceTo(c.outGrad(0), c.in(0)->info.shape())); }

/// Pad (constant mode): the gradient padded by the negated pads (a crop where Pad padded,
/// zeros where it cropped).
void gradPad(GradCtx& c) {
  const PadParams p = padParams(c.op());
  if (p.mode != "constant")
    throw error("the gradient of Pad in '{}' mode is not supported (constant mode only)", p.mode);
  std::vector<int64_t> pads;
  for (auto v : p.begin) pads.push_back(-v);
  for (auto v : p.end) pads.push_back(-v);
  c.setInGrad(0, c.add1(OpKind::Pad, {c.outGrad(0), c.constInts(pads)}));
}

/// Subsample: dY placed back at every strides[d]-th position, zeros elsewhere (SliceGrad).
void gradSubsample(GradCtx& c) {
  const Shape& x = c.in(0)->info.shape();
  Attributes a;
  a.set("starts", std::vector<int64_t>(x.size(), 0));
  a.set("steps", c.op().attrs.getInts("strides"));
  a.set("x_shape", x);
  c.setInGrad(0, c.add1(OpKind::SliceGrad, {c.outGrad(0)}, a));
}

/// Detach: no gradient flows back.
void gradDetach(GradCtx&) {}

/// Tile: the gradient seen as [r0, d0, r1, d1, ...] summed over the repeats.
void gradTile(GradCtx& c) {
  const Shape& in = c.in(0)->info.shape();
  const auto reps = c.op().requireInData(1, "the repeats").toInt64();
  if (c.out(0)->info.nelms() == 0) return;
  Shape split;
  std::vector<int64_t> axes;
  for (size_t i = 0; i < in.size(); ++i) {
    axes.push_back(static_cast<int64_t>(split.size()));
    split.push_back(reps[i]);
    split.push_back(in[i]);
  }
  Attributes a;
  a.set("keepdims", int64_t(0));
  Tensor* g = c.reshape(c.outGrad(0), split);
  c.setInGrad(0, c.reshape(in.empty() ? g : c.add1(OpKind::ReduceSum, {g, c.constInts(axes)}, a), in));
}

}  // namespace

void define_Identity(OpDef& d) { view(d, setupIdentity); d.grad = gradView; }
void define_GcDetach(OpDef& d) { view(d, setupIdentity); d.grad = gradDetach; }
void define_GcNop(OpDef& d) { view(d, setupIdentity); d.foldable = false; d.grad = gradView; }
void define_Reshape(OpDef& d) { view(d, setupReshape); d.shapeInputsMask = 2; d.grad = gradView; }
void define_GcReshape(OpDef& d) { view(d, setupGcReshape); d.grad = gradView; }
void define_Flatten(OpDef& d) { view(d, setupFlatten); d.grad = gradView; }
void define_Squeeze(OpDef& d) { view(d, setupSqueeze); d.shapeInputsMask = 2; d.grad = gradView; }
void define_Unsqueeze(OpDef& d) { view(d, setupUnsqueeze); d.shapeInputsMask = 2; d.grad = gradView; }
void define_Transpose(OpDef& d) { d.setup = setupTranspose; d.grad = gradTranspose; }
void define_Concat(OpDef& d) { d.setup = setupConcat; d.grad = gradConcat; }
void define_Split(OpDef& d) {
  d.setup = setupSplit; d.shapeInputsMask = 2; d.grad = gradSplit;
}
void define_Slice(OpDef& d) { d.setup = setupSlice; d.shapeInputsMask = 0x1e; d.grad = gradSlice; }
void define_Expand(OpDef& d) {
 d.setup = setupExpand; d.shapeInputsMask = 2; d.grad = gradExpand;
}
void define_Tile(OpDef& d) { d.setup = setupTile; d.shapeInputsMask = 2; d.grad = gradTile; }
void define_Pad(OpDef& d) { d.setup = setupPad; d.shapeInputsMask = 6; d.grad = gradPad; }
void define_ShapeOp(OpDef& d) { d.setup = setupShape; d.foldFromShapesOnly = true; }
void define_Size(OpDef& d) { d.setup = setupSize; d.foldFromShapesOnly = true; }
void define_Cast(OpDef& d) { d.setup = setupCast; d.grad = gradCast; }
void define_CastLike(OpDef& d) {
  d.setup = setupCastLike;
  d.grad = gradCast;
}
void define_Constant(OpDef& d) { d.setup = setupConstant; }
void define_ConstantOfShape(OpDef& d) { d.setup = setupConstantOfShape; d.shapeInputsMask = 1; }
void define_Range(OpDef& d) { d.setup = setupRange; d.shapeInputsMask = 7; }
void define_GcSubsample(OpDef& d) { d.setup = setupSubsample; d.grad = gradSubsample; }
void define_GcSlice(OpDef& d) { d.setup = setupSlice; d.grad = gradSlice; }
// clang-format on

}  // namespace popart
