// Numpy broadcasting for elementwise kernels: dimensions are collapsed so that the innermost
// loop is as long as possible, with per-input inner strides 0 (broadcast) or 1 (contiguous).
#pragma once

#include <cstdint>
#include <vector>

#include "popart/names.hpp"

namespace popart {
namespace cpu {

struct BroadcastPlan {
  std::vector<int64_t> dims;                  ///< collapsed output dims (at least one)
  std::vector<std::vector<int64_t>> strides;  ///< per input, per collapsed dim
  int64_t outer() const;                      ///< product of all dims but the last
  int64_t inner() const { return dims.back(); }
  bool allContiguous() const;  ///< every input has the output's layout
};

/// Plans the traversal of `out` (row-major) reading each input shape broadcast to it.
BroadcastPlan makeBroadcastPlan(const Shape& out, const std::vector<Shape>& ins);

/// Calls f(outOffset, inOffsets (array of n), innerLen, innerStrides) for every inner run.
template <size_t N, typename F>
void forEachRun(const BroadcastPlan& p, F&& f) {
  const size_t r = p.dims.size();
  const int64_t inner = p.inner();
  int64_t innerStride[N];
  for (size_t k = 0; k < N; ++k) innerStride[k] = p.strides[k][r - 1];
  std::vector<int64_t> idx(r, 0);
  int64_t off[N] = {};
  const int64_t outer = p.outer();
  for (int64_t o = 0; o < outer; ++o) {
    f(o * inner, off, inner, innerStride);
    // odometer over dims [0, r-1)
    for (size_t d = r - 1; d-- > 0;) {
      if (++idx[d] < p.dims[d]) {
        for (size_t k = 0; k < N; ++k) off[k] += p.strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) off[k] -= p.strides[k][d] * (p.dims[d] - 1);
      idx[d] = 0;
    }
  }
}

/// Copies `in` (shape inShape) broadcast into `out` (shape outShape); elements of `bytes` size.
void broadcastCopy(const void* in, const Shape& inShape, void* out, const Shape& outShape, size_t bytes);

}  // namespace cpu
}  // namespace popart
