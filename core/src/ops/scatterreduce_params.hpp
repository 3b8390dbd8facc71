// The geometry of PopART's ScatterReduce (and its grouped form), shared by shape inference
// (ops/scatterreduce.cpp) and the CPU kernels (backends/cpu/kernels/scatterreduce.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "common/attributes.hpp"
#include "popart/tensorinfo.hpp"

namespace popart {
namespace ops {

enum class ScatterRed { Sum, Max, Min, Mul, None };

/// `reduction` ("sum", "max", "min", "mul", "none"; any case, "NoReduction" too).
ScatterRed scatterReduction(const Attributes& attrs);

/// How data elements map to output positions. The data (src) is iterated over `iter` (row-major);
/// position p reads data at p (data strides), the index at p (index strides, 0 along the dimensions
/// a vector index is broadcast over) and writes output position p with p[axis] replaced by the
/// index value. Index values outside [0, axisSize) are skipped (Poplar's multiUpdate ignores them,
/// and the gradient's multiSlice reads zeros there).
struct ScatterGeom {
  Shape data, indices, out, iter;
  int64_t axis = 0, axisSize = 0, groupSize = 1;
  ScatterRed reduction = ScatterRed::Sum;
  std::vector<int64_t> dataStrides, indexStrides, outStrides;
};

/// Checks the attributes and shapes as PopART's ScatterReduceOp does (errors in its words) and
/// returns the geometry. `initial` is the shape of the initial values (nullptr without them).
ScatterGeom scatterGeom(const Attributes& attrs, const Shape& data, const Shape& indices, const Shape* initial);

/// Row-major strides of a shape, in elements.
inline std::vector<int64_t> rowMajor(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

/// Calls f(dataOffset, indexOffset, outOffset) for every iterated position; outOffset leaves out
/// the axis (add index * outStrides[axis]).
template <typename F>
void forEachScatter(const ScatterGeom& g, F f) {
  const size_t r = g.iter.size();
  int64_t n = 1;
  for (auto d : g.iter) n *= d;
  std::vector<int64_t> pos(r, 0);
  const auto axis = static_cast<size_t>(g.axis);
  for (int64_t k = 0; k < n; ++k) {
    int64_t dOff = 0, iOff = 0, oOff = 0;
    for (size_t d = 0; d < r; ++d) {
      dOff += pos[d] * g.dataStrides[d];
      iOff += pos[d] * g.indexStrides[d];
      if (d != axis) oOff += pos[d] * g.outStrides[d];
    }
    f(dOff, iOff, oOff);
    for (size_t d = r; d-- > 0;) {
      if (++pos[d] < g.iter[d]) break;
      pos[d] = 0;
    }
  }
}

}  // namespace ops
}  // namespace popart
