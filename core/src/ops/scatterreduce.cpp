// PopART's scatter reductions (domain ai.graphcore): ScatterReduce [data, indices(, initial
// values)] with axis, axis_size, reduction (Sum / Max / Min / Mul / None), group_size (the grouped
// form: a leading group dimension, each group scattered on its own) and enable_index_broadcast;
// GroupedGather [data, indices] with axis and group_size. Their gradients are dedicated ops
// (ScatterReduceGrad, GroupedGatherGrad) that follow PopART's strategies: a gather of the output
// gradient, masked where the data is not the reduced value (Max / Min) or scaled by output / data
// (Mul); the initial values get the output gradient (Sum), masked (Max / Min), scaled (Mul) or zeroed
// where something was scattered (None).
#include <algorithm>
#include <cctype>

#include "ir/op_def.hpp"
#include "ops/graph_editor.hpp"
#include "ops/op_util.hpp"
#include "ops/scatterreduce_params.hpp"

namespace popart {
namespace ops {

ScatterRed scatterReduction(const Attributes& attrs) {
  const std::string r = attrs.getString("reduction", "sum");
  std::string l = r;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return std::tolower(c); });
  if (l == "sum") return ScatterRed::Sum;
  if (l == "max") return ScatterRed::Max;
  if (l == "min") return ScatterRed::Min;
  if (l == "mul") return ScatterRed::Mul;
  if (l == "none" || l == "noreduction") return ScatterRed::None;
  throw error("reduction '{}' is not a ScatterReduction (Sum, Max, Min, Mul, None)", r);
}

ScatterGeom scatterGeom(const Attributes& attrs, const Shape& data, const Shape& indices, const Shape* initial) {
  ScatterGeom g;
  g.data = data;
  g.indices = indices;
  g.axisSize = attrs.getInt("axis_size");
  if (g.axisSize < 1) throw error("axis_size = {} is not valid: must be > 0.", g.axisSize);
  g.groupSize = attrs.getInt("group_size", 1);
  if (g.groupSize < 1) throw error("group_size = {} is not valid: must be > 0.", g.groupSize);
  const int64_t broadcastEnabled = attrs.getInt("enable_index_broadcast", 1);
  if (broadcastEnabled != 0 && broadcastEnabled != 1)
    throw error("enable_index_broadcast = {} is not valid: must be either 0 or 1.", broadcastEnabled);
  g.reduction = scatterReduction(attrs);
  const auto rank = static_cast<int64_t>(data.size());
  int64_t axis = attrs.getInt("axis", -1);
  if (-rank > axis || axis > rank - 1)
    throw error("axis = {} is outside the acceptable range [{}, {}]", axis, -rank, rank - 1);
  if (axis < 0) axis += rank;
  g.axis = axis;
  const bool grouped = g.groupSize > 1;
  if (grouped) {
    if (axis == 0)
      throw error("axis = {} is the group dimension: a grouped scatter reduces along another axis", g.axis);
    if (data[0] != g.groupSize || indices.empty() || indices[0] != g.groupSize)
      throw error("data {} and indices {} must have group_size ({}) as their first dimension", data, indices,
                  g.groupSize);
  }
  if (indices.size() > data.size())
    throw error("Invalid rank for indices input. Indices rank {} must be <= data input rank {}.", indices.size(),
                data.size());
  // The indices expanded to the data's rank: a vector (after the group dimension) gets singleton
  // dimensions before the axis, and every index gets them at the end.
  const size_t g0 = grouped ? 1 : 0;
  Shape ex = indices;
  if (indices.size() - g0 == 1) {
    for (size_t i = g0; i < static_cast<size_t>(axis); ++i) ex.insert(ex.begin() + static_cast<int64_t>(g0), 1);
  }
  while (ex.size() < data.size()) ex.push_back(1);
  for (size_t d = 0; d < data.size(); ++d) {
    if (ex[d] != data[d] && ex[d] != 1)
      throw error("Failed to expand 'indices' shape {} to match 'src' shape {} using reduction axis = {}.", indices,
                  data, axis);
  }
  g.iter = data;
  bool vectorised = false;
  if (indices != data) {
    std::vector<size_t> nonSingleton;
    for (size_t d = 0; d < ex.size(); ++d) {
      if (ex[d] != 1) nonSingleton.push_back(d);
    }
    const bool partial = nonSingleton.size() != 1 + g0 || nonSingleton[g0] != static_cast<size_t>(axis);
    if (broadcastEnabled && partial) throw error("Partial broadcasting of indices is not currently supported.");
    if (broadcastEnabled)
      vectorised = true;  // one index per position along the axis, for every other position
    else
      g.iter = ex;  // the indices as they are (torch.scatter_reduce's form): data beyond them is not read
  }
  g.out = g.iter;
  if (vectorised) g.out = data;
  g.out[static_cast<size_t>(axis)] = g.axisSize;
  if (initial && *initial != g.out)
    throw error("the initial values {} must have the output's shape {} (data {} with axis {} of size axis_size {})",
                *initial, g.out, data, axis, g.axisSize);
  g.dataStrides = rowMajor(data);
  g.indexStrides = rowMajor(ex);
  for (size_t d = 0; d < ex.size(); ++d) {
    if (ex[d] == 1) g.indexStrides[d] = 0;
  }
  g.outStrides = rowMajor(g.out);
  return g;
}

}  // namespace ops

namespace {

using namespace ops;

void requireIndexType(const Op& op, int i) {
  requireType(op, i,
              {DataType::UINT8, DataType::UINT16, DataType::UINT32, DataType::UINT64, DataType::INT8, DataType::INT16,
               DataType::INT32, DataType::INT64});
}

void setupScatterReduce(Op& op) {
  const DataType t = op.inType(0);
  if (t == DataType::STRING || t == DataType::BOOL || t == DataType::UNDEFINED)
    throw error("data ('{}') must be a numeric tensor, but it is {}", op.input(0)->id, op.inInfo(0).toString());
  requireIndexType(op, 1);
  if (op.hasInput(2)) requireSameType(op, 0, 2);
  const Shape* initial = op.hasInput(2) ? &op.inShape(2) : nullptr;
  const ScatterGeom g = scatterGeom(op.attrs, op.inShape(0), op.inShape(1), initial);
  setOutput(op, 0, t, g.out);
}

void setupScatterReduceGrad(Op& op) {
  // [gradOut, indices, data, forward output(, initial values)] -> [gradData(, gradInitial)]
  const Shape data = op.attrs.getInts("data_shape");
  const Shape* initial = op.hasInput(4) ? &op.inShape(4) : nullptr;
  const ScatterGeom g = scatterGeom(op.attrs, data, op.inShape(1), initial);
  if (op.inShape(0) != g.out)
    throw internal_error("ScatterReduceGrad: gradient {} is not the output's shape {}", op.inShape(0), g.out);
  setOutput(op, 0, op.inType(0), data);
  setOutput(op, 1, op.inInfo(0));
}

/// GroupedGather: data [G, ...] and indices [G, ...]; group g gathers data[g] at indices[g] along
/// axis - 1 of the group: [G] + data[1:axis] + indices[1:] + data[axis+1:].
Shape groupedGatherShape(const Shape& data, const Shape& idx, int64_t axis) {
  Shape out(data.begin(), data.begin() + axis);
  out.insert(out.end(), idx.begin() + 1, idx.end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  return out;
}

int64_t groupedGatherAxis(const Op& op, const Shape& data, const Shape& idx) {
  const int64_t groupSize = op.attrs.getInt("group_size", 1);
  if (groupSize < 1) throw error("group_size = {} is not valid: must be > 0.", groupSize);
  if (data.size() < 2)
    throw error("data {} must have rank >= 2: a group dimension and the dimension gathered from", data);
  const int64_t axis = normalizeAxis(op.attrs.getInt("axis", 0), static_cast<int64_t>(data.size()));
  if (axis == 0) throw error("axis 0 is the group dimension: a grouped gather gathers along another axis");
  if (data[0] != groupSize || idx.empty() || idx[0] != groupSize)
    throw error("data {} and indices {} must have group_size ({}) as their first dimension", data, idx, groupSize);
  return axis;
}

void setupGroupedGather(Op& op) {
  if (op.inType(0) == DataType::STRING || op.inType(0) == DataType::UNDEFINED)
    throw error("data ('{}') must be a numeric or BOOL tensor, but it is {}", op.input(0)->id, op.inInfo(0).toString());
  requireType(op, 1, {DataType::INT32, DataType::INT64, DataType::UINT32});
  const int64_t axis = groupedGatherAxis(op, op.inShape(0), op.inShape(1));
  setOutput(op, 0, op.inType(0), groupedGatherShape(op.inShape(0), op.inShape(1), axis));
}

void setupGroupedGatherGrad(Op& op) {
  // [gradOut, indices] -> gradData (data_shape)
  setOutput(op, 0, op.inType(0), op.attrs.getInts("data_shape"));
}

void gradScatterReduce(GradCtx& c) {
  const bool initial = c.op().hasInput(2);
  if (!c.needsInGrad(0) && !(initial && c.needsInGrad(2))) return;
  Attributes a = c.op().attrs;
  a.set("data_shape", c.in(0)->info.shape());
  const int nOut = initial ? 2 : 1;
  std::vector<Tensor*> ins{c.outGrad(0), c.in(1), c.in(0), c.out(0)};
  if (initial) ins.push_back(c.in(2));
  const auto g = c.add(OpKind::GcScatterReduceGrad, ins, a, nOut);
  c.setInGrad(0, g[0]);
  if (initial) c.setInGrad(2, g[1]);
}

void gradGroupedGather(GradCtx& c) {
  if (!c.needsInGrad(0)) return;
  Attributes a;
  a.set("axis", c.op().attrs.getInt("axis", 0));
  a.set("group_size", c.op().attrs.getInt("group_size", 1));
  a.set("data_shape", c.in(0)->info.shape());
  c.setInGrad(0, c.add1(OpKind::GcGroupedGatherGrad, {c.outGrad(0), c.in(1)}, a));
}

}  // namespace

void define_GcScatterReduce(OpDef& d) {
  d.setup = setupScatterReduce;
  d.grad = gradScatterReduce;
}
void define_GcGroupedGather(OpDef& d) {
  d.setup = setupGroupedGather;
  d.grad = gradGroupedGather;
}
void define_GcScatterReduceGrad(OpDef& d) {
  d.setup = setupScatterReduceGrad;
}
void define_GcGroupedGatherGrad(OpDef& d) {
  d.setup = setupGroupedGatherGrad;
}

}  // namespace popart
