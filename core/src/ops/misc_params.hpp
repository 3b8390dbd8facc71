// Unique's algorithm, shared by shape inference (ops/misc.cpp: the output sizes depend on the
// values) and the CPU kernel (backends/cpu/kernels/misc.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <vector>

#include "popart/half.hpp"

namespace popart {

class Op;

namespace ops {

struct UniqueResult {
  std::vector<int64_t> first;    ///< per unique slice, in output order: its first index in X
  std::vector<int64_t> inverse;  ///< per slice of X: the index of its unique slice in the output
  std::vector<int64_t> counts;   ///< per unique slice, in output order: its occurrences in X
};

template <typename T>
inline auto uniqueKey(T v) {
  if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}

/// The unique slices of x, seen as [outer, n, inner] with slices along the middle dimension
/// (outer = inner = 1 for the flattened form). `sorted`: ascending (lexicographic over the
/// slice's elements in row-major order), else in order of first occurrence.
template <typename T>
UniqueResult computeUnique(const T* x, int64_t outer, int64_t n, int64_t inner, bool sorted) {
  auto cmp = [&](int64_t a, int64_t b) {  // -1, 0, 1
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t k = 0; k < inner; ++k) {
        const auto va = uniqueKey(x[(o * n + a) * inner + k]), vb = uniqueKey(x[(o * n + b) * inner + k]);
        if (va < vb) return -1;
        if (vb < va) return 1;
      }
    }
    return 0;
  };
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t(0));
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return cmp(a, b) < 0; });
  // Groups of equal slices in sorted order; the first of each group is its first occurrence.
  std::vector<int64_t> groupOf(static_cast<size_t>(n));
  std::vector<int64_t> first, counts;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || cmp(order[i - 1], order[i]) != 0) {
      first.push_back(order[i]);
      counts.push_back(0);
    }
    groupOf[static_cast<size_t>(order[i])] = static_cast<int64_t>(first.size()) - 1;
    ++counts.back();
  }
  std::vector<int64_t> pos(first.size());  // group -> output position
  std::iota(pos.begin(), pos.end(), int64_t(0));
  if (!sorted) {
    std::vector<int64_t> byFirst(first.size());
    std::iota(byFirst.begin(), byFirst.end(), int64_t(0));
    std::sort(byFirst.begin(), byFirst.end(),
              [&](int64_t a, int64_t b) { return first[static_cast<size_t>(a)] < first[static_cast<size_t>(b)]; });
    for (size_t p = 0; p < byFirst.size(); ++p) pos[static_cast<size_t>(byFirst[p])] = static_cast<int64_t>(p);
  }
  UniqueResult r;
  r.first.resize(first.size());
  r.counts.resize(first.size());
  for (size_t g = 0; g < first.size(); ++g) {
    r.first[static_cast<size_t>(pos[g])] = first[g];
    r.counts[static_cast<size_t>(pos[g])] = counts[g];
  }
  r.inverse.resize(static_cast<size_t>(n));
  for (size_t i = 0; i < r.inverse.size(); ++i) r.inverse[i] = pos[static_cast<size_t>(groupOf[i])];
  return r;
}

/// Unique's geometry: [outer, n, inner] around the axis (all 1 but n without an axis).
struct UniqueGeometry {
  bool hasAxis = false;
  int64_t axis = 0, outer = 1, n = 0, inner = 1;
};
/// Reads Unique's `axis` attribute against input 0's shape.
UniqueGeometry uniqueGeometry(const Op& op);

/// MaxUnpool's output shape from X and the kernel_shape / strides / pads attributes (without the
/// output_shape input). The indices address this shape; a given output_shape places each element
/// at the same coordinates in the (padded or cropped) output.
std::vector<int64_t> maxUnpoolInferredShape(const Op& op);

/// NonMaxSuppression's scalar inputs and attribute, read and checked (the kernel reads them again
/// from its slots: a null pointer is an absent optional input).
struct NmsParams {
  bool centerPointBox = false;  ///< boxes as [x_centre, y_centre, width, height], else two corners
  int64_t maxPerClass = 0;      ///< max_output_boxes_per_class (0 or less: nothing is selected)
  double iouThreshold = 0;      ///< a box is suppressed by a selected one with IoU > this
  bool hasScoreThreshold = false;
  double scoreThreshold = 0;  ///< only boxes scoring > this are candidates
};
NmsParams nmsParams(const Op& op, const int64_t* maxPerClass, const float* iouThreshold, const float* scoreThreshold);

/// Greedy non-maximum suppression of boxes [B, N, 4] by scores [B, C, N]: the selected
/// (batch, class, box) triples, by batch, then class, then descending score (ties: the lower box
/// index first).
std::vector<int64_t> nonMaxSuppression(const float* boxes, const float* scores, int64_t batches, int64_t classes,
                                       int64_t boxCount, const NmsParams& p);

}  // namespace ops
}  // namespace popart
