// Numpy broadcasting for elementwise kernels: dimensions are collapsed so that the innermost
// loop is as long as possible, with per-input inner strides 0 (broadcast) or 1 (contiguous).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
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

/// One inner run of a plan: the output offset, the offsets and inner strides of the inputs, and
/// the run's length.
using RunFn = void (*)(void* ctx, int64_t outOffset, const int64_t* inOffsets, int64_t len,
                       const int64_t* innerStrides);

/// Calls run(ctx, ...) for every inner run of a plan over n <= kMaxRunInputs inputs: the odometer
/// behind forEachRun, compiled once rather than once per kernel and element type.
constexpr size_t kMaxRunInputs = 4;
void forEachRunPtr(const BroadcastPlan& p, size_t n, RunFn run, void* ctx);

/// Calls f(outOffset, inOffsets (array of N), innerLen, innerStrides) for every inner run.
template <size_t N, typename F>
void forEachRun(const BroadcastPlan& p, F&& f) {
  static_assert(N <= kMaxRunInputs, "too many inputs for forEachRun");
  using Fn = std::remove_reference_t<F>;
  forEachRunPtr(
      p, N,
      [](void* ctx, int64_t o, const int64_t* off, int64_t len, const int64_t* st) {
        (*static_cast<Fn*>(ctx))(o, off, len, st);
      },
      const_cast<void*>(static_cast<const void*>(&f)));
}

/// Copies `in` (shape inShape) broadcast into `out` (shape outShape); elements of `bytes` size.
void broadcastCopy(const void* in, const Shape& inShape, void* out, const Shape& outShape, size_t bytes);

/// A batched matrix product A [.., M, K] x B [.., K, N] (a 1-D A is [1, K], a 1-D B is [K, 1])
/// with numpy broadcasting of the batch dimensions: for each of the nb output batches, the
/// offsets (in matrices) of its A and B.
struct BatchedMatMul {
  int64_t M = 0, K = 0, N = 0, nb = 1;
  std::vector<int64_t> offA, offB;
};
BatchedMatMul batchedMatMul(Shape a, Shape b);

}  // namespace cpu
}  // namespace popart
