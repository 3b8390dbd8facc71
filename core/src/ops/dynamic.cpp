// PopART's dynamic family (domain ai.graphcore): slices at a run-time offset (DynamicSlice,
// DynamicUpdate, DynamicAdd, DynamicZero), SequenceSlice and PackedDataBlock. The offsets are
// tensors read when the op runs, so every output shape follows from the attributes alone.
//
// Gradients are PopART's (its DynamicOpTransform): DynamicSlice's is a DynamicUpdate (noOverlap)
// or DynamicAdd of the slice's gradient into zeros; DynamicUpdate gives its slice a DynamicSlice
// of the gradient and its tensor the gradient itself (noOverlap: PopART assumes the overwritten
// region was never read) or the gradient with that region zeroed; DynamicAdd gives its tensor the
// gradient and its slice a DynamicSlice of it; DynamicZero's gradient is a DynamicZero.
#include <algorithm>
#include <set>

#include "ir/graph.hpp"
#include "ir/ir.hpp"
#include "ir/op_def.hpp"
#include "ops/controlflow_params.hpp"
#include "ops/dynamic_params.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"

namespace popart {
namespace ops {

DynamicGeom dynamicGeom(const Op& op, const Shape& full) {
  DynamicGeom g;
  g.full = full;
  const auto axes = op.attrs.getInts("axes");
  g.sizes = op.attrs.getInts("sizes");
  if (axes.size() != g.sizes.size())
    throw error("axes {} and sizes {} must have the same length (one size per sliced axis)", axes, g.sizes);
  const int64_t noOverlap = op.attrs.getInt("noOverlap", 0);
  if (noOverlap != 0 && noOverlap != 1) throw error("noOverlap must be 0 or 1, got {}", noOverlap);
  const int64_t rank = static_cast<int64_t>(full.size());
  g.axes = normalizeAxes(axes, rank, "axes");
  g.slice = full;
  for (size_t i = 0; i < g.axes.size(); ++i) {
    const int64_t dim = full[static_cast<size_t>(g.axes[i])];
    if (g.sizes[i] < 0 || g.sizes[i] > dim)
      throw error("sizes[{}] = {} is out of range for axis {} of size {} (tensor {})", i, g.sizes[i], g.axes[i], dim,
                  full);
    g.slice[static_cast<size_t>(g.axes[i])] = g.sizes[i];
  }
  return g;
}

void checkDynamicOffset(const Op& op, int i, const DynamicGeom& g) {
  requireType(op, i, {DataType::UINT32, DataType::INT32, DataType::UINT64, DataType::INT64});
  if (op.inInfo(i).nelms() != static_cast<int64_t>(g.axes.size()))
    throw error("the offset ('{}', {}) must hold one value per sliced axis ({} values for axes {})", op.input(i)->id,
                op.inInfo(i).toString(), g.axes.size(), g.axes);
}

namespace {

Shape squeezed(const Shape& s) {
  Shape out;
  for (auto d : s) {
    if (d != 1) out.push_back(d);
  }
  return out;
}

}  // namespace

void checkDynamicSliceInput(const Op& op, int i, const DynamicGeom& g) {
  requireSameType(op, 0, i);
  const Shape& s = op.inShape(i);
  if (s != g.slice && squeezed(s) != squeezed(g.slice))
    throw error("the slice ('{}', {}) must have shape {}: the tensor {} with axes {} of sizes {}", op.input(i)->id,
                op.inInfo(i).toString(), g.slice, g.full, g.axes, g.sizes);
}

}  // namespace ops

namespace {

using namespace ops;

void requireData(const Op& op, int i, bool arithmetic) {
  const DataType t = op.inType(i);
  if (t == DataType::STRING || t == DataType::UNDEFINED || (arithmetic && t == DataType::BOOL))
    throw error("input {} ('{}') must be a {} tensor, but it is {}", i, op.input(i)->id,
                arithmetic ? "numeric" : "numeric or BOOL", op.inInfo(i).toString());
}

// ---------------------------------------------------------------- setup

void setupDynamicSlice(Op& op) {
  requireData(op, 0, false);
  const DynamicGeom g = dynamicGeom(op, op.inShape(0));
  checkDynamicOffset(op, 1, g);
  // With the optional slice input (the tensor the slice is written into, as PopART's), the output
  // has that tensor's shape: [12 7] rather than [1 12 7] when it leaves out the sliced 1s.
  if (op.hasInput(2)) checkDynamicSliceInput(op, 2, g);
  setOutput(op, 0, op.inType(0), op.hasInput(2) ? op.inShape(2) : g.slice);
}

void setupDynamicUpdateOrAdd(Op& op) {
  requireData(op, 0, op.kind() == OpKind::GcDynamicAdd);
  const DynamicGeom g = dynamicGeom(op, op.inShape(0));
  checkDynamicOffset(op, 1, g);
  checkDynamicSliceInput(op, 2, g);
  setupSameAsInput0(op);
}

void setupDynamicZero(Op& op) {
  requireData(op, 0, false);
  const DynamicGeom g = dynamicGeom(op, op.inShape(0));
  checkDynamicOffset(op, 1, g);
  setupSameAsInput0(op);
}

void setupSequenceSlice(Op& op) {
  requireData(op, 0, false);
  requireSameType(op, 0, 1);
  const Shape& src = op.inShape(0);
  const Shape& dst = op.inShape(1);
  if (src.empty() || dst.empty() || Shape(src.begin() + 1, src.end()) != Shape(dst.begin() + 1, dst.end()))
    throw error(
        "source {} and destination {} must have rank >= 1 and the same shape after the first (sequence) dimension", src,
        dst);
  const int64_t n = op.inInfo(2).nelms();
  const char* names[] = {"N", "sourceOffset", "destinationOffset"};
  for (int i = 2; i < 5; ++i) {
    requireType(op, i, {DataType::UINT32, DataType::INT32, DataType::UINT64, DataType::INT64});
    if (op.inInfo(i).nelms() != n)
      throw error("N, sourceOffset and destinationOffset must hold as many values; {} ('{}') is {}, N is {}",
                  names[i - 2], op.input(i)->id, op.inInfo(i).toString(), op.inInfo(2).toString());
  }
  const int64_t zeroUnused = op.attrs.getInt("zeroUnused", 0);
  if (zeroUnused != 0 && zeroUnused != 1) throw error("zeroUnused must be 0 or 1, got {}", zeroUnused);
  setOutput(op, 0, op.inInfo(1));
}

/// PackedDataBlock: [data_1, offsets_1, lengths_1, ..., data_k, offsets_k, lengths_k,
/// resultOffsets, resultLengths]. Each data input's sequences are unpacked to
/// [callbackBatchSize, maxSequenceLengths[i], ...] slices that the callback subgraph maps to one
/// output [callbackBatchSize, L, ...], whose first resultLengths[s] rows of each sequence are packed
/// into the result [resultSize, ...] at resultOffsets[s].
void setupPackedDataBlock(Op& op) {
  // The Builder's inference sees the node alone (no implicit inputs appended yet).
  const int formal = op.numFormalInputs >= 0 ? op.numFormalInputs : op.numInputs();
  if (formal < 5 || (formal - 2) % 3 != 0)
    throw error(
        "PackedDataBlock takes [data, offsets, lengths] for each data input followed by [resultOffsets, "
        "resultLengths] (3k + 2 inputs), got {} inputs",
        formal);
  const int k = (formal - 2) / 3;
  const auto maxLens = op.attrs.getInts("maxSequenceLengths");
  if (static_cast<int>(maxLens.size()) != k)
    throw error("maxSequenceLengths {} must hold one length per data input ({})", maxLens, k);
  const int64_t resultSize = op.attrs.getInt("resultSize");
  const int64_t batch = op.attrs.getInt("callbackBatchSize");
  if (resultSize < 0) throw error("resultSize must be >= 0, got {}", resultSize);
  if (batch < 1) throw error("callbackBatchSize must be >= 1, got {}", batch);
  const int64_t nSeq = op.inInfo(1).nelms();
  std::vector<TensorInfo> bodyIn;
  for (int i = 0; i < k; ++i) {
    requireData(op, 3 * i, false);
    const Shape& d = op.inShape(3 * i);
    if (d.empty()) throw error("data input {} ('{}') must have rank >= 1", i, op.input(3 * i)->id);
    if (maxLens[static_cast<size_t>(i)] < 0)
      throw error("maxSequenceLengths[{}] must be >= 0, got {}", i, maxLens[static_cast<size_t>(i)]);
    for (int j = 1; j <= 2; ++j) {
      requireType(op, 3 * i + j, {DataType::UINT32, DataType::INT32, DataType::UINT64, DataType::INT64});
      if (op.inInfo(3 * i + j).nelms() != nSeq)
        throw error("every offsets and lengths input must hold one value per sequence ({}); '{}' is {}", nSeq,
                    op.input(3 * i + j)->id, op.inInfo(3 * i + j).toString());
    }
    Shape s{batch, maxLens[static_cast<size_t>(i)]};
    s.insert(s.end(), d.begin() + 1, d.end());
    bodyIn.emplace_back(op.inType(3 * i), s);
  }
  for (int j = formal - 2; j < formal; ++j) {
    requireType(op, j, {DataType::UINT32, DataType::INT32, DataType::UINT64, DataType::INT64});
    if (op.inInfo(j).nelms() != nSeq)
      throw error("resultOffsets and resultLengths must hold one value per sequence ({}); '{}' is {}", nSeq,
                  op.input(j)->id, op.inInfo(j).toString());
  }
  Graph& body = op.graph().ir().importSubgraph(op, "callback", bodyIn);
  if (body.outputIds.size() != 1)
    throw error("the callback subgraph must have one output, it has {}", body.outputIds.size());
  const TensorInfo& out = body.getTensor(body.outputIds[0]).info;
  if (out.rank() < 2 || out.shape()[0] != batch)
    throw error("the callback's output {} must have shape [callbackBatchSize ({}), sequence length, ...]",
                out.toString(), batch);
  Shape r{resultSize};
  r.insert(r.end(), out.shape().begin() + 2, out.shape().end());
  setOutput(op, 0, out.dataType(), r);
}

// ---------------------------------------------------------------- gradients

Attributes dynamicAttrs(const Op& op) {
  Attributes a;
  a.set("axes", op.attrs.getInts("axes"));
  a.set("sizes", op.attrs.getInts("sizes"));
  a.set("noOverlap", op.attrs.getInt("noOverlap", 0));
  return a;
}

bool noOverlap(const Op& op) {
  return op.attrs.getInt("noOverlap", 0) != 0;
}

void gradDynamicSlice(GradCtx& c) {
  if (!c.needsInGrad(0)) return;
  const TensorInfo& in = c.in(0)->info;
  Tensor* zeros = c.constant(0.0, in.dataType(), in.shape());
  const OpKind k = noOverlap(c.op()) ? OpKind::GcDynamicUpdate : OpKind::GcDynamicAdd;
  c.setInGrad(0, c.add1(k, {zeros, c.in(1), c.outGrad(0)}, dynamicAttrs(c.op())));
}

/// The slice's gradient: the gradient's slice at the offset, in the slice input's shape.
void sliceGrad(GradCtx& c) {
  if (!c.needsInGrad(2)) return;
  Tensor* s = c.add1(OpKind::GcDynamicSlice, {c.outGrad(0), c.in(1)}, dynamicAttrs(c.op()));
  c.setInGrad(2, c.reshape(s, c.in(2)->info.shape()));
}

void gradDynamicUpdate(GradCtx& c) {
  if (c.needsInGrad(0)) {
    const bool keep = noOverlap(c.op());
    c.setInGrad(0, keep ? c.outGrad(0) : c.add1(OpKind::GcDynamicZero, {c.outGrad(0), c.in(1)}, dynamicAttrs(c.op())));
  }
  sliceGrad(c);
}

void gradDynamicAdd(GradCtx& c) {
  if (c.needsInGrad(0)) c.setInGrad(0, c.outGrad(0));
  sliceGrad(c);
}

void gradDynamicZero(GradCtx& c) {
  if (c.needsInGrad(0)) c.setInGrad(0, c.add1(OpKind::GcDynamicZero, {c.outGrad(0), c.in(1)}, dynamicAttrs(c.op())));
}

}  // namespace

void define_GcDynamicSlice(OpDef& d) {
  d.setup = setupDynamicSlice;
  d.grad = gradDynamicSlice;
}
void define_GcDynamicUpdate(OpDef& d) {
  d.setup = setupDynamicUpdateOrAdd;
  d.grad = gradDynamicUpdate;
}
void define_GcDynamicAdd(OpDef& d) {
  d.setup = setupDynamicUpdateOrAdd;
  d.grad = gradDynamicAdd;
}
void define_GcDynamicZero(OpDef& d) {
  d.setup = setupDynamicZero;
  d.grad = gradDynamicZero;
}
// PopART's SequenceSliceOp has no grad ops (an empty list, not an error): gradients stop there,
// and a weight reaches the loss through its other paths only.
void define_GcSequenceSlice(OpDef& d) {
  d.setup = setupSequenceSlice;
  d.grad = [](GradCtx&) {};
}
void define_GcPackedDataBlock(OpDef& d) {
  d.setup = setupPackedDataBlock;
  d.grad = gradPackedDataBlock;
}

}  // namespace popart
